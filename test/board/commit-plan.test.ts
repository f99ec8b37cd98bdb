/**
 * Commit planning without a disk: staged files, what each was read as and the
 * chain head in; final bytes, revs and audit events, or a refusal, out.
 *
 * Rules under test (docs/architecture.md "The board on disk", "The write path", "External edits"):
 *  - unchanged content writes nothing; a change bumps the rev by one;
 *  - events: adoptions first, then lock.broken, then the caller's; the last records every file written;
 *  - a committed write without an audit event, or one breaking its schema, is refused.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyChain, type AuditDraft, type ChainHead } from '../../src/board/audit.js';
import { planCommit, sealEvents, type Adoption, type CommitInput, type CommitPlan, type StagedFile } from '../../src/board/commit-plan.js';
import { decodeDoc, encodeDoc, type BoardDoc } from '../../src/board/document.js';
import { scopeFiles } from '../../src/board/layout.js';
import type { LockInfo } from '../../src/board/lock.js';
import { newPrivateKeyPem, signerFrom } from '../../src/board/signing.js';
import { runData, runId, stepData, T0 } from '../support/tmp-board.js';

const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

const ID = runId(7);
const RUN = `runs/${ID}/RUN.md`;
const STEP = `runs/${ID}/review.md`;
const LEASE = `.work/leases/${ID}/review.json`;
const HEAD: ChainHead = { seq: 4, hash: 'f'.repeat(64), ts: T0 };

/** A committed file as a transaction reads it: encoded by the store's own codec, then decoded. */
function doc(rel: string, data: Record<string, unknown>, rev: number, body = ''): BoardDoc {
  const d = decodeDoc(rel, Buffer.from(encodeDoc(rel, { ...data, rev }, body)));
  if (!d.ok) throw new Error(`${rel} does not decode: ${JSON.stringify(d.issues)}`);
  return d.doc;
}

const draft = (action: string): AuditDraft => ({ actor: 'user:tester', action, entity: ID, input: { fromRev: 0, toRev: 0 } });

function input(over: Partial<Omit<CommitInput, 'staged' | 'readAs'>> & { staged: [string, StagedFile][]; readAs?: [string, BoardDoc | null][] }): CommitInput {
  return {
    scope: scopeFiles({ kind: 'run', id: ID }),
    adopted: [],
    drafts: [],
    brokenLocks: [],
    stateNow: new Map(),
    headNow: null,
    chainHead: HEAD,
    ...over,
    staged: new Map(over.staged),
    readAs: new Map(over.readAs ?? []),
  };
}

function planned(i: CommitInput): CommitPlan {
  const r = planCommit(i);
  if (!r.ok) throw r.refusal;
  if (r.plan === null) throw new Error('expected something to commit');
  return r.plan;
}

function refusal(i: CommitInput): string {
  const r = planCommit(i);
  if (r.ok) throw new Error('expected a refusal');
  return r.refusal.message;
}

describe('planCommit: what is written', () => {
  it('unchanged content writes nothing: with no event there is nothing to commit at all', () => {
    const current = doc(RUN, runData(ID), 3, '# Run\n');
    // Same data with its keys in another order: the same file.
    const reordered = Object.fromEntries(Object.entries(runData(ID)).reverse());
    const staged: [string, StagedFile][] = [[RUN, { kind: 'doc', data: reordered, body: '# Run\n' }]];
    expect(planCommit(input({ staged, readAs: [[RUN, current]] }))).toEqual({ ok: true, plan: null });

    const plan = planned(input({ staged, readAs: [[RUN, current]], drafts: [draft('run.noted')] }));
    expect(plan.writes).toEqual([]);
    expect(plan.written).toEqual({});
    expect(plan.events).toHaveLength(1);
    expect(plan.events[0]!.input).toEqual({ fromRev: 3, toRev: 3 });
  });

  it('a state file with the same bytes is not written, and removing an absent one removes nothing', () => {
    const staged: [string, StagedFile][] = [
      [LEASE, { kind: 'raw', bytes: '{"a":1}' }],
      [`.work/leases/${ID}/gone.json`, { kind: 'remove' }],
    ];
    const stateNow = new Map<string, Buffer | null>([
      [LEASE, Buffer.from('{"a":1}')],
      [`.work/leases/${ID}/gone.json`, null],
    ]);
    expect(planCommit(input({ staged, stateNow }))).toEqual({ ok: true, plan: null });

    const changed = planned(
      input({
        staged,
        stateNow: new Map([
          [LEASE, Buffer.from('{"a":0}')],
          [`.work/leases/${ID}/gone.json`, Buffer.from('x')],
        ]),
      }),
    );
    expect(changed.writes).toEqual([{ rel: LEASE, bytes: '{"a":1}' }]);
    expect(changed.removes).toEqual([`.work/leases/${ID}/gone.json`]);
    // State is never audited nor counted as a committed write.
    expect(changed.written).toEqual({});
    expect(changed.events).toEqual([]);
  });

  it('a change bumps the rev by one; a new file starts at rev 1', () => {
    const current = doc(RUN, runData(ID), 3, '# Run\n');
    const plan = planned(
      input({
        staged: [
          [RUN, { kind: 'doc', data: runData(ID, { state: 'waiting' }), body: '# Run\n' }],
          [STEP, { kind: 'doc', data: stepData('review'), body: '' }],
        ],
        readAs: [
          [RUN, current],
          [STEP, null],
        ],
        drafts: [draft('run.completed')],
      }),
    );
    expect(plan.written).toEqual({ [RUN]: 4, [STEP]: 1 });
    const run = plan.writes.find((w) => w.rel === RUN)!;
    expect(run.bytes).toBe(encodeDoc(RUN, { ...runData(ID, { state: 'waiting' }), rev: 4 }, '# Run\n'));
    expect(plan.events[0]!.input).toMatchObject({ fromRev: 3, toRev: 4 });
    // The compare-and-swap names what each written file was read as: RUN.md's bytes, the step absent.
    expect(plan.expected).toEqual([
      { rel: RUN, sha256: current.sha256 },
      { rel: STEP, sha256: null },
    ]);
  });

  it("an adopted external edit keeps the editor's bytes: only its rev line moves on", () => {
    const edited = `---\nrev: 5 # bumped by hand\n${encodeDoc(RUN, runData(ID), '# Run\n').slice(4)}`;
    const read = decodeDoc(RUN, Buffer.from(edited));
    if (!read.ok) throw new Error('the edit does not decode');
    const readAs = { ...read.doc, rev: 5, data: { ...read.doc.data, rev: 5 } };
    const plan = planned(
      input({
        staged: [[RUN, { kind: 'adopt', text: edited, data: readAs.data, body: readAs.body }]],
        readAs: [[RUN, readAs]],
        adopted: [{ rel: RUN, fileRev: 5, knownRev: 2, sha256: read.doc.sha256 }],
      }),
    );
    expect(plan.writes).toEqual([{ rel: RUN, bytes: edited.replace('rev: 5', 'rev: 6') }]);
    expect(plan.written).toEqual({ [RUN]: 6 });
  });
});

describe('planCommit: the audit events', () => {
  const lock: LockInfo = { host: 'elsewhere', pid: 42, acquiredAt: T0, token: 't' };

  function adoptedAndBroken(chainHead: ChainHead | null) {
    const current = doc(STEP, stepData('review'), 2);
    const adoption: Adoption = { rel: STEP, fileRev: 2, knownRev: 1, sha256: current.sha256 };
    return input({
      staged: [
        [STEP, { kind: 'adopt', text: encodeDoc(STEP, { ...stepData('review'), rev: 2 }, ''), data: current.data, body: '' }],
        [RUN, { kind: 'doc', data: runData(ID, { state: 'waiting' }), body: '' }],
      ],
      readAs: [
        [STEP, current],
        [RUN, doc(RUN, runData(ID), 7)],
      ],
      adopted: [adoption],
      brokenLocks: [lock],
      drafts: [draft('step.done'), draft('run.completed')],
      chainHead,
    });
  }

  it("adoptions come first, then lock.broken, then the caller's events in order", () => {
    const plan = planned(adoptedAndBroken(HEAD));
    expect(plan.events.map((e) => e.action)).toEqual(['step.external-edit', 'lock.broken', 'step.done', 'run.completed']);
    expect(plan.events[0]).toMatchObject({ actor: 'external', entity: STEP, input: { fromRev: 1, toRev: 3, changes: { fileRev: 2 } } });
    expect(plan.events[1]).toMatchObject({ actor: 'coordinator', entity: scopeFiles({ kind: 'run', id: ID }).lock, input: { holder: lock } });
    // Events that name no revs take the run's: RUN.md from 7 to 8.
    for (const e of plan.events.slice(1)) expect(e.input).toMatchObject({ fromRev: 7, toRev: 8 });
  });

  it('events on a run whose RUN.md the transaction did not read take its rev as on disk', () => {
    const plan = planned(
      input({
        staged: [[STEP, { kind: 'doc', data: stepData('review', { state: 'waiting' }), body: '' }]],
        readAs: [[STEP, doc(STEP, stepData('review'), 2)]],
        drafts: [draft('step.claimed')],
        headNow: doc(RUN, runData(ID), 9),
      }),
    );
    expect(plan.written).toEqual({ [STEP]: 3 });
    expect(plan.events[0]!.input).toMatchObject({ fromRev: 9, toRev: 9 });
  });

  it('a lock over a scope with no chain yet guarded nothing: no lock.broken', () => {
    const plan = planned(adoptedAndBroken(null));
    expect(plan.events.map((e) => e.action)).toEqual(['step.external-edit', 'step.done', 'run.completed']);
  });

  it('the last event records every file written (sorted, with rev and sha256); the others none', () => {
    const plan = planned(adoptedAndBroken(HEAD));
    const bytes = (rel: string) => plan.writes.find((w) => w.rel === rel)!.bytes;
    expect(plan.events.at(-1)!.input.files).toEqual({
      [RUN]: { rev: 8, sha256: sha256(bytes(RUN)) },
      [STEP]: { rev: 3, sha256: sha256(bytes(STEP)) },
    });
    expect(Object.keys(plan.events.at(-1)!.input.files!)).toEqual([RUN, STEP].sort());
    for (const e of plan.events.slice(0, -1)) expect(e.input.files).toBeUndefined();
  });

  it("does not change the caller's drafts", () => {
    const i = adoptedAndBroken(HEAD);
    planned(i);
    expect(i.drafts).toEqual([draft('step.done'), draft('run.completed')]);
  });

  it('sealed in order onto the chain head: seq and links continue it, every line signed', () => {
    const plan = planned(adoptedAndBroken(HEAD));
    const signer = signerFrom(newPrivateKeyPem());
    const sealed = sealEvents(plan.events, HEAD, T0, signer);
    expect(sealed.map((e) => e.seq)).toEqual([5, 6, 7, 8]);
    expect(sealed[0]!.prevHash).toBe(HEAD.hash);
    expect(sealed.every((e) => e.signer === signer.fingerprint && typeof e.sig === 'string')).toBe(true);
    const report = verifyChain(sealed.map((e) => `${JSON.stringify(e)}\n`).join(''), HEAD, 6);
    expect(report.breaks).toEqual([]);
  });
});

describe('planCommit: refusals', () => {
  it('a committed write without an audit event is refused', () => {
    const message = refusal(
      input({
        staged: [[RUN, { kind: 'doc', data: runData(ID, { state: 'waiting' }), body: '' }]],
        readAs: [[RUN, doc(RUN, runData(ID), 1)]],
      }),
    );
    expect(message).toBe(`a transaction on run ${ID} changed committed files without an audit event`);
  });

  it('a write that would break its schema is refused, naming the file and the problem', () => {
    const message = refusal(
      input({
        staged: [[RUN, { kind: 'doc', data: runData(ID, { state: 'sometimes' }), body: '' }]],
        readAs: [[RUN, null]],
        drafts: [draft('run.started')],
      }),
    );
    expect(message).toMatch(new RegExp(`^a write would break the schema of ${RUN}: .*state`));
  });
});

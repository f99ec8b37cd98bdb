/**
 * The merge's replay as a pure rule (git/replay.ts through git/merge-run.ts):
 * two clones move one run from a shared state; the merge keeps one side and
 * applies the other side's acts again through the engine. No disk: runs are
 * made and moved by the engine itself and written as the store writes them
 * (planCommit, signed lines).
 */
import { describe, expect, it } from 'vitest';
import { sealEvent, verifyChain, type AuditEvent } from '../../src/board/audit.js';
import { planCommit, type StagedFile } from '../../src/board/commit-plan.js';
import { decodeDoc, type BoardDoc } from '../../src/board/document.js';
import { newPrivateKeyPem, signerFrom, signatureBreaks, keyRing, trustedKeys, type Signer } from '../../src/board/signing.js';
import { parseSuperseded, supersededBreaks, vouchedLines } from '../../src/board/superseded.js';
import { execute, start, type Command, type Plan } from '../../src/engine/execute.js';
import type { Actor, Context, Pinned, RunState } from '../../src/engine/types.js';
import { snapshotOf } from '../../src/engine/view.js';
import { mergeRun, type RunFiles } from '../../src/git/merge-run.js';
import { contentHash } from '../../src/board/audit.js';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';
import { runDoc, runFromDoc, stepDoc, stepFromDoc } from '../../src/service/runfiles.js';

const PROCESS = `name: spend
description: d
steps:
  - id: prepare
    person: finance
    task: Say what the money is for.
    output: { purpose: string }
  - id: approve
    person: finance
    approve: Approve the spend.
    next: pay
  - id: pay
    person: finance
    task: Pay it.
    output: { paid: boolean }
    next: done
  - id: done
    finish: approved
`;
const RUN = 'r-01kx0000000000000000000000';
const limits = { runDataBytes: 10_000, leaseSeconds: 600, checkPass: 0.9, checkFail: null, checkConfidence: 0.8, checkStateBytes: 65_536 };
const groups = { finance: ['ann@example.com', 'cat@example.com', 'fin@example.com'] };

function pinned(): Pinned {
  const r = loadProcess(`---\n${PROCESS}---\nBody.\n`, FULL_OFFER);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return { process: r.process, version: 1, hash: r.hash, roles: { finance: 'finance' } };
}
const PINNED = pinned();
const worldFor = () => ({ pinned: PINNED, limits });
const person = (email: string, operator = false): Actor => ({ kind: 'person', email, operator });

/** A clone in miniature: a run's files as the store writes them, each line signed with this clone's key. */
class Clone {
  constructor(
    public files: Record<string, string>,
    readonly signer: Signer,
  ) {}

  events(): AuditEvent[] {
    return verifyChain(this.files['audit.jsonl'] ?? '').events;
  }

  state(): { state: RunState; docs: Map<string, BoardDoc> } {
    const docs = new Map<string, BoardDoc>();
    for (const [name, text] of Object.entries(this.files)) {
      if (!name.endsWith('.md')) continue;
      const d = decodeDoc(`runs/${RUN}/${name}`, Buffer.from(text));
      if (!d.ok) throw new Error(JSON.stringify(d.issues));
      docs.set(`runs/${RUN}/${name}`, d.doc);
    }
    const run = docs.get(`runs/${RUN}/RUN.md`);
    const steps = Object.fromEntries([...docs].filter(([rel]) => !rel.endsWith('/RUN.md')).map(([, d]) => [String(d.data.id), stepFromDoc(d)]));
    return { state: { run: run ? runFromDoc(run) : (null as never), steps, leases: {} }, docs };
  }

  commit(plan: Plan, at: string): void {
    if (plan.kind !== 'commit') throw new Error(`refused: ${plan.kind === 'refuse' ? plan.error.message : 'check'}`);
    const { docs } = this.files['RUN.md'] ? this.state() : { docs: new Map<string, BoardDoc>() };
    const staged = new Map<string, StagedFile>();
    staged.set(`runs/${RUN}/RUN.md`, { kind: 'doc', ...runDoc(plan.state.run) });
    for (const [id, st] of Object.entries(plan.state.steps)) staged.set(`runs/${RUN}/${id}.md`, { kind: 'doc', ...stepDoc(st) });
    const drafts = plan.events.map((e) => ({
      actor: e.actor,
      action: e.action,
      entity: e.entity.startsWith('run:') ? e.entity : `${RUN}/${e.entity}`,
      input: { fromRev: 0, toRev: 0, ...(e.changes ? { changes: e.changes } : {}) },
    }));
    const evs = this.events();
    const last = evs[evs.length - 1];
    const p = planCommit({
      scope: { name: RUN, lock: RUN, head: `runs/${RUN}/RUN.md` },
      staged,
      readAs: docs,
      adopted: [],
      drafts,
      brokenLocks: [],
      stateNow: new Map(),
      headNow: null,
      chainHead: last ? { seq: last.seq, hash: last.hash, ts: last.ts } : null,
    });
    if (!p.ok || !p.plan) throw new Error('nothing to commit');
    for (const w of p.plan.writes) this.files[w.rel.slice(w.rel.lastIndexOf('/') + 1)] = w.bytes.toString();
    let h = last ? { seq: last.seq, hash: last.hash, ts: last.ts } : null;
    let chain = this.files['audit.jsonl'] ?? '';
    for (const d of p.plan.events) {
      const s = sealEvent(d, h, at, this.signer);
      chain += `${JSON.stringify(s)}\n`;
      h = { seq: s.seq, hash: s.hash, ts: s.ts };
    }
    this.files['audit.jsonl'] = chain;
  }

  run(actor: Actor, command: Command, at: string): void {
    this.commit(execute(this.state().state, PINNED, ctx(at), actor, command), at);
  }

  decide(who: string, step: string, d: Record<string, unknown>, at: string): void {
    const { state } = this.state();
    const decision = { workItemId: state.steps[step]!.workItem!, snapshot: snapshotOf(state, PINNED), ...d } as never;
    this.run(person(who), { tool: 'decide', decision, rules: { groups, fourEyes: false }, checkFile: () => ({ ok: false, problem: 'none' }) }, at);
  }

  clone(signer: Signer): Clone {
    return new Clone({ ...this.files }, signer);
  }
}

function ctx(at: string): Context {
  let n = 0;
  return { now: new Date(at), newId: (p) => `${p}-${at.replace(/\D/g, '')}${++n}`, limits };
}

const keys = [signerFrom(newPrivateKeyPem()), signerFrom(newPrivateKeyPem())] as const;

/** The shared state: a run started, its first task done, the approval open. */
function shared(): Clone {
  const c = new Clone({}, keys[0]);
  c.commit(start(PINNED, { inputs: {}, mode: 'live' }, person('ann@example.com'), ctx('2026-12-01T09:00:00.000Z'), RUN), '2026-12-01T09:00:00.000Z');
  c.decide('fin@example.com', 'prepare', { decision: 'completed', output: { purpose: 'Lunch' } }, '2026-12-01T09:01:00.000Z');
  return c;
}

/** Both ways round, the same bytes; each merged chain verifies, signatures and vouched replays included. */
function merged(base: Clone, a: Clone, b: Clone): RunFiles {
  const ab = mergeRun(base.files, a.files, b.files, worldFor);
  const ba = mergeRun(base.files, b.files, a.files, worldFor);
  expect(ab.files).toEqual(ba.files);
  const files = ab.files!;
  const chain = verifyChain(files['audit.jsonl']!);
  expect(chain.breaks).toEqual([]);
  const branches = parseSuperseded(files['superseded.jsonl'] ?? '').branches;
  expect(supersededBreaks(branches, chain.events)).toEqual([]);
  const ring = keyRing(keys.map((k) => ({ file: `audit/keys/${k.fingerprint}.json`, value: k.record('h', '2026-01-01T00:00:00.000Z') })));
  const vouched = vouchedLines(chain.events, branches);
  const lines = chain.events.map((e, i) => ({ content: contentHash(e), ts: e.ts, signer: e.signer, sig: e.sig, vouched: vouched.has(i) }));
  expect(signatureBreaks(lines, ring, trustedKeys(ring, []), false)).toEqual([]);
  return files;
}

const stateOf = (files: RunFiles) => new Clone({ ...files }, keys[0]).state().state;

describe('the replay of a merge', () => {
  it('a cancel on one clone and the approval on the other both apply: the approval is kept, the cancel replayed on top', () => {
    const base = shared();
    const a = base.clone(keys[0]);
    a.run(person('cat@example.com', true), { tool: 'cancel', reason: 'Not this quarter' }, '2026-12-01T09:02:00.000Z');
    const b = base.clone(keys[1]);
    b.decide('cat@example.com', 'approve', { decision: 'approved' }, '2026-12-01T09:03:00.000Z');
    const files = merged(base, a, b);
    const st = stateOf(files);
    expect(st.run.state).toBe('cancelled');
    expect(st.run.ended?.note).toBe('Not this quarter');
    expect(st.steps.approve!.current?.decision).toBe('approved');
    const events = verifyChain(files['audit.jsonl']!).events;
    const cancel = events.find((e) => e.action === 'run.cancelled')!;
    expect(cancel.actor).toBe('cat@example.com');
    expect(cancel.sig).toBeUndefined();
    const original = a.events().find((e) => e.action === 'run.cancelled')!;
    expect(cancel.input.replayOf).toBe(original.hash);
    const [branch] = parseSuperseded(files['superseded.jsonl']!).branches;
    expect(branch!.outcomes!.find((o) => o.line === original.hash)).toEqual({ line: original.hash, replayed: cancel.hash });
  });

  it("a decision on an item the other side already decided is refused, with the engine's reason", () => {
    const base = shared();
    const a = base.clone(keys[0]);
    a.decide('cat@example.com', 'approve', { decision: 'approved' }, '2026-12-01T09:02:00.000Z');
    const b = base.clone(keys[1]);
    b.decide('fin@example.com', 'approve', { decision: 'approved', note: 'fine by me' }, '2026-12-01T09:03:00.000Z');
    const files = merged(base, a, b);
    const [branch] = parseSuperseded(files['superseded.jsonl']!).branches;
    const kept = stateOf(files).steps.approve!.current!.by;
    const lost = branch!.lines.find((l) => l.action === 'step.completed')!;
    expect(lost.actor).not.toBe(kept);
    expect(branch!.outcomes!.find((o) => o.line === lost.hash)).toEqual({ line: lost.hash, reason: 'this work item was already decided (already_decided)' });
    // The server lines of the side set aside are derived again where they still apply, never copied.
    for (const l of branch!.lines.filter((x) => x.actor === 'server'))
      expect(branch!.outcomes!.find((o) => o.line === l.hash)).toEqual({ line: l.hash, reason: 'a server line: the engine derives it again where it still applies' });
  });

  it('an event held on one clone and a task done on the other both apply, whichever way round', () => {
    const base = shared();
    base.decide('cat@example.com', 'approve', { decision: 'approved' }, '2026-12-01T09:02:00.000Z');
    const a = base.clone(keys[0]);
    a.decide('ann@example.com', 'pay', { decision: 'completed', output: { paid: true } }, '2026-12-01T09:03:00.000Z');
    const b = base.clone(keys[1]);
    b.run(person('cat@example.com', true), { tool: 'send_event', name: 'nudge', data: { by: 'phone' } }, '2026-12-01T09:04:00.000Z');
    const files = merged(base, a, b);
    const st = stateOf(files);
    expect(st.steps.pay!.current?.output).toEqual({ paid: true });
    expect(st.run.state).toBe('ended');
    // The side that ended the run is the one replayed: the event, held on the side kept, came first (an end drops held events).
    const lines = verifyChain(files['audit.jsonl']!)
      .events.slice(base.events().length)
      .map((e) => [e.action, e.actor, e.sig === undefined ? 'replayed' : 'signed']);
    expect(lines).toEqual([
      ['event.held', 'cat@example.com', 'signed'],
      ['step.completed', 'ann@example.com', 'replayed'],
      ['run.ended', 'server', 'replayed'],
    ]);
    const [branch] = parseSuperseded(files['superseded.jsonl']!).branches;
    expect(branch!.outcomes!.map((o) => ('replayed' in o ? 'replayed' : 'held' in o ? 'held' : o.reason))).toEqual(['replayed', 'a server line: the engine derives it again where it still applies']);
  });

  it('a cancel of a run the other side cancelled too holds: already done there, not superseded', () => {
    const base = shared();
    const a = base.clone(keys[0]);
    a.run(person('cat@example.com', true), { tool: 'cancel', reason: 'Not this quarter' }, '2026-12-01T09:02:00.000Z');
    const b = base.clone(keys[1]);
    b.run(person('fin@example.com', true), { tool: 'cancel', reason: 'Duplicate' }, '2026-12-01T09:03:00.000Z');
    const files = merged(base, a, b);
    const events = verifyChain(files['audit.jsonl']!).events;
    const kept = events.filter((e) => e.action === 'run.cancelled');
    expect(kept).toHaveLength(1);
    const [branch] = parseSuperseded(files['superseded.jsonl']!).branches;
    const other = branch!.lines.find((l) => l.action === 'run.cancelled')!;
    expect(other.actor).not.toBe(kept[0]!.actor);
    expect(branch!.outcomes!.find((o) => o.line === other.hash)).toEqual({ line: other.hash, held: kept[0]!.hash });
    expect(stateOf(files).run.state).toBe('cancelled');
  });

  it('a decision made alike on both sides holds (same decision and note, whoever made it); one that differs is refused', () => {
    const base = shared();
    const a = base.clone(keys[0]);
    a.decide('cat@example.com', 'approve', { decision: 'rejected', note: 'Too much' }, '2026-12-01T09:02:00.000Z');
    const b = base.clone(keys[1]);
    b.decide('fin@example.com', 'approve', { decision: 'rejected', note: 'Too much' }, '2026-12-01T09:03:00.000Z');
    const files = merged(base, a, b);
    const keptLine = verifyChain(files['audit.jsonl']!).events.find((e) => e.action === 'step.rejected')!;
    const [branch] = parseSuperseded(files['superseded.jsonl']!).branches;
    const other = branch!.lines.find((l) => l.action === 'step.rejected')!;
    expect(other.actor).not.toBe(keptLine.actor);
    expect(branch!.outcomes!.find((o) => o.line === other.hash)).toEqual({ line: other.hash, held: keptLine.hash });

    const c = base.clone(keys[1]);
    c.decide('fin@example.com', 'approve', { decision: 'rejected', note: 'Ask Ann first' }, '2026-12-01T09:03:00.000Z');
    const differing = merged(base, a, c);
    const [set] = parseSuperseded(differing['superseded.jsonl']!).branches;
    const lost = set!.lines.find((l) => l.action === 'step.rejected')!;
    // A rejection with no step to return to ends the run, so the engine names the end first.
    expect(set!.outcomes!.find((o) => o.line === lost.hash)).toEqual({ line: lost.hash, reason: 'the run has ended; nothing more can change it (run_ended)' });
  });

  it("a decision on an item both sides opened for one step after the fork, on the same data, decides the kept side's item; on other data, or data another made, it is refused", () => {
    const began = new Clone({}, keys[0]);
    began.commit(start(PINNED, { inputs: {}, mode: 'live' }, person('ann@example.com'), ctx('2026-12-01T09:00:00.000Z'), RUN), '2026-12-01T09:00:00.000Z');
    for (const [purpose, who] of [
      ['Lunch', 'fin@example.com'],
      ['Dinner', 'fin@example.com'],
      ['Lunch', 'ann@example.com'],
    ] as const) {
      // Fin does the first task on both clones; on B, Cat then turns the spend down, which ends the run there, so A's side is kept.
      const a = began.clone(keys[0]);
      a.decide('fin@example.com', 'prepare', { decision: 'completed', output: { purpose: 'Lunch' } }, '2026-12-01T09:01:00.000Z');
      const b = began.clone(keys[1]);
      b.decide(who, 'prepare', { decision: 'completed', output: { purpose } }, '2026-12-01T09:02:00.000Z');
      b.decide('cat@example.com', 'approve', { decision: 'failed', note: 'No budget' }, '2026-12-01T09:03:00.000Z');
      expect(b.state().state.steps.approve!.decided).not.toContain(a.state().state.steps.approve!.workItem);
      const files = merged(began, a, b);
      const st = stateOf(files);
      const [branch] = parseSuperseded(files['superseded.jsonl']!).branches;
      const turnedDown = branch!.lines.find((l) => l.action === 'step.failed')!;
      const outcome = branch!.outcomes!.find((o) => o.line === turnedDown.hash);
      if (purpose === 'Lunch' && who === 'fin@example.com') {
        expect(st.run.state).toBe('ended');
        expect(st.steps.approve!.current).toMatchObject({ decision: 'failed', note: 'No budget', by: 'cat@example.com' });
        expect(outcome).toEqual({ line: turnedDown.hash, replayed: expect.any(String) });
      } else {
        // What Cat turned down was a dinner, or a lunch Ann asked for; the kept side asks about Fin's lunch.
        expect(st.run.state).toBe('waiting');
        expect(st.steps.approve!.workItem).toBe(a.state().state.steps.approve!.workItem);
        expect(outcome).toEqual({ line: turnedDown.hash, reason: expect.stringMatching(/^no work item w-/) });
      }
    }
  });

  it('an act an earlier merge refused is tried again once what refused it is set aside in turn', () => {
    const base = shared();
    const a = base.clone(keys[0]);
    a.run(person('cat@example.com', true), { tool: 'cancel', reason: 'Not this quarter' }, '2026-12-01T09:02:00.000Z');
    const b = base.clone(keys[1]);
    b.decide('fin@example.com', 'approve', { decision: 'failed', note: 'No budget' }, '2026-12-01T09:03:00.000Z');
    // First a and b: both ended the run; b's longer chain is kept and a's cancel refused.
    const ab = merged(base, a, b);
    const cancel = a.events().find((e) => e.action === 'run.cancelled')!;
    const outcomeOf = (files: RunFiles, line: string) =>
      parseSuperseded(files['superseded.jsonl']!)
        .branches.flatMap((x) => x.outcomes ?? [])
        .find((o) => o.line === line);
    expect(outcomeOf(ab, cancel.hash)).toEqual({ line: cancel.hash, reason: 'the run has ended; nothing more can change it (run_ended)' });
    // Then a third clone approved meanwhile: its side, which did not end the run, is kept, so b's failure is refused
    // (the item is decided) and the cancel that b's failure had refused now applies.
    const c = base.clone(keys[0]);
    c.decide('cat@example.com', 'approve', { decision: 'approved' }, '2026-12-01T09:04:00.000Z');
    const abc = merged(base, new Clone({ ...ab }, keys[0]), c);
    const st = stateOf(abc);
    expect(st.run.state).toBe('cancelled');
    expect(st.steps.approve!.current?.decision).toBe('approved');
    const replayedCancel = verifyChain(abc['audit.jsonl']!).events.find((e) => e.action === 'run.cancelled')!;
    expect(replayedCancel.input.replayOf).toBe(cancel.hash);
    expect(outcomeOf(abc, cancel.hash)).toEqual({ line: cancel.hash, replayed: replayedCancel.hash });
    const failed = b.events().find((e) => e.action === 'step.failed')!;
    expect(outcomeOf(abc, failed.hash)).toEqual({ line: failed.hash, reason: 'this work item was already decided (already_decided)' });
  });

  it('an act already applied by an earlier merge is not applied twice (a criss-cross)', () => {
    const base = shared();
    const a = base.clone(keys[0]);
    a.run(person('cat@example.com', true), { tool: 'cancel', reason: 'No' }, '2026-12-01T09:02:00.000Z');
    const b = base.clone(keys[1]);
    b.decide('cat@example.com', 'approve', { decision: 'approved' }, '2026-12-01T09:03:00.000Z');
    const m = new Clone({ ...mergeRun(base.files, a.files, b.files, worldFor).files! }, keys[0]);
    // a merges again with its own old head: nothing new, nothing twice.
    const again = mergeRun(a.files, m.files, a.files, worldFor).files!;
    expect(verifyChain(again['audit.jsonl']!).events.filter((e) => e.action === 'run.cancelled')).toHaveLength(1);
  });
});

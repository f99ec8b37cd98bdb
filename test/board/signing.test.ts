/**
 * Signed audit lines (issue 13, item 3): a history rewritten and re-hashed by
 * someone without the coordinator's key is caught by `audit verify`; pinning
 * a key from outside catches a forger who put a key of their own on record;
 * a rotation signed by the old key carries the trust over, and the old key
 * may sign nothing after it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sealEvent, type AuditEvent, type ChainHead } from '../../src/board/audit.js';
import { HOST } from '../../src/board/fsutil.js';
import { newPrivateKeyPem, signerFrom, type Signer } from '../../src/board/signing.js';
import { verifyBoard } from '../../src/board/verify.js';
import { sha256Hex } from '../../src/core/hash.js';
import { CAST, cleanupHarnesses, CLAIM_REVIEW_SUBMISSION, Harness, rid, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = { groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] };

/** A run taken through claim, submit and approval, and its chain's path. */
async function finishedRun(h: Harness): Promise<{ runId: string; chain: string }> {
  const v = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
  const claim = await h.claim(v.run.id, 'check', CAST.agent);
  const done = await h.ok('submit', { token: claim.token, requestId: rid(), ...CLAIM_REVIEW_SUBMISSION }, CAST.agent);
  await h.decide(done, 'approve', 'approved', CAST.fin);
  return { runId: v.run.id, chain: path.join(h.root, 'runs', v.run.id, 'audit.jsonl') };
}

async function readChain(file: string): Promise<AuditEvent[]> {
  return (await fs.readFile(file, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEvent);
}

/** Re-seal every line from `from` (0-based) on, so every hash and link verifies; signed only when a signer is given. */
async function reseal(file: string, events: AuditEvent[], from: number, signer?: Signer): Promise<void> {
  const prev = events[from - 1];
  let head: ChainHead | null = prev ? { seq: prev.seq, hash: prev.hash, ts: prev.ts } : null;
  for (let i = from; i < events.length; i++) {
    const sealed = sealEvent(events[i]!, head, events[i]!.ts, signer);
    events[i] = sealed;
    head = { seq: sealed.seq, hash: sealed.hash, ts: sealed.ts };
  }
  await fs.writeFile(file, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

const reasons = async (h: Harness, pins: string[] = []) => (await verifyBoard(h.board, { pins })).chains.flatMap((c) => c.breaks.map((b) => b.reason));

describe('a rewritten history, re-hashed without the key', () => {
  const forgeries: [string, (h: Harness, runId: string, events: AuditEvent[]) => Promise<number>][] = [
    [
      'the claimer changed',
      async (_h, _r, events) => {
        const i = events.findIndex((e) => e.action === 'step.claimed');
        events[i]!.actor = CAST.rival;
        return i;
      },
    ],
    [
      'the approval deleted and the rest renumbered',
      async (_h, _r, events) => {
        const i = events.findIndex((e) => e.action === 'step.completed' && e.actor === CAST.fin);
        expect(i).toBeGreaterThan(0);
        events.splice(i, 1);
        return i;
      },
    ],
    [
      'a forged event appended',
      async (_h, runId, events) => {
        const last = events[events.length - 1]!;
        events.push({ ...last, action: 'run.cancelled', actor: CAST.operator, entity: `run:${runId}`, input: { fromRev: 0, toRev: 0 } });
        return events.length - 1;
      },
    ],
    [
      "a step's output changed with its recorded sha256",
      async (h, runId, events) => {
        const file = path.join(h.root, 'runs', runId, 'check.md');
        const forged = (await fs.readFile(file, 'utf8')).replace('risk: low', 'risk: high');
        await fs.writeFile(file, forged);
        const rel = `runs/${runId}/check.md`;
        const i = events.findLastIndex((e) => e.input.files?.[rel] !== undefined);
        events[i]!.input.files![rel]!.sha256 = sha256Hex(forged);
        return i;
      },
    ],
  ];

  for (const [what, edit] of forgeries) {
    it(`is caught: ${what}`, async () => {
      const h = await Harness.open(SPEC);
      const { runId, chain } = await finishedRun(h);
      expect(await reasons(h)).toEqual([]);
      const events = await readChain(chain);
      const from = await edit(h, runId, events);
      await reseal(chain, events, from);
      const found = await reasons(h);
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((r) => r.includes('unsigned line after signed ones') || r.includes('bad signature'))).toBe(true);
    });
  }

  it('is caught when the signatures are kept but no longer match (a field changed, the hash recomputed)', async () => {
    const h = await Harness.open(SPEC);
    const { chain } = await finishedRun(h);
    const events = await readChain(chain);
    const i = events.findIndex((e) => e.action === 'step.claimed');
    const { sig } = events[i]!;
    events[i]!.actor = CAST.rival;
    await reseal(chain, events, i, { fingerprint: events[i]!.signer!, sign: () => sig! });
    expect(await reasons(h)).toContain(`bad signature by key ${events[i]!.signer}: the line was changed after it was signed`);
  });
});

describe('pinned keys', () => {
  it("a forger's own key on record passes only until the auditor pins the board's key", async () => {
    const h = await Harness.open(SPEC);
    const { chain } = await finishedRun(h);
    const real = await h.board.store.signingFingerprint();
    const mallory = signerFrom(newPrivateKeyPem());
    await h.board.store.publishKey(mallory.record('elsewhere', new Date().toISOString()));
    const events = await readChain(chain);
    const i = events.findIndex((e) => e.action === 'step.claimed');
    events[i]!.actor = CAST.rival;
    await reseal(chain, events, i, mallory);
    const loose = await verifyBoard(h.board);
    expect(loose.keys.map((k) => k.fingerprint).sort()).toEqual([real, mallory.fingerprint].sort());
    const pinned = await reasons(h, [real]);
    expect(pinned).toContain(`signed by key ${mallory.fingerprint}, which is not a pinned key or rotated from one`);
    expect(await reasons(h, ['0'.repeat(32)])).toContain(`the pinned key ${'0'.repeat(32)} is not on record on this board`);
  });

  it('with a pinned key every line must be signed; without, unsigned lines may only precede signed ones', async () => {
    const h = await Harness.open(SPEC);
    const { chain } = await finishedRun(h);
    const real = await h.board.store.signingFingerprint();
    expect(await reasons(h, [real])).toEqual([]);
    // A board from before signing: its chains hold unsigned lines, then signed ones.
    const events = await readChain(chain);
    await reseal(chain, events, 0);
    const legacy = await verifyBoard(h.board);
    expect(legacy.ok).toBe(true);
    expect(legacy.unsigned).toBe(events.length);
    expect(await reasons(h, [real])).toContain('unsigned line, and keys are pinned');
  });
});

describe('rotation', () => {
  it('a rotation signed by the old key carries a pin over; the old key may sign nothing after it', async () => {
    const h = await Harness.open(SPEC);
    await finishedRun(h);
    const before = await h.board.store.signingFingerprint();
    const retired = signerFrom(await fs.readFile(path.join(h.root, '.work/audit-key.pem'), 'utf8'));
    const { from, to } = await h.board.store.rotateKey();
    expect(from).toBe(before);
    expect(await h.board.store.signingFingerprint()).toBe(to);
    const { chain } = await finishedRun(h);
    const report = await verifyBoard(h.board, { pins: [before] });
    expect(report.chains.flatMap((c) => c.breaks)).toEqual([]);
    expect(report.keys.find((k) => k.fingerprint === to)).toMatchObject({ rotates: before, trusted: true, host: HOST });
    expect((await readChain(chain)).every((e) => e.signer === to)).toBe(true);
    // The retired key signing a later line (a copy of it kept or stolen) is refused.
    const events = await readChain(chain);
    await reseal(chain, events, events.length - 1, retired);
    const rotatedAt = report.keys.find((k) => k.fingerprint === to)!.createdAt;
    expect(await reasons(h, [before])).toEqual([`signed by key ${before} after it was rotated out at ${rotatedAt}`]);
  });

  it('a key record claiming to rotate a key without its signature is not trusted', async () => {
    const h = await Harness.open(SPEC);
    await finishedRun(h);
    const real = await h.board.store.signingFingerprint();
    const mallory = signerFrom(newPrivateKeyPem());
    const rec = { ...mallory.record('elsewhere', new Date().toISOString()), rotates: real, rotationSig: 'AAAA' };
    await h.board.store.publishKey(rec);
    expect(await reasons(h, [real])).toContain(`claims to rotate key ${real} without that key's valid signature`);
  });
});

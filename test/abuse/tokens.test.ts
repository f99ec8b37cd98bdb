/**
 * Claim tokens under attack (spec §6 rule 2, §4.3; tool contracts claim,
 * renew, submit, escalate): a token that does not verify at all is `invalid`
 * on any tool that takes one; a genuine token whose lease ended or whose
 * claim was replaced is `stale`; a genuine token of a run that ended is
 * `conflict` with `run_ended`, checked before anything else (spec "Ending").
 *
 * Plus the upload, evidence and run-data cases that test/service/uploads and
 * test/service/limits do not already cover.
 */
import { cpSync, promises as fs, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { Service } from '../../src/service/service.js';
import { CAST, cleanupHarnesses, Harness, rid, sha256, states, type BoardSpec } from '../support/svc-harness.js';
import { flipBit, tokenClaims, tokenParts, tree, withClaims } from './abuse-support.js';

const PAIR = `---
name: pair
description: Two agents work side by side on the two halves of a job, then one of them wraps it up.
steps:
  - id: split
    parallel: [left, right]
    next: wrap
  - id: left
    agent: Do the left half of the job.
    output: { l: string }
    next: join
  - id: right
    agent: Do the right half of the job.
    output: { r: string }
    next: join
  - id: wrap
    agent: Wrap the job up.
    output: { w: string }
    next: done
  - id: done
    finish: done
---
Our own process for the token tests: two agent steps claimable at once.
`;

let pairDir: string;
const extraDirs: string[] = [];

beforeAll(async () => {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'wb-abuse-tok-'));
  extraDirs.push(base);
  pairDir = path.join(base, 'pair');
  await fs.mkdir(pairDir);
  await fs.writeFile(path.join(pairDir, 'PROCESS.md'), PAIR);
});
afterAll(async () => {
  await cleanupHarnesses();
  for (const d of extraDirs) rmSync(d, { recursive: true, force: true });
});

const LEASE = 60;
const spec = (extra: BoardSpec = {}): BoardSpec => ({ leaseSeconds: LEASE, processes: [{ folder: pairDir }], ...extra });

/** A pair run with both halves claimed by the agent. */
async function pairClaimed(h: Harness) {
  const v = await h.start('pair', {}, CAST.ann);
  const left = await h.claim(v.run.id, 'left');
  const right = await h.claim(v.run.id, 'right');
  return { runId: v.run.id as string, left: left.token as string, right: right.token as string };
}

const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code);

describe('a token names one claim: the step, the run and the board it was issued for', () => {
  it('a genuine token acts only on its own step: the other step’s output is not_accepted, the other step untouched; once its step is done the token is stale', async () => {
    const h = await Harness.open(spec());
    const { runId, left, right } = await pairClaimed(h);
    const before = await h.snapshot();
    // The left token with the right step's work: judged against the left step, never applied to right.
    const wrong = await h.fail('submit', { token: left, output: { r: 'right half' }, summary: 'Did the right half.' }, CAST.agent);
    expect(wrong.code).toBe('not_accepted');
    expect(wrong.issues).toEqual(expect.arrayContaining([expect.stringMatching(/^output\.r\b/), expect.stringMatching(/^output\.l\b/)]));
    expect(await h.snapshot()).toEqual(before);
    // The left token completes left only; right stays claimed and its token stays good.
    const done = await h.ok('submit', { token: left, output: { l: 'left half' }, summary: 'Did the left half.' }, CAST.agent);
    expect(states(done)).toMatchObject({ left: 'done', right: 'claimed' });
    expect(done.data.steps.left.output).toEqual({ l: 'left half' });
    expect(done.data.steps.right?.output ?? null).toBeNull();
    // The left claim ended with its submission: its token is stale for every tool, and moves nothing.
    const after = await h.snapshot();
    for (const [tool, args] of [
      ['submit', { output: { l: 'again' }, summary: 'Again.' }],
      ['submit', { output: { r: 'right half' }, summary: 'The right half.' }],
      ['renew', {}],
      ['escalate', { note: 'Stuck.' }],
    ] as const) {
      expect((await h.fail(tool, { token: left, ...args }, CAST.agent)).code, tool).toBe('stale');
    }
    expect(await h.snapshot()).toEqual(after);
    const r = await h.ok('renew', { token: right }, CAST.agent);
    expect(typeof r.token).toBe('string');
    expect(states(await h.view(runId))).toMatchObject({ left: 'done', right: 'claimed' });
  });

  it('a token rewritten or spliced to name another step of the same run does not verify: invalid, nothing changes', async () => {
    const h = await Harness.open(spec());
    const { runId, left, right } = await pairClaimed(h);
    const before = await h.snapshot();
    const forged = [
      withClaims(left, { ...tokenClaims(left), s: 'right' }), // left's signature over a body naming right
      withClaims(left, tokenClaims(right)), // right's claims re-encoded (JSON spelled our way) under left's signature
      `${tokenParts(right).body}.${tokenParts(left).sig}`, // right's body, left's signature
      `${tokenParts(left).body}.${tokenParts(right).sig}`,
      withClaims(left, { ...tokenClaims(left), e: '2999-01-01T00:00:00.000Z' }), // a later expiry
      withClaims(left, { ...tokenClaims(left), s: '../../../WORK' }),
    ];
    for (const token of forged) {
      for (const [tool, args] of [
        ['submit', { output: { r: 'x' }, summary: 'x' }],
        ['renew', { progress: 'half done' }],
        ['escalate', { note: 'Stuck.' }],
      ] as const) {
        expect((await h.fail(tool, { token, ...args }, CAST.agent)).code, `${tool} ${token}`).toBe('invalid');
      }
    }
    expect(await h.snapshot()).toEqual(before);
    // Both genuine claims still stand.
    expect(states(await h.view(runId))).toMatchObject({ left: 'claimed', right: 'claimed' });
    expect((await h.ok('renew', { token: left }, CAST.agent)).token).toEqual(expect.any(String));
    expect((await h.ok('renew', { token: right }, CAST.agent)).token).toEqual(expect.any(String));
  });

  it('a token of another run: rewritten or spliced it is invalid; the genuine one never touches the other run; once its own run is cancelled it is conflict run_ended', async () => {
    const h = await Harness.open(spec());
    const a = await pairClaimed(h);
    const b = await pairClaimed(h);
    const bFiles = async () => Object.fromEntries(Object.entries(await h.snapshot()).filter(([k]) => k.startsWith(`runs/${b.runId}/`)));
    const bBefore = await bFiles();
    for (const token of [
      withClaims(a.left, { ...tokenClaims(a.left), r: b.runId }),
      withClaims(a.left, { ...tokenClaims(b.left) }),
      `${tokenParts(b.left).body}.${tokenParts(a.left).sig}`,
      withClaims(a.left, { ...tokenClaims(a.left), r: 'r-../../../../etc' }),
    ]) {
      expect((await h.fail('submit', { token, output: { l: 'x' }, summary: 'x' }, CAST.agent)).code).toBe('invalid');
      expect((await h.fail('renew', { token }, CAST.agent)).code).toBe('invalid');
    }
    // The genuine token of run a completes a's step only.
    await h.ok('submit', { token: a.left, output: { l: 'a left' }, summary: 'Did it.' }, CAST.agent);
    expect(await bFiles()).toEqual(bBefore);
    expect(states(await h.view(b.runId))).toMatchObject({ left: 'claimed', right: 'claimed' });
    // Run a is cancelled: its remaining token is refused with run_ended, for every tool, before anything else.
    await h.ok('cancel', { runId: a.runId, reason: 'Not needed any more.' }, CAST.operator);
    for (const [tool, args] of [
      ['submit', { output: { r: 'x' }, summary: 'x' }],
      ['submit', { output: {}, summary: '' }], // would be not_accepted on a live run
      ['renew', {}],
      ['escalate', { note: 'Stuck.' }],
    ] as const) {
      const e = await h.fail(tool, { token: a.right, ...args }, CAST.agent);
      expect(e, tool).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
    }
    expect(await bFiles()).toEqual(bBefore);
  });

  it('a token of a byte-identical copy of the board, whose secret differs, is invalid there and changes nothing', async () => {
    const h = await Harness.open(spec());
    const { runId, left } = await pairClaimed(h);
    const copyBase = await fs.mkdtemp(path.join(os.tmpdir(), 'wb-abuse-tok-copy-'));
    extraDirs.push(copyBase);
    const copy = path.join(copyBase, 'board');
    cpSync(h.root, copy, { recursive: true });
    // Same runs, same leases; only the token secret is new (and no stale lock or cache comes along).
    for (const f of ['.work/secret', '.work/locks', '.work/index']) rmSync(path.join(copy, f), { recursive: true, force: true });
    const other = await Service.open(await Board.open(copy), { now: () => h.now });
    const before = await tree(copy);
    const agent = h.as(CAST.agent);
    for (const [tool, args] of [
      ['renew', {}],
      ['submit', { output: { l: 'x' }, summary: 'x' }],
      ['escalate', { note: 'Stuck.' }],
    ] as const) {
      const r = await other.call(tool, { token: left, ...args, requestId: rid() }, agent);
      expect(code(r), tool).toBe('invalid');
    }
    expect(await tree(copy)).toEqual(before);
    // On its own board the token is good.
    expect((await h.ok('renew', { token: left }, CAST.agent)).token).toEqual(expect.any(String));
    expect(states(await h.view(runId))).toMatchObject({ left: 'claimed' });
  });
});

describe('expired and replaced claims', () => {
  it('until the lease ends the token renews; from expiresAt on it is stale for renew, submit and escalate, and stays stale after another agent claims', async () => {
    const h = await Harness.open(spec());
    const v = await h.start('pair', {}, CAST.ann);
    const c = await h.claim(v.run.id, 'left');
    const expires = Date.parse(c.expiresAt);
    expect(expires - h.clock).toBe(LEASE * 1000);
    // 1 ms before the end the claim is current: renew gives a new token and expiry.
    h.setTime(new Date(expires - 1).toISOString());
    const renewed = await h.ok('renew', { token: c.token }, CAST.agent);
    const end = Date.parse(renewed.expiresAt);
    expect(end).toBe(expires - 1 + LEASE * 1000);
    // The lease ended: stale everywhere, and nothing committed moves.
    for (const offset of [0, 1, 3_600_000]) {
      h.setTime(new Date(end + offset).toISOString());
      const before = await h.snapshot();
      for (const [tool, args] of [
        ['renew', {}],
        ['submit', { output: { l: 'late' }, summary: 'Late.' }],
        ['escalate', { note: 'Late.' }],
      ] as const) {
        expect((await h.fail(tool, { token: renewed.token, ...args }, CAST.agent)).code, `${tool} at +${offset}ms`).toBe('stale');
      }
      expect(await h.snapshot()).toEqual(before);
    }
    // Another agent takes the step; the expired token still cannot touch the new claim.
    const again = await h.claim(v.run.id, 'left', CAST.rival);
    expect((await h.fail('submit', { token: renewed.token, output: { l: 'mine' }, summary: 'Mine.' }, CAST.agent)).code).toBe('stale');
    expect((await h.fail('renew', { token: c.token }, CAST.agent)).code).toBe('stale');
    const s = await h.ok('submit', { token: again.token, output: { l: 'rival' }, summary: 'Done by the rival.' }, CAST.rival);
    expect(s.data.steps.left).toMatchObject({ output: { l: 'rival' }, by: CAST.rival });
  });
});

describe('altered tokens', () => {
  it('every single-bit flip of every character of the signed body is invalid; the genuine token still works after all of them', async () => {
    const h = await Harness.open(spec());
    const { left } = await pairClaimed(h);
    const { body } = tokenParts(left);
    const before = await h.snapshot();
    const seen: Record<string, number> = {};
    for (let i = 0; i < body.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const bad = flipBit(left, i, bit);
        // An unacceptable output: a token that verified would answer not_accepted, not invalid.
        const r = await h.call('submit', { token: bad, output: {}, summary: 'x', requestId: rid() }, CAST.agent);
        seen[code(r)] = (seen[code(r)] ?? 0) + 1;
        expect(code(r), `bit ${bit} of char ${i}`).toBe('invalid');
      }
    }
    expect(seen).toEqual({ invalid: body.length * 8 });
    expect(await h.snapshot()).toEqual(before);
    expect((await h.ok('renew', { token: left }, CAST.agent)).token).toEqual(expect.any(String));
  });

  it('every truncation of a token is invalid', async () => {
    const h = await Harness.open(spec());
    const { left } = await pairClaimed(h);
    for (let n = 0; n < left.length; n++) {
      const r = await h.call('renew', { token: left.slice(0, n), requestId: rid() }, CAST.agent);
      expect(code(r), `first ${n} characters`).toBe('invalid');
      const tail = await h.call('renew', { token: left.slice(n + 1), requestId: rid() }, CAST.agent);
      expect(code(tail), `without the first ${n + 1} characters`).toBe('invalid');
    }
    expect((await h.ok('renew', { token: left }, CAST.agent)).token).toEqual(expect.any(String));
  });

  /**
   * BUG (src/service/tokens.ts, TokenKey.verify): the signature is decoded with
   * Buffer.from(sig, 'base64url'), which skips characters outside the alphabet,
   * accepts '=' padding and ignores the unused low bits of the last character.
   * So a token whose signature was altered (one bit of its last character, a
   * stray character, padding) still verifies and acts as the original.
   */
  it('a token whose signature was altered is invalid, even when the alteration decodes to the same bytes (single-bit flips, padding, a stray character)', async () => {
    const h = await Harness.open(spec());
    const { left } = await pairClaimed(h);
    const { body, sig } = tokenParts(left);
    const variants: { what: string; token: string }[] = [];
    for (let i = 0; i < sig.length; i++) {
      for (let bit = 0; bit < 8; bit++) variants.push({ what: `bit ${bit} of signature char ${i}`, token: flipBit(left, body.length + 1 + i, bit) });
    }
    variants.push({ what: "'=' padding", token: `${left}=` });
    variants.push({ what: 'a stray "!" inside the signature', token: `${body}.${sig.slice(0, 10)}!${sig.slice(10)}` });
    variants.push({ what: 'a stray "*" at the end', token: `${left}*` });
    const verified: string[] = [];
    for (const v of variants) {
      // An unacceptable output: an altered token that verifies answers not_accepted instead of invalid.
      const r = await h.call('submit', { token: v.token, output: {}, summary: 'x', requestId: rid() }, CAST.agent);
      if (code(r) !== 'invalid') verified.push(`${v.what} → ${code(r)}`);
    }
    expect(verified).toEqual([]);
  });
});

describe('uploads and file evidence: what test/service/uploads.test.ts does not cover', () => {
  const LIMIT = 64;
  const upSpec: BoardSpec = { maxUploadBytes: LIMIT, groups: { clerks: [CAST.cat] }, processes: [{ folder: 'receipt-filing', roles: { clerks: 'clerks' } }] };

  async function scanClaimed(h: Harness) {
    const v = await h.start('receipt-filing', {}, CAST.ann);
    const c = await h.claim(v.run.id, 'scan');
    return { runId: v.run.id as string, token: c.token as string };
  }

  it('an upload over maxUploadBytes stores nothing: no file, no audit line, the board byte-identical', async () => {
    const h = await Harness.open(upSpec);
    const before = await h.snapshot();
    for (const n of [LIMIT + 1, LIMIT + 3, 4 * LIMIT]) {
      const e = await h.fail('upload', { fileName: 'big.pdf', contentType: 'application/pdf', contentBase64: Buffer.alloc(n, 1).toString('base64') }, CAST.agent);
      expect(e.code).toBe('invalid');
    }
    expect(await h.snapshot()).toEqual(before);
  });

  /**
   * BUG (src/service/service.ts, Service.checkFile): the hash an upload is checked
   * against is read back from files/<id>/meta.json, a plain committed file. Rewrite
   * the content and meta.json's sha256 together and the changed bytes pass as
   * verified evidence, although the id itself (f-<first 32 hex of the sha256>)
   * and the audit chain's file.uploaded event still record the hash at upload (§5).
   */
  it('file evidence whose bytes were changed after upload is not_accepted naming the ref, even when meta.json was changed to match', async () => {
    const h = await Harness.open(upSpec);
    const { runId, token } = await scanClaimed(h);
    const up = await h.upload('receipt #7: 12.50 EUR');
    const dir = path.join(h.root, 'files', up.id);
    await fs.writeFile(path.join(dir, 'content'), 'receipt #7: 99.50 EUR');
    const meta = JSON.parse(await fs.readFile(path.join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>;
    await fs.writeFile(path.join(dir, 'meta.json'), `${JSON.stringify({ ...meta, sha256: sha256('receipt #7: 99.50 EUR') }, null, 2)}\n`);
    const r = await h.call('submit', { token, output: { amount: 12.5 }, evidence: [{ kind: 'file', ref: up.id }], summary: 'Scanned.', requestId: rid() }, CAST.agent);
    expect(r.ok ? 'accepted' : r.error.code).toBe('not_accepted');
    if (!r.ok) expect(r.error.issues).toEqual([expect.stringMatching(new RegExp(`^evidence ${up.id}:`))]);
    expect(states(await h.view(runId))).toMatchObject({ scan: 'claimed' });
  });

  /**
   * BUG (src/service/service.ts, Service.checkFile): JSON.parse of meta.json is not
   * guarded, so evidence whose meta.json is damaged answers `retry` ("internal
   * error: Unexpected token ...") instead of not_accepted naming the ref. An agent
   * told `retry` resends the same call forever.
   */
  it('file evidence whose meta.json is damaged is not_accepted naming the ref, never retry', async () => {
    const h = await Harness.open(upSpec);
    const { runId, token } = await scanClaimed(h);
    const up = await h.upload('receipt #8');
    await fs.writeFile(path.join(h.root, 'files', up.id, 'meta.json'), '{"sha256": ');
    const before = await h.snapshot();
    const r = await h.call('submit', { token, output: { amount: 1 }, evidence: [{ kind: 'file', ref: up.id }], summary: 'Scanned.', requestId: rid() }, CAST.agent);
    expect(r.ok ? 'accepted' : r.error.code).toBe('not_accepted');
    if (!r.ok) expect(r.error.issues).toEqual([expect.stringMatching(new RegExp(`^evidence ${up.id}:`))]);
    expect(await h.snapshot()).toEqual(before);
    expect(states(await h.view(runId))).toMatchObject({ scan: 'claimed' });
  });

  it('file evidence whose content was deleted is not_accepted naming the ref; the claim stands and a good file then completes the step', async () => {
    const h = await Harness.open(upSpec);
    const { runId, token } = await scanClaimed(h);
    const up = await h.upload('receipt #9');
    await fs.rm(path.join(h.root, 'files', up.id, 'content'));
    const before = await h.snapshot();
    const e = await h.fail('submit', { token, output: { amount: 1 }, evidence: [{ kind: 'file', ref: up.id }], summary: 'Scanned.' }, CAST.agent);
    expect(e.code).toBe('not_accepted');
    expect(e.issues).toEqual([expect.stringMatching(new RegExp(`^evidence ${up.id}:`))]);
    expect(await h.snapshot()).toEqual(before);
    const good = await h.upload('receipt #9, again');
    const s = await h.ok('submit', { token, output: { amount: 1 }, evidence: [{ kind: 'file', ref: good.id }], summary: 'Scanned.' }, CAST.agent);
    expect(states(s)).toMatchObject({ scan: 'done' });
    expect(s.run.id).toBe(runId);
  });
});

describe('the run-data cap: what test/service/limits.test.ts does not cover', () => {
  const CAP = 4096;

  it('a small submission that pushes the accumulated run data over the cap is not_accepted; the claim stands and a smaller one passes', async () => {
    const h = await Harness.open(spec({ runDataBytes: CAP }));
    const { runId, left, right } = await pairClaimed(h);
    const big = 'l'.repeat(Math.floor(CAP * 0.6));
    await h.ok('submit', { token: left, output: { l: big }, summary: 'Left.' }, CAST.agent);
    // On its own this output is far under the cap; with the left half already in run data it is over.
    const before = await h.snapshot();
    const e = await h.fail('submit', { token: right, output: { r: 'r'.repeat(Math.floor(CAP * 0.6)) }, summary: 'Right.' }, CAST.agent);
    expect(e.code).toBe('not_accepted');
    expect(e.issues).toHaveLength(1);
    expect(await h.snapshot()).toEqual(before);
    expect(states(await h.view(runId))).toMatchObject({ left: 'done', right: 'claimed' });
    const ok = await h.ok('submit', { token: right, output: { r: 'short' }, summary: 'Right.' }, CAST.agent);
    expect(states(ok)).toMatchObject({ right: 'done', wrap: 'ready' });
  });

  it("a person's task output over the cap is not_accepted, as for submit; nothing changes and the work item stays open", async () => {
    const h = await Harness.open({ runDataBytes: CAP, groups: { desk: [CAST.ann] }, processes: [{ folder: 'desk-handover', roles: { desk: 'desk' } }] });
    const v = await h.start('desk-handover', { owner: CAST.bob }, CAST.ann);
    const view = await h.view(v.run.id, CAST.ann);
    const wi = h.item(view, 'prepare');
    const call = {
      runId: v.run.id,
      workItemId: wi.id,
      snapshot: wi.snapshot,
      decision: 'completed',
      evidence: [{ kind: 'link', ref: 'https://notes.example.com/1' }],
      next: 'sign_off',
      reason: 'The owner signs.',
    };
    const before = await h.snapshot();
    const e = await h.fail('decide', { ...call, output: { ref: 'x'.repeat(CAP + 1), pages: 2 } }, CAST.ann);
    expect(e.code).toBe('not_accepted');
    expect(e.issues).toHaveLength(1);
    expect(await h.snapshot()).toEqual(before);
    const ok = await h.ok('decide', { ...call, output: { ref: 'HN-1', pages: 2 } }, CAST.ann);
    expect(states(ok)).toMatchObject({ prepare: 'done', sign_off: 'waiting' });
  });
});

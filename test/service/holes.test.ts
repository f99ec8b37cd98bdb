/**
 * The holes an adversarial test found (issue 13), each shown through the
 * service on a real board: concurrent repeats of one start_run, claim tokens
 * used by another identity, leases counted from before a lock wait, folders
 * and deletions in place of board files, and faults that retrying cannot mend.
 * Each of these failed on commit 40fbad7.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOST } from '../../src/board/fsutil.js';
import { verifyBoard } from '../../src/board/verify.js';
import { CAST, cleanupHarnesses, CLAIM_REVIEW_SUBMISSION, Harness, rid, states, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { finance: [CAST.fin] },
  processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }, { folder: 'two-payments' }],
};
const INPUTS = { claimant: CAST.ann, amount: 10 };

async function runFolders(h: Harness): Promise<string[]> {
  return (await fs.readdir(path.join(h.root, 'runs'))).filter((n) => n.startsWith('r-'));
}

async function chainActions(h: Harness, runId: string): Promise<string[]> {
  const text = await fs.readFile(path.join(h.root, 'runs', runId, 'audit.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { action: string }).action);
}

describe('start_run repeated concurrently with one requestId', () => {
  it('eight concurrent calls create one run, and all eight answer with it', async () => {
    const h = await Harness.open(SPEC);
    const requestId = rid();
    const results = await Promise.all(Array.from({ length: 8 }, () => h.ok('start_run', { process: 'claim-review', inputs: INPUTS, requestId }, CAST.ann)));
    expect(await runFolders(h)).toHaveLength(1);
    for (const r of results) expect(r).toEqual(results[0]);
    expect((await verifyBoard(h.board)).ok).toBe(true);
  });

  it('a start whose caller died holding the request finishes that same run when repeated', async () => {
    const h = await Harness.open(SPEC);
    const requestId = rid();
    // What a start killed after taking its request lock leaves: the lock, naming the run it was creating.
    const intended = 'r-01jzzzzzzzzzzzzzzzzzzzzzzz';
    const { createHash } = await import('node:crypto');
    const lock = path.join(h.root, '.work/locks', `request-${createHash('sha256').update(requestId).digest('hex')}.lock`);
    await fs.mkdir(path.dirname(lock), { recursive: true });
    await fs.writeFile(lock, JSON.stringify({ host: HOST, pid: 2 ** 22 + 7, acquiredAt: new Date(h.clock).toISOString(), token: 'dead', intent: intended }));
    const v = await h.ok('start_run', { process: 'claim-review', inputs: INPUTS, requestId }, CAST.ann);
    expect(v.run.id).toBe(intended);
    expect(await runFolders(h)).toEqual([intended]);
    expect(await h.ok('start_run', { process: 'claim-review', inputs: INPUTS, requestId }, CAST.ann)).toEqual(v);
    await expect(fs.stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('a claim token is bound to the agent that claimed', () => {
  it('renew, submit and escalate with another identity are forbidden and change nothing; the claimant goes on', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const claim = await h.claim(v.run.id, 'check', CAST.agent);
    const before = await h.snapshot();
    for (const who of [CAST.rival, CAST.fin]) {
      const renewed = await h.fail('renew', { token: claim.token, requestId: rid() }, who);
      expect(renewed.code).toBe('forbidden');
      expect(renewed.message).toContain(`issued to agent ${CAST.agent}`);
      expect((await h.fail('submit', { token: claim.token, requestId: rid(), ...CLAIM_REVIEW_SUBMISSION }, who)).code).toBe('forbidden');
      expect((await h.fail('escalate', { token: claim.token, requestId: rid(), note: 'stuck' }, who)).code).toBe('forbidden');
    }
    expect(await h.snapshot()).toEqual(before);
    const done = await h.ok('submit', { token: claim.token, requestId: rid(), ...CLAIM_REVIEW_SUBMISSION }, CAST.agent);
    expect(states(done).check).toBe('done');
  });

  it('every renew is audited, with the new expiry and the progress note, and moves no run file', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const claim = await h.claim(v.run.id, 'check', CAST.agent);
    const runFile = await fs.readFile(path.join(h.root, 'runs', v.run.id, 'RUN.md'), 'utf8');
    h.advance('1m');
    const renewed = await h.ok('renew', { token: claim.token, requestId: rid(), progress: 'half way' }, CAST.agent);
    expect(await fs.readFile(path.join(h.root, 'runs', v.run.id, 'RUN.md'), 'utf8')).toBe(runFile);
    const lines = (await fs.readFile(path.join(h.root, 'runs', v.run.id, 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const last = lines[lines.length - 1];
    expect(last).toMatchObject({ action: 'step.renewed', actor: CAST.agent, entity: `${v.run.id}/check`, input: { changes: { expiresAt: renewed.expiresAt, progress: 'half way' } } });
    expect((await verifyBoard(h.board)).ok).toBe(true);
  });
});

describe('a lease starts when its claim commits', () => {
  it('a claim that waited for the run lock gets the full lease from the moment it got the lock', async () => {
    const h = await Harness.open({ ...SPEC, leaseSeconds: 5 });
    const v = await h.start('claim-review', INPUTS);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    // Another writer holds the run's lock while 7 s pass on the service's clock.
    const holder = h.board.store.transact({ kind: 'run', id: v.run.id }, async () => {
      entered();
      await held;
    });
    await inside;
    const claiming = h.claim(v.run.id, 'check', CAST.agent);
    await new Promise((r) => setTimeout(r, 50));
    h.advance('7s');
    const gotLockAt = h.clock;
    release();
    await holder;
    const claim = await claiming;
    expect(Date.parse(claim.expiresAt)).toBe(gotLockAt + 5000);
  });
});

describe('something other than a valid file where a board file belongs', () => {
  it('a folder in place of RUN.md or a step file: reads and writes answer conflict board_file_invalid naming it, never retry', async () => {
    const h = await Harness.open(SPEC);
    for (const file of ['RUN.md', 'check.md']) {
      const v = await h.start('claim-review', INPUTS);
      expect(states(await h.view(v.run.id)).check).toBe('ready');
      const abs = path.join(h.root, 'runs', v.run.id, file);
      await fs.rm(abs);
      await fs.mkdir(abs);
      const claim = await h.fail('claim', { runId: v.run.id, stepId: 'check', requestId: rid() }, CAST.agent);
      expect(claim.code).toBe('conflict');
      expect(claim.issues?.[0]).toBe('board_file_invalid');
      expect(claim.issues?.join('\n')).toContain(`runs/${v.run.id}/${file}`);
      // This coordinator read the run before: it serves that last valid state.
      expect(states(await h.view(v.run.id)).check).toBe('ready');
      const report = await verifyBoard(h.board);
      expect(report.ok).toBe(false);
      expect(report.chains.flatMap((c) => c.breaks).some((b) => b.file === `runs/${v.run.id}/${file}`)).toBe(true);
      await fs.rmdir(abs);
    }
  });

  it('a deleted step file: a coordinator serves the last valid state, and one that never saw it refuses naming the file', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    expect(states(await h.view(v.run.id)).check).toBe('ready');
    await fs.rm(path.join(h.root, 'runs', v.run.id, 'check.md'));
    expect(states(await h.view(v.run.id)).check).toBe('ready');
    const { Service } = await import('../../src/service/service.js');
    const other = await Service.open(h.board);
    const r = await other.call('get_run', { runId: v.run.id }, { kind: 'person', email: CAST.ann, operator: false });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('conflict');
      expect(r.error.issues?.join('\n')).toContain(`runs/${v.run.id}/check.md`);
    }
    const write = await h.fail('claim', { runId: v.run.id, stepId: 'check', requestId: rid() }, CAST.agent);
    expect(write.code).toBe('conflict');
    expect(write.issues?.[0]).toBe('board_file_invalid');
  });

  it('audit verify does not follow a run folder linked to a folder outside the board', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'wb-outside-'));
    const dir = path.join(h.root, 'runs', v.run.id);
    await fs.cp(dir, outside, { recursive: true });
    await fs.rm(dir, { recursive: true });
    await fs.symlink(outside, dir);
    const report = await verifyBoard(h.board);
    expect(report.ok).toBe(false);
    const chain = report.chains.find((c) => c.file === `runs/${v.run.id}/audit.jsonl`)!;
    expect(chain.breaks[0]!.reason).toContain('symbolic link');
    await fs.rm(outside, { recursive: true });
  });
});

describe('a fault that retrying cannot mend', () => {
  it('is recorded as an incident and answered retry with internal_fault twice, then conflict', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    // Replay records cannot be written: a file where their folder belongs (ENOTDIR, not transient).
    await fs.rm(path.join(h.root, '.work/requests'), { recursive: true, force: true });
    await fs.writeFile(path.join(h.root, '.work/requests'), 'not a folder');
    const before = await h.snapshot();
    const requestId = rid();
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const e = await h.fail('claim', { runId: v.run.id, stepId: 'check', requestId }, CAST.agent);
      codes.push(e.code);
      expect(e.issues?.[0]).toBe('internal_fault');
      expect(e.issues?.[1]).toMatch(/^incident: i-/);
    }
    expect(codes).toEqual(['retry', 'retry', 'conflict']);
    // Another call is counted on its own: its first fault is still answered retry.
    expect((await h.fail('claim', { runId: v.run.id, stepId: 'check', requestId: rid() }, CAST.agent)).code).toBe('retry');
    expect(await h.snapshot()).toEqual(before);
    const incidents = (await fs.readFile(path.join(h.root, '.work/incidents.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tool: string; message: string });
    expect(incidents).toHaveLength(4);
    expect(incidents[0]!.tool).toBe('claim');
    expect(incidents[0]!.message).toContain('ENOTDIR');
  });
});

describe('recovery removes what dead writers left', () => {
  it("stale locks (a scope's, a named one, a guard), dead temps and unstarted run folders are gone; live work is untouched", async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const dead = { host: HOST, pid: 2 ** 22 + 11, acquiredAt: new Date().toISOString(), token: 'x' };
    const ghost = 'r-01jyyyyyyyyyyyyyyyyyyyyyyy';
    const lockDir = path.join(h.root, '.work/locks');
    await fs.mkdir(lockDir, { recursive: true });
    await fs.writeFile(path.join(lockDir, `run-${ghost}.lock`), JSON.stringify(dead));
    await fs.writeFile(path.join(lockDir, `run-${v.run.id}.lock`), JSON.stringify(dead));
    await fs.writeFile(path.join(lockDir, `board.lock.break`), JSON.stringify(dead));
    // Named locks too: a killed serve's courier leaves one for a notification nobody sends again.
    await fs.writeFile(path.join(lockDir, `notify-${ghost}-n-01jzzzzzzzzzzzzzzzzzzzzzzz.lock`), JSON.stringify(dead));
    await fs.writeFile(path.join(lockDir, `sync.lock`), JSON.stringify({ ...dead, intent: 'sync' }));
    await fs.writeFile(path.join(h.root, '.work/requests', `x.json.tmp-${HOST}-${dead.pid}-0123abcd`), '{');
    await fs.writeFile(path.join(h.root, '.work', `index.json.tmp-${HOST}-${dead.pid}-0123abcd`), '{');
    await fs.mkdir(path.join(h.root, 'runs', ghost));
    const empty = 'r-01jxxxxxxxxxxxxxxxxxxxxxxx';
    await fs.mkdir(path.join(h.root, 'runs', empty));
    const report = await h.board.store.recover();
    expect(report.brokenLocks.sort()).toEqual(['board.lock.break', `notify-${ghost}-n-01jzzzzzzzzzzzzzzzzzzzzzzz.lock`, `run-${ghost}.lock`, `run-${v.run.id}.lock`, 'sync.lock'].sort());
    expect(await fs.readdir(lockDir)).toEqual([]);
    expect(await runFolders(h)).toEqual([v.run.id]);
    expect((await fs.readdir(path.join(h.root, '.work/requests'))).some((n) => n.includes('.tmp-'))).toBe(false);
    expect((await fs.readdir(path.join(h.root, '.work'))).some((n) => n.includes('.tmp-'))).toBe(false);
    // The broken lock of a real run is audited on its chain; the ghost's started no chain.
    expect((await chainActions(h, v.run.id)).at(-1)).toBe('lock.broken');
    expect((await verifyBoard(h.board)).ok).toBe(true);
  });
});

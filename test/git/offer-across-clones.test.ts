/**
 * Issue 41, item 6: two clones rarely offer the same step. A step is offered
 * at once on the clone where it became ready; the other clones' get_work
 * lists it only in turns, one grace each (three syncs of a serve --git-sync), and not at
 * all while a claim made on another clone is running there. A claim asked
 * for by id is taken as always (docs/git.md "Offered first where it became ready").
 * Real git: a bare remote and two clones, the CLI's `work` (get_work), and
 * one long-lived service on a clone, which keeps each step's answer with the
 * run's state until the answer can change.
 */
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { resolveActor } from '../../src/service/identity.js';
import { Service } from '../../src/service/service.js';
import { ensureBuilt } from '../support/cli-run.js';
import { addClone, twoClones, wb } from '../support/git-clones.js';

/** What `work` (get_work) offers an agent on a clone: the run ids. */
async function offered(dir: string, agent: string): Promise<string[]> {
  const r = await wb(dir, '--as', agent, '--json', 'work');
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { data: { items: { runId: string }[] } }).data.items.map((i) => i.runId);
}

/** serve --git-sync's record of its interval, as a serve syncing every `everyMs` leaves it in .work/. */
async function syncsEvery(dir: string, everyMs: number | null): Promise<void> {
  const file = path.join(dir, '.work', 'git-sync.json');
  if (everyMs === null) return fs.rm(file, { force: true });
  const now = new Date().toISOString();
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(
    file,
    `${JSON.stringify({ pid: process.pid, host: 'test', everyMs, runs: 1, failures: 0, failingInARow: 0, lastGoodAt: now, lastFailureAt: null, lastFailure: null, declined: false, nextTryAt: now })}\n`,
  );
}

/** The record a running serve --git-sync (this test's own process stands for it) leaves after good syncs that ended at `goodAt`. */
async function serveSyncing(dir: string, everyMs: number, goodAt: string[]): Promise<void> {
  const now = new Date().toISOString();
  await fs.mkdir(path.join(dir, '.work'), { recursive: true });
  await fs.writeFile(
    path.join(dir, '.work', 'git-sync.json'),
    `${JSON.stringify({ pid: process.pid, host: hostname(), everyMs, runs: goodAt.length + 4, failures: 4, failingInARow: 0, lastGoodAt: goodAt.at(-1) ?? null, goodAt, lastFailureAt: now, lastFailure: 'could not reach the remote', declined: false, nextTryAt: now })}\n`,
  );
}

describe('offered first where it became ready', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it("B holds back a step that became ready on A until the grace passes, never while A's claim runs (and refuses a claim of it by id then), and still takes a claim by id of a step in its grace", async () => {
    const { a, b, run } = await twoClones();
    // The run was started on A: its draft is offered there at once, and not on B (three minutes of grace by default).
    expect(await offered(a, 'writer-a')).toEqual([run]);
    expect(await offered(b, 'writer-b')).toEqual([]);
    // B's serve syncs every millisecond: three syncs have long passed since the step became ready, so B offers it.
    await syncsEvery(b, 1);
    expect(await offered(b, 'writer-b')).toEqual([run]);

    // A's agent claims it and A syncs; once B has synced, B's get_work leaves it out whatever the grace, while the claim runs.
    const claimed = await wb(a, '--as', 'writer-a', 'claim', run, 'draft');
    expect(claimed.code, claimed.stderr).toBe(0);
    expect((await wb(a, 'sync')).code).toBe(0);
    expect((await wb(b, 'sync')).code).toBe(0);
    expect(await offered(b, 'writer-b')).toEqual([]);
    // And a claim of it by id on B is refused, as a claim of a step claimed on B would be, naming when A's lease ends.
    const lease = (JSON.parse((await fs.readFile(path.join(b, 'runs', run, 'audit.jsonl'), 'utf8')).trim().split('\n').at(-1)!) as { input: { changes: { expiresAt: string } } }).input.changes
      .expiresAt;
    const twice = await wb(b, '--as', 'writer-b', '--json', 'claim', run, 'draft');
    expect(twice.code).not.toBe(0);
    const error = (JSON.parse(twice.stdout) as { error: { code: string; message: string; issues: string[] } }).error;
    expect(error.code).toBe('conflict');
    expect(error.issues).toContain('claimed_by_other');
    expect(error.message).toContain(`on another clone of the board until ${lease}`);

    // A second run started on B: offered on B at once, held back on A (no serve sync record there: three minutes).
    const started = await wb(b, '--as', 'writer-b', 'start', 'hello', '--input', 'topic=Ferries', '--input', 'words=40');
    expect(started.code, started.stderr).toBe(0);
    const second = started.stdout.trim();
    expect(await offered(b, 'writer-b')).toEqual([second]);
    expect((await wb(b, 'sync')).code).toBe(0);
    expect((await wb(a, 'sync')).code).toBe(0);
    expect(await offered(a, 'writer-a')).toEqual([]);
    // Held back for its grace is not refused: a claim by id on A works, as it always did.
    const byId = await wb(a, '--as', 'writer-a', 'claim', second, 'draft');
    expect(byId.code, byId.stderr).toBe(0);
    await syncsEvery(b, null);
  }, 600_000);

  it("while B's serve syncs, B holds back a step that became ready on A until three of B's syncs got through after it", async () => {
    const { a, b, run } = await twoClones();
    expect(await offered(a, 'writer-a')).toEqual([run]);
    // The time grace is long past (every millisecond), but B's serve failed to sync since before the step became ready:
    // A's claim could not have reached B, so B does not offer it.
    const before = new Date(Date.now() - 60_000).toISOString();
    await serveSyncing(b, 1, [before, before, before]);
    expect(await offered(b, 'writer-b')).toEqual([]);
    // Two syncs got through since: still held; the third frees it.
    const since = (ms: number) => new Date(Date.now() + ms).toISOString();
    await serveSyncing(b, 1, [before, since(1), since(2)]);
    expect(await offered(b, 'writer-b')).toEqual([]);
    await serveSyncing(b, 1, [since(1), since(2), since(3)]);
    expect(await offered(b, 'writer-b')).toEqual([run]);
    // A record left by a serve that no longer runs counts its interval only.
    await serveSyncing(b, 1, [before, before, before]);
    const file = path.join(b, '.work', 'git-sync.json');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(/"pid":\d+/, '"pid":999999999'));
    expect(await offered(b, 'writer-b')).toEqual([run]);
    await syncsEvery(b, null);
  }, 600_000);

  it('one long-lived process on B offers the step once its grace passes by its clock, or its syncs got through, and holds it again when the rule changes', async () => {
    const { b, run } = await twoClones();
    let clock = Date.now();
    const board = await Board.open(b);
    const svc = await Service.open(board, { now: () => new Date(clock) });
    const who = resolveActor(board.manifest, 'writer-b');
    if (!who.ok) throw new Error(who.message);
    const agent = who.actor;
    const offeredHere = async () => {
      const r = await svc.call('get_work', {}, agent);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return (r.data.items as { runId: string }[]).map((i) => i.runId);
    };
    // B's serve has synced, but not since the step became ready on A: held.
    const before = new Date(clock - 60_000).toISOString();
    await serveSyncing(b, 1, [before, before, before]);
    expect(await offeredHere()).toEqual([]);
    expect(await offeredHere()).toEqual([]);
    // Three syncs got through since: the same process offers it at once, the run's files unchanged.
    const since = (ms: number) => new Date(clock + ms).toISOString();
    await serveSyncing(b, 1, [since(1), since(2), since(3)]);
    expect(await offeredHere()).toEqual([run]);
    // No serve syncs any more: the grace of three minutes holds it back again (B, the only other clone, has the first turn).
    await syncsEvery(b, null);
    expect(await offeredHere()).toEqual([]);
    // Four minutes later by the service's clock: offered.
    clock += 4 * 60_000;
    expect(await offeredHere()).toEqual([run]);
  }, 600_000);

  it('with three clones, the two that did not make it ready take turns: one offers it after one grace, the other only after two', async () => {
    const { root, remote, a, b } = await twoClones();
    const c = await addClone(root, remote, 'c', 'c@example.com');
    // B and C each sign a write and sync, so every clone has all three keys on record; then A starts a run and syncs.
    for (const dir of [b, c]) {
      expect((await wb(dir, '--as', 'writer-b', 'start', 'hello', '--input', 'topic=Turns', '--input', 'words=60')).code).toBe(0);
      expect((await wb(dir, 'sync')).code).toBe(0);
    }
    expect((await wb(a, 'sync')).code).toBe(0);
    const started = await wb(a, '--as', 'writer-a', 'start', 'hello', '--input', 'topic=Whose turn', '--input', 'words=60');
    expect(started.code, started.stderr).toBe(0);
    const run = started.stdout.trim();
    expect((await wb(a, 'sync')).code).toBe(0);
    for (const dir of [b, c]) expect((await wb(dir, 'sync')).code).toBe(0);
    const readyAt = Date.parse((JSON.parse((await fs.readFile(path.join(b, 'runs', run, 'audit.jsonl'), 'utf8')).trim().split('\n').at(-1)!) as { ts: string }).ts);
    // What get_work offers on a clone at `ms` after the step became ready, by a service's clock (no serve syncs: a grace is three minutes).
    const offersAt = async (dir: string, ms: number) => {
      const board = await Board.open(dir);
      const svc = await Service.open(board, { now: () => new Date(readyAt + ms) });
      const who = resolveActor(board.manifest, 'writer-b');
      if (!who.ok) throw new Error(who.message);
      const r = await svc.call('get_work', {}, who.actor);
      await svc.settled();
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return (r.data.items as { runId: string }[]).some((i) => i.runId === run);
    };
    expect([await offersAt(b, 2 * 60_000), await offersAt(c, 2 * 60_000)]).toEqual([false, false]);
    // Until the second grace ends, one of them offers it, never both (each used to draw its own wait within those six minutes).
    const beforeTwo = [await offersAt(b, 6 * 60_000 - 1000), await offersAt(c, 6 * 60_000 - 1000)];
    expect(beforeTwo.filter(Boolean)).toHaveLength(1);
    expect([await offersAt(b, 7 * 60_000), await offersAt(c, 7 * 60_000)]).toEqual([true, true]);
  }, 600_000);
});

/**
 * The commit log (issue 30): kills at its new points, and power losses by
 * simulation. A real coordinator (crash-worker.mjs, the service from dist/)
 * is SIGKILLed between its log flush and its renames, in the middle of its
 * renames, and during a checkpoint. SIGKILL keeps the page cache, so the
 * journal finishes the commit; a power loss does not, which cannot be done
 * here, so it is simulated on the files a kill left: the journal and the temp
 * files are deleted, the renames undone, and the log's header is given
 * another boot id (what a reboot changes). Recovery (`workboard doctor`) must
 * then bring back the whole transition exactly once (recovering again, with
 * the log put back, changes nothing), drop a torn last record, and never touch
 * the log of a process that is alive. `audit verify` and `doctor` clean after.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frame, readFrames } from '../../src/board/log-files.js';
import { sha256Hex } from '../../src/core/hash.js';
import { until } from '../support/until.js';
import { AGENT, allPaths, built, cleanup, cli, freshBoard, healthProblems, leftovers, Mcp, recoverAndCheck, runFolders, runsByTag, said, spawnNode, startArgs, tmp, WORKER } from './crash-support.js';

beforeAll(built, 300_000);
afterAll(cleanup);

interface LoggedFile {
  rel: string;
  prev: string | null;
  sha256: string | null;
}

/** Run the worker until it says `stopped`, SIGKILL it there; the runs it acknowledged. */
async function killWhenStopped(args: string[]): Promise<Map<string, string>> {
  const w = spawnNode([WORKER, ...args]);
  await until(() => (w.stdout().includes('stopped\n') ? true : w.child.exitCode !== null ? Promise.reject(new Error(w.stdout())) : undefined), 60_000, 20);
  w.child.kill('SIGKILL');
  const exit = await w.done;
  expect(exit.signal, said(exit)).toBe('SIGKILL');
  expect(exit.stderr).toBe('');
  const acked = new Map<string, string>();
  for (const line of exit.stdout.split('\n')) {
    const [kind, rid, runId] = line.split(' ');
    if (kind === 'ack') acked.set(rid!, runId!);
  }
  return acked;
}

async function logs(root: string): Promise<string[]> {
  const dir = path.join(root, '.work', 'log');
  return (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.log')).map((n) => path.join(dir, n));
}

/** A log's frames: its header, then its records. */
async function framesOf(file: string): Promise<{ header: Record<string, unknown>; records: { files: LoggedFile[] }[] }> {
  const [header, ...records] = readFrames(await fs.readFile(file)).values as [Record<string, unknown>, ...{ files: LoggedFile[] }[]];
  return { header, records };
}

/** What a reboot changes in a log: the boot its header names. */
async function asEarlierBoot(file: string): Promise<void> {
  const bytes = await fs.readFile(file);
  const { values } = readFrames(bytes);
  const header = values[0] as Record<string, unknown>;
  const old = frame(header);
  await fs.writeFile(file, Buffer.concat([frame({ ...header, boot: 'an-earlier-boot' }), bytes.subarray(old.length)]));
}

/**
 * A power loss after the log's flush, simulated: the journals and temp files
 * are gone, the last logged commit's renames undone (its files were new: they
 * are removed), and the log is of an earlier boot.
 */
async function powerLoss(root: string, log: string): Promise<void> {
  const { records } = await framesOf(log);
  const last = records[records.length - 1]!;
  for (const f of last.files) {
    const bytes = await fs.readFile(path.join(root, f.rel)).catch(() => null);
    expect(f.prev, `${f.rel} existed before the commit: this simulation undoes only creations`).toBeNull();
    if (bytes !== null && sha256Hex(bytes) === f.sha256) await fs.rm(path.join(root, f.rel));
  }
  await fs.rm(path.join(root, '.work', 'journal'), { recursive: true, force: true });
  for (const p of await allPaths(root)) if (p.includes('.tmp-')) await fs.rm(path.join(root, p));
  await asEarlierBoot(log);
}

/** Every file of the board and its bytes, but the commit logs (a recovery's own comes and goes). */
async function contents(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of await allPaths(root)) {
    if (p.endsWith('/') || p.startsWith('.work/log/')) continue;
    out.set(p, sha256Hex(await fs.readFile(path.join(root, p))));
  }
  return out;
}

/** The run a tag's start made, checked whole: RUN.md with its inputs, its first step, its chain. */
async function oneWholeRun(root: string, tag: string): Promise<string> {
  const ids = (await runsByTag(root)).get(tag) ?? [];
  expect(ids, `runs for ${tag}`).toHaveLength(1);
  const f = (await runFolders(root)).find((r) => r.id === ids[0])!;
  expect(f.entries).toEqual(expect.arrayContaining(['RUN.md', 'draft.md', 'audit.jsonl']));
  return ids[0]!;
}

/** Recover again with the log put back (as a power loss would have left it): nothing may change. */
async function replayAgainChangesNothing(root: string, saved: { file: string; bytes: Buffer }): Promise<void> {
  const before = await contents(root);
  await fs.mkdir(path.dirname(saved.file), { recursive: true });
  await fs.writeFile(saved.file, saved.bytes);
  const h = await recoverAndCheck(root);
  expect(healthProblems(h)).toEqual([]);
  expect(await contents(root)).toEqual(before);
  expect(await logs(root)).toEqual([]);
}

describe('the commit log under kills and simulated power losses', () => {
  for (const [renames, what] of [
    [0, 'between its log flush and its renames'],
    [2, 'in the middle of its renames'],
  ] as const) {
    it(`a start killed ${what}: after a kill the journal finishes it; after a power loss the log replays it, exactly once`, async () => {
      // A kill alone: the page cache keeps the journal; recovery finishes the start and removes the dead log.
      const killed = await freshBoard(await tmp('wb-log-kill-'));
      await killWhenStopped(['stop', killed, AGENT, 'k', 'start', String(renames)]);
      expect(await logs(killed)).toHaveLength(1);
      const hk = await recoverAndCheck(killed);
      expect(healthProblems(hk)).toEqual([]);
      await oneWholeRun(killed, 'k-0');
      expect(await logs(killed)).toEqual([]);

      // The same kill, then a power loss: no journal, no temps, no renames; only the log has the start.
      const root = await freshBoard(await tmp('wb-log-power-'));
      await killWhenStopped(['stop', root, AGENT, 'p', 'start', String(renames)]);
      const [log] = await logs(root);
      await powerLoss(root, log!);
      expect((await runsByTag(root)).get('p-0') ?? []).toEqual([]);
      // Before recovery, audit verify names the log whose commits the files may lack, and says what to run.
      const before = await cli(root, ['audit', 'verify'], { json: false });
      expect(before.stdout).toContain(`replay  .work/log/${path.basename(log!)}: commits of an earlier boot of this machine (a power loss) not replayed yet`);
      expect(before.stdout).toContain('workboard doctor replays them');
      const saved = { file: log!, bytes: await fs.readFile(log!) };
      const h = await recoverAndCheck(root);
      expect(healthProblems(h)).toEqual([]);
      expect(h.verify.stdout).not.toContain('replay');
      // doctor says what it replayed, and which files the replay brought back.
      expect(h.first.stdout).toMatch(/recovered: replayed \d+ commits? from 1 commit log of an earlier boot .*restored: .*runs\/r-[0-9a-z]+\/RUN\.md/);
      expect(h.doctor.stdout).not.toMatch(/replayed/);
      const runId = await oneWholeRun(root, 'p-0');
      await oneWholeRun(root, 'p-warm');
      expect(await logs(root)).toEqual([]);
      await replayAgainChangesNothing(root, saved);
      // Its replay record came back with it: the start repeated with its requestId is that run.
      const m = await Mcp.start(root);
      try {
        const again = await m.call('start_run', startArgs('p-0'));
        expect(again.ok).toBe(true);
        expect(again.data.run.id).toBe(runId);
      } finally {
        await m.close();
      }
      expect((await runsByTag(root)).get('p-0')).toEqual([runId]);
    }, 180_000);
  }

  it('a torn last record (a power loss inside its flush) is dropped and never applied; the whole records before it are', async () => {
    const root = await freshBoard(await tmp('wb-log-torn-'));
    await killWhenStopped(['stop', root, AGENT, 't', 'start', '0']);
    const [log] = await logs(root);
    await powerLoss(root, log!);
    const { records } = await framesOf(log!);
    expect(records).toHaveLength(2);
    // The flush wrote only part of the last record: its last 40 bytes are still the zeros made ahead of it.
    const bytes = await fs.readFile(log!);
    const { end } = readFrames(bytes);
    await fs.writeFile(log!, bytes.fill(0, end - 40, end));
    expect((await framesOf(log!)).records).toHaveLength(1);
    const h = await recoverAndCheck(root);
    expect(healthProblems(h)).toEqual([]);
    expect((await runsByTag(root)).get('t-0') ?? []).toEqual([]);
    await oneWholeRun(root, 't-warm');
    expect(await logs(root)).toEqual([]);
    // Never committed, so a retry with its requestId starts it once.
    const m = await Mcp.start(root);
    try {
      expect((await m.call('start_run', startArgs('t-0'))).ok).toBe(true);
    } finally {
      await m.close();
    }
    await oneWholeRun(root, 't-0');
  }, 180_000);

  it('a worker killed during a checkpoint (its file system flushed, its log not yet cut): recovery removes the log; replaying it after a power loss changes nothing', async () => {
    const root = await freshBoard(await tmp('wb-log-checkpoint-'));
    await killWhenStopped(['checkpoint', root, AGENT, 'c']);
    const [log] = await logs(root);
    expect((await framesOf(log!)).records.length).toBeGreaterThanOrEqual(2);
    const saved = { file: log!, bytes: await fs.readFile(log!) };
    expect((await leftovers(root)).journals).toEqual([]);
    const h = await recoverAndCheck(root);
    expect(healthProblems(h)).toEqual([]);
    await oneWholeRun(root, 'c-0');
    expect(await logs(root)).toEqual([]);
    // The same log as a power loss would have left it (the checkpoint's flush is all that made it durable).
    await fs.mkdir(path.dirname(saved.file), { recursive: true });
    await fs.writeFile(saved.file, saved.bytes);
    await asEarlierBoot(saved.file);
    const earlier = { file: saved.file, bytes: await fs.readFile(saved.file) };
    await fs.rm(saved.file);
    await replayAgainChangesNothing(root, earlier);
    await oneWholeRun(root, 'c-0');
  }, 180_000);

  it("another process's recovery never touches the log of a live process (nor of another host), and removes a dead one's", async () => {
    const root = await freshBoard(await tmp('wb-log-live-'));
    await killWhenStopped(['checkpoint', root, AGENT, 'l']);
    const [real] = await logs(root);
    const { header, records } = await framesOf(real!);
    const body = Buffer.concat(records.map((r) => frame(r)));
    // A process alive on this host (a sleeping child), of this boot.
    const sleeper = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      const dir = path.dirname(real!);
      const live = path.join(dir, `${String(header.host)}-${sleeper.pid}-0000abcd.log`);
      const foreign = path.join(dir, `some-other-host-${sleeper.pid}-0000abce.log`);
      const liveBytes = Buffer.concat([frame({ ...header, pid: sleeper.pid }), body]);
      const foreignBytes = Buffer.concat([frame({ ...header, host: 'some-other-host', pid: sleeper.pid, boot: 'theirs' }), body]);
      await fs.writeFile(live, liveBytes);
      await fs.writeFile(foreign, foreignBytes);
      const h = await recoverAndCheck(root);
      expect(healthProblems(h)).toEqual([]);
      // The killed worker's log (dead, this boot) is gone; the live one and the foreign one are as they were.
      expect((await logs(root)).sort()).toEqual([foreign, live].sort());
      expect(await fs.readFile(live)).toEqual(liveBytes);
      expect(await fs.readFile(foreign)).toEqual(foreignBytes);
    } finally {
      sleeper.kill('SIGKILL');
    }
  }, 180_000);
});

/**
 * Lock files (docs/architecture.md "The write path", step 1): created with
 * O_CREAT|O_EXCL, holding {host, pid, acquiredAt}; a foreign lock file is
 * always honoured unless its holder is provably gone:
 *  - on this host: its pid no longer exists (a live pid is respected however old);
 *  - on another host: it is older than lockStaleSeconds.
 * A lock that cannot be had in time is `busy`, and nothing changes. A broken
 * lock is audited with the commit (`lock.broken`, naming the holder).
 *
 * Hand-crafted locks are written in two shapes: exactly the AIP-20 fields
 * (what another conforming coordinator writes), and with workboard's own
 * extra `token` field.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { BoardError } from '../../src/board/errors.js';
import { scopeFiles } from '../../src/board/layout.js';
import { acquireLock, LockTimeout } from '../../src/board/lock.js';
import { chainEvents, cleanupTmp, exists, newBoard, readText, snapshotDir, tmpDir } from '../support/tmp-board.js';

const children: ChildProcess[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await cleanupTmp();
});

const HOST = os.hostname();
const OTHER_HOST = 'another-machine.invalid';
const BOARD_LOCK = scopeFiles({ kind: 'board' }).lock;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  const pid = child.pid!;
  expect(alive(pid)).toBe(false);
  return pid;
}

/** A process that stays alive until the test ends. */
function sleeper(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  expect(alive(child.pid!)).toBe(true);
  return child.pid!;
}

const SHAPES = {
  'AIP-20 fields': (info: { host: string; pid: number; acquiredAt: string }) => JSON.stringify(info),
  'with a token': (info: { host: string; pid: number; acquiredAt: string }) => JSON.stringify({ ...info, token: '0123456789abcdef' }),
} as const;

/** Write a lock file by hand, with its mtime at `acquiredAt`. */
async function plantLock(root: string, rel: string, content: string, at: Date): Promise<string> {
  const file = path.join(root, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  await fs.utimes(file, at, at);
  return file;
}

/** An audited change to WORK.md's description. */
function describeBoard(board: Board, description: string) {
  return board.store.transact({ kind: 'board' }, async (tx) => {
    const w = await tx.read('WORK.md');
    tx.write('WORK.md', { ...w!.data, description }, w!.body);
    tx.audit({ actor: 'user:tester', action: 'board.described', entity: 'WORK.md' });
  });
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

describe('the lock file', () => {
  it('exists while a transaction runs, holding {host, pid, acquiredAt}, and is gone afterwards', async () => {
    const { root, board } = await newBoard();
    const lockFile = path.join(root, BOARD_LOCK);
    let seen: Record<string, unknown> | undefined;
    await board.store.transact({ kind: 'board' }, async () => {
      seen = JSON.parse(await readText(lockFile)) as Record<string, unknown>;
    });
    expect(seen).toMatchObject({ host: HOST, pid: process.pid });
    expect(typeof seen!.acquiredAt).toBe('string');
    expect(Number.isFinite(Date.parse(seen!.acquiredAt as string))).toBe(true);
    expect(await exists(lockFile)).toBe(false);
  });

  it('is exclusive: a second acquirer waits until the first releases', async () => {
    const dir = await tmpDir();
    const file = path.join(dir, 'locks', 'x.lock');
    const first = await acquireLock(file, { staleMs: 60_000, timeoutMs: 5_000 });
    // While it is held, another acquirer retries for all of its time and gives up without it.
    await expect(acquireLock(file, { staleMs: 60_000, timeoutMs: 200 })).rejects.toBeInstanceOf(LockTimeout);
    expect(JSON.parse(await readText(file))).toMatchObject({ pid: process.pid });
    let secondHeld = false;
    const second = acquireLock(file, { staleMs: 60_000, timeoutMs: 30_000 }).then((h) => {
      secondHeld = true;
      return h;
    });
    expect(secondHeld).toBe(false);
    await first.release();
    const h2 = await second;
    expect(secondHeld).toBe(true);
    expect(JSON.parse(await readText(file))).toMatchObject({ pid: process.pid });
    await h2.release();
    expect(await exists(file)).toBe(false);
  });

  it('letting go removes only our own lock: one retaken meanwhile by another writer of this host, or of this process, stays', async () => {
    const dir = await tmpDir();
    const file = path.join(dir, 'locks', 'x.lock');
    // Ours is removed by hand (taken for stale), and a writer in another process of this host takes the lock.
    const ours = await acquireLock(file, { staleMs: 60_000, timeoutMs: 5_000 });
    await fs.rm(file);
    const lockJs = new URL('../../dist/board/lock.js', import.meta.url).href;
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { acquireLock } = await import(${JSON.stringify(lockJs)}); await acquireLock(${JSON.stringify(file)}, { staleMs: 60000, timeoutMs: 5000 }); console.log('held'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
      child.once('exit', (code) => reject(new Error(`the other writer exited ${code}`)));
    });
    const theirs = await readText(file);
    expect(JSON.parse(theirs)).toMatchObject({ host: HOST, pid: child.pid });
    await ours.release();
    expect(await readText(file)).toBe(theirs);

    // The same within this process: a second holder after ours was removed.
    child.kill('SIGKILL');
    await once(child, 'exit');
    await fs.rm(file);
    const first = await acquireLock(file, { staleMs: 60_000, timeoutMs: 5_000 });
    await fs.rm(file);
    const second = await acquireLock(file, { staleMs: 60_000, timeoutMs: 5_000 });
    const held = await readText(file);
    await first.release();
    expect(await readText(file)).toBe(held);
    await second.release();
    expect(await exists(file)).toBe(false);
  });

  it('serialises concurrent transactions in one process: no lost update', async () => {
    const { root, board } = await newBoard();
    const N = 12;
    await Promise.all(
      Array.from({ length: N }, () =>
        board.store.transact({ kind: 'board' }, async (tx) => {
          const w = await tx.read('WORK.md');
          const n = Number((w!.data.description as string).match(/(\d+)$/)?.[1] ?? 0);
          await new Promise((r) => setTimeout(r, 2));
          tx.write('WORK.md', { ...w!.data, description: `count ${n + 1}` }, w!.body);
          tx.audit({ actor: 'user:tester', action: 'board.counted', entity: 'WORK.md' });
        }),
      ),
    );
    const work = await readText(path.join(root, 'WORK.md'));
    expect(work).toMatch(new RegExp(`^description: count ${N}$`, 'm'));
    expect(work).toMatch(new RegExp(`^rev: ${N + 1}$`, 'm'));
    expect(await chainEvents(path.join(root, 'audit/board.jsonl'))).toHaveLength(N + 1);
  });
});

for (const [shape, render] of Object.entries(SHAPES)) {
  describe(`a hand-crafted lock (${shape})`, () => {
    it('from a dead pid on this host is broken; the transaction succeeds and audits lock.broken naming the holder', async () => {
      const { root } = await newBoard();
      const pid = await deadPid();
      const acquiredAt = new Date(Date.now() - 2_000).toISOString();
      const lockFile = await plantLock(root, BOARD_LOCK, render({ host: HOST, pid, acquiredAt }), new Date(Date.now() - 2_000));
      const quick = await Board.open(root, { lockTimeoutMs: 2_000 });
      await describeBoard(quick, 'after a dead writer');
      expect(await readText(path.join(root, 'WORK.md'))).toMatch(/^description: after a dead writer$/m);
      expect(await exists(lockFile)).toBe(false);
      const events = await chainEvents(path.join(root, 'audit/board.jsonl'));
      const broken = events.filter((e) => e.action === 'lock.broken');
      expect(broken).toHaveLength(1);
      expect(broken[0]!.input.holder).toMatchObject({ host: HOST, pid, acquiredAt });
      expect(events.at(-1)!.action).toBe('board.described');
    });

    it('from a live pid on this host (a sleeping child) is respected however old: busy, nothing changed', async () => {
      const { root } = await newBoard();
      const pid = sleeper();
      const old = minutesAgo(60);
      const content = render({ host: HOST, pid, acquiredAt: old.toISOString() });
      const lockFile = await plantLock(root, BOARD_LOCK, content, old);
      const before = await snapshotDir(root);
      const quick = await Board.open(root, { lockTimeoutMs: 300, lockStaleMs: 1_000 });
      let err: unknown;
      try {
        await describeBoard(quick, 'must not happen');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(BoardError);
      expect((err as BoardError).code).toBe('busy');
      expect(await readText(lockFile)).toBe(content);
      expect(await snapshotDir(root)).toEqual(before);
    });

    it('from this very process (the parent of the transaction) is respected: busy', async () => {
      const { root } = await newBoard();
      const old = minutesAgo(60);
      const content = render({ host: HOST, pid: process.pid, acquiredAt: old.toISOString() });
      const lockFile = await plantLock(root, BOARD_LOCK, content, old);
      const before = await snapshotDir(root);
      const quick = await Board.open(root, { lockTimeoutMs: 300, lockStaleMs: 1_000 });
      await expect(describeBoard(quick, 'must not happen')).rejects.toMatchObject({ code: 'busy' });
      expect(await readText(lockFile)).toBe(content);
      expect(await snapshotDir(root)).toEqual(before);
    });

    it('from another host older than lockStaleSeconds is broken and audited', async () => {
      const { root } = await newBoard();
      const old = minutesAgo(10);
      const acquiredAt = old.toISOString();
      await plantLock(root, BOARD_LOCK, render({ host: OTHER_HOST, pid: 4242, acquiredAt }), old);
      // WORK.md says lockStaleSeconds: 30 (the default); ten minutes is well past it.
      const quick = await Board.open(root, { lockTimeoutMs: 2_000 });
      expect(quick.manifest.settings.lockStaleSeconds).toBe(30);
      await describeBoard(quick, 'after a stale foreign lock');
      const broken = (await chainEvents(path.join(root, 'audit/board.jsonl'))).filter((e) => e.action === 'lock.broken');
      expect(broken).toHaveLength(1);
      expect(broken[0]!.input.holder).toMatchObject({ host: OTHER_HOST, pid: 4242, acquiredAt });
    });

    it('from another host that is fresh is respected: busy, nothing changed', async () => {
      const { root } = await newBoard();
      const now = new Date();
      const content = render({ host: OTHER_HOST, pid: 4242, acquiredAt: now.toISOString() });
      const lockFile = await plantLock(root, BOARD_LOCK, content, now);
      const before = await snapshotDir(root);
      const quick = await Board.open(root, { lockTimeoutMs: 300 });
      await expect(describeBoard(quick, 'must not happen')).rejects.toMatchObject({ code: 'busy' });
      expect(await readText(lockFile)).toBe(content);
      expect(await snapshotDir(root)).toEqual(before);
    });
  });
}

describe('lockStaleSeconds comes from WORK.md', () => {
  it('a foreign lock younger than the board’s lockStaleSeconds is respected, the same lock older is broken', async () => {
    const { root, board } = await newBoard();
    await board.store.transact({ kind: 'board' }, async (tx) => {
      const w = await tx.read('WORK.md');
      tx.write('WORK.md', { ...w!.data, coordination: { leaseSeconds: 600, lockStaleSeconds: 3600 } }, w!.body);
      tx.audit({ actor: 'user:tester', action: 'board.settings', entity: 'WORK.md' });
    });
    const tenMin = minutesAgo(10);
    const content = JSON.stringify({ host: OTHER_HOST, pid: 4242, acquiredAt: tenMin.toISOString(), token: 'feedfacefeedface' });
    const lockFile = await plantLock(root, BOARD_LOCK, content, tenMin);
    const patient = await Board.open(root, { lockTimeoutMs: 300 });
    expect(patient.manifest.settings.lockStaleSeconds).toBe(3600);
    await expect(describeBoard(patient, 'must not happen')).rejects.toMatchObject({ code: 'busy' });
    expect(await readText(lockFile)).toBe(content);

    const twoHours = minutesAgo(120);
    const older = JSON.stringify({ host: OTHER_HOST, pid: 4242, acquiredAt: twoHours.toISOString(), token: 'feedfacefeedface' });
    await plantLock(root, BOARD_LOCK, older, twoHours);
    await describeBoard(patient, 'after two hours');
    expect(await readText(path.join(root, 'WORK.md'))).toMatch(/^description: after two hours$/m);
  });
});

describe('an unreadable lock file (torn write, foreign format)', () => {
  it('is respected while fresh and broken once older than lockStaleSeconds, judged by its mtime', async () => {
    const { root } = await newBoard();
    const lockFile = await plantLock(root, BOARD_LOCK, '{"host": "half-writ', new Date());
    const quick = await Board.open(root, { lockTimeoutMs: 300, lockStaleMs: 5_000 });
    await expect(describeBoard(quick, 'must not happen')).rejects.toMatchObject({ code: 'busy' });
    expect(await exists(lockFile)).toBe(true);
    const old = minutesAgo(10);
    await fs.utimes(lockFile, old, old);
    await describeBoard(quick, 'after a torn lock');
    expect(await exists(lockFile)).toBe(false);
    expect((await chainEvents(path.join(root, 'audit/board.jsonl'))).some((e) => e.action === 'lock.broken')).toBe(true);
  });
});

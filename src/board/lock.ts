/**
 * Exclusive lock files (docs/architecture.md "Invariants"): created with O_CREAT|O_EXCL, holding
 * `{host, pid, acquiredAt, token, intent?}`, retried with jittered backoff.
 *
 * A lock may be broken when its holder is provably gone: on this host, its
 * pid no longer exists; on another host, it is older than lockStaleSeconds;
 * a lock file left empty by a writer that died creating it, after a second.
 * A live pid on this host is always respected, however old its lock. Breaking
 * goes through a second exclusive file so two waiters can never both break
 * and one of them delete the other's fresh lock.
 */
import path from 'node:path';
import { randomHex } from '../core/ids.js';
import { createExclusive, HOST, isCode, readIfExists, readPresent, removeIfExists, sleep, statIfExists } from './fsutil.js';
import type { Spares } from './spares.js';

export interface LockInfo {
  host: string;
  pid: number;
  acquiredAt: string;
  token: string;
  /** What the holder is about to create (a start_run's run id), inherited by whoever breaks the lock of a dead holder. */
  intent?: string;
}

export interface LockOptions {
  staleMs: number;
  /** Give up after this long; the caller reports `retry`. */
  timeoutMs: number;
  now?: () => number;
  intent?: string;
  /** Take and give back lock files as this process's spares (spares.ts) rather than create and delete them. */
  spares?: Spares;
}

export class LockTimeout extends Error {
  constructor(
    readonly file: string,
    readonly holder: LockInfo | null,
  ) {
    super(`lock ${path.basename(file)} is held${holder ? ` by pid ${holder.pid} on ${holder.host} since ${holder.acquiredAt}` : ''}`);
  }
}

export interface HeldLock {
  file: string;
  info: LockInfo;
  /** Locks found stale and broken on the way in, for the audit. */
  broken: LockInfo[];
  release(): Promise<void>;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return !isCode(e, 'ESRCH');
  }
}

function tryCreate(file: string, info: LockInfo, spares?: Spares): Promise<boolean> {
  return spares ? spares.create(file, JSON.stringify(info)) : createExclusive(file, JSON.stringify(info));
}

/** Read a lock file; a torn or foreign one is described by its mtime alone. */
async function readLock(file: string): Promise<{ info: LockInfo | null; raw: string; mtimeMs: number } | null> {
  const stat = statIfExists(file);
  if (stat === null) return null;
  const buf = await readIfExists(file);
  if (buf === null) return null;
  const raw = buf.toString('utf8');
  try {
    const v = JSON.parse(raw) as Partial<LockInfo>;
    // Another coordinator's lock may hold only {host, pid, acquiredAt}; our token is an addition, so a lock without one is still understood.
    if (typeof v.host === 'string' && Number.isInteger(v.pid) && typeof v.acquiredAt === 'string') {
      const info: LockInfo = { host: v.host, pid: v.pid as number, acquiredAt: v.acquiredAt, token: typeof v.token === 'string' ? v.token : '' };
      if (typeof v.intent === 'string') info.intent = v.intent;
      return { info, raw, mtimeMs: stat.mtimeMs };
    }
  } catch {
    // fall through: unreadable content
  }
  return { info: null, raw, mtimeMs: stat.mtimeMs };
}

/**
 * A lock file with no readable content was created by a writer that died
 * before writing it (the write takes microseconds): breakable after this grace.
 */
const TORN_LOCK_GRACE_MS = 1000;

export function isBreakable(found: { info: LockInfo | null; mtimeMs: number }, staleMs: number, now: number): boolean {
  const { info } = found;
  if (!info) return now - found.mtimeMs > Math.min(staleMs, TORN_LOCK_GRACE_MS);
  if (info.host === HOST) return !pidAlive(info.pid);
  const acquired = Date.parse(info.acquiredAt);
  return !Number.isFinite(acquired) || now - acquired > staleMs;
}

/** Is the lock file there held by a writer that is gone (so acquiring it would break it)? False when absent or live. */
export async function lockIsStale(file: string, staleMs: number, now: number): Promise<boolean> {
  const found = await readLock(file);
  return found !== null && isBreakable(found, staleMs, now);
}

export async function acquireLock(file: string, opts: LockOptions): Promise<HeldLock> {
  const now = opts.now ?? Date.now;
  const start = now();
  const broken: LockInfo[] = [];
  let delay = 1;
  for (;;) {
    // A dead holder's intent passes on, so a chain of crashed holders all finish the same work.
    const intent = [...broken].reverse().find((b) => b.intent !== undefined)?.intent ?? opts.intent;
    const info: LockInfo = { host: HOST, pid: process.pid, acquiredAt: new Date(now()).toISOString(), token: randomHex(8), ...(intent !== undefined ? { intent } : {}) };
    if (await tryCreate(file, info, opts.spares)) {
      return { file, info, broken, release: () => releaseLock(file, info, opts.spares) };
    }
    const found = await readLock(file);
    if (found === null) continue; // released between our two calls
    if (isBreakable(found, opts.staleMs, now())) {
      const gone = await breakLock(file, found.raw, opts.staleMs, now);
      if (gone) {
        broken.push(found.info ?? { host: '?', pid: 0, acquiredAt: new Date(found.mtimeMs).toISOString(), token: '' });
        continue;
      }
    }
    if (now() - start > opts.timeoutMs) throw new LockTimeout(file, found.info);
    await sleep(delay * (0.5 + Math.random()));
    delay = Math.min(delay * 2, 16);
  }
}

/** Remove a stale lock only if it is still the very lock we judged stale. */
async function breakLock(file: string, judged: string, staleMs: number, now: () => number): Promise<boolean> {
  const guard = `${file}.break`;
  const guardInfo: LockInfo = { host: HOST, pid: process.pid, acquiredAt: new Date(now()).toISOString(), token: randomHex(8) };
  if (!(await tryCreate(guard, guardInfo))) {
    const g = await readLock(guard);
    if (g && isBreakable(g, staleMs, now())) await removeIfExists(guard);
    return false;
  }
  try {
    const again = await readIfExists(file);
    if (again === null || again.toString('utf8') !== judged) return false;
    await removeIfExists(file);
    return true;
  } finally {
    await removeIfExists(guard);
  }
}

async function releaseLock(file: string, info: LockInfo, spares?: Spares): Promise<void> {
  const buf = readPresent(file);
  // Only remove our own lock: if it was broken and retaken meanwhile, it is not ours to delete.
  if (buf !== null && buf.toString('utf8') === JSON.stringify(info)) await (spares ? spares.remove(file) : removeIfExists(file));
}

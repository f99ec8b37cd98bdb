/**
 * Recovery after crashes: finishing or discarding what dead writers left
 * (journals, commit logs, locks, temp files, half-made run folders), at
 * start-up and in `doctor` (a scope's temp files, when its lock was broken,
 * are cleaned by journal.ts `cleanTemps`).
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { verifyChain } from './audit.js';
import { findLogs, readLog } from './log-files.js';
import { isCode, isDeadTemp, removeIfEmpty, removeIfExists, TEMP_MARK } from './fsutil.js';
import { isWhole, type CommitRecord } from './commit-record.js';
import type { Settled } from './journal.js';
import { isRunId, JOURNAL_DIR, LOCKS_DIR, paths, REPLAY_LOCK, REQUESTS_DIR, RUNS_DIR, scopeFiles, scopeOfStateName, STATE_DIR, type Scope } from './layout.js';
import { lockIsStale, pidAlive } from './lock.js';
import type { SafeFiles } from './safe-files.js';
import { isDeadSpare, SPARE_DIR } from './spares.js';

export interface RecoveryReport {
  rolledForward: string[];
  brokenLocks: string[];
  removed: string[];
  /** Logs of an earlier boot replayed (then removed), and what their commits found (see `replayEarlierBoots`). */
  replayed: ReplayReport;
}

export interface ReplayReport {
  logs: string[];
  commits: number;
  /** Files a replayed commit wrote (they had lost its bytes). */
  written: string[];
  /** Files a replayed commit found neither as it left them nor as it found them: left alone. */
  left: string[];
}

/** What recovery did, a line each, for `doctor` and the daemon's log. */
export function recoveryLines(r: RecoveryReport): string[] {
  const lines = [...r.rolledForward.map((s) => `rolled forward ${s}`), ...r.brokenLocks.map((l) => `broke the stale lock ${l}`), ...r.removed.map((f) => `removed ${f}`)];
  const { replayed } = r;
  if (replayed.logs.length > 0) {
    const restored =
      replayed.written.length === 0 ? 'every file already had its bytes' : `${replayed.written.length} file${replayed.written.length === 1 ? '' : 's'} restored: ${replayed.written.join(', ')}`;
    lines.push(
      `replayed ${replayed.commits} commit${replayed.commits === 1 ? '' : 's'} from ${replayed.logs.length} commit log${replayed.logs.length === 1 ? '' : 's'} of an earlier boot (a power loss or crash of the machine); ${restored}`,
    );
  }
  // Neither the bytes a commit found nor the ones it wrote: a later commit or a hand edit. Left alone, and worth a look.
  for (const f of replayed.left) lines.push(`left ${f} as it was: it had changed since the replayed commit (a later commit or a hand edit); check it`);
  return lines;
}

/** What replaying needs of the store: its files, its log, and its locks. */
export interface ReplayHost {
  files: SafeFiles;
  /** This process's log file, never replayed. */
  ownLog: string | null;
  /** Hold a lock that guards no files (the replay's own). */
  exclusive<T>(lockRel: string, fn: () => Promise<T>): Promise<T>;
  /** Run `fn` under the scope's lock, its journal left as it is (the replay judges it). */
  underLock<T>(scope: Scope, fn: () => Promise<T>): Promise<T>;
  /** Replay one scope's logged commits, its journal with them (see Journals.replayScope). */
  replay(scope: Scope, records: CommitRecord[]): Promise<Settled>;
  /** Make everything written durable (the log's checkpoint). */
  checkpoint(): Promise<void>;
}

function scopeOfRecord(name: string): Scope | null {
  if (name === 'board') return { kind: 'board' };
  const id = name.startsWith('run ') ? name.slice(4) : '';
  return isRunId(id) ? { kind: 'run', id } : null;
}

/**
 * Replay the commit logs of an earlier boot of this host: they may hold
 * commits whose renames, journal, audit append or data a power loss took
 * from the page cache. Runs before this process's first commit, so nothing
 * is ever committed on top of a state they would still change; the replay
 * lock makes processes starting together wait for one replay. Each log's
 * whole records (a torn tail is dropped by the framing) are grouped by scope
 * and replayed under the scope's lock with what its journal holds, in the
 * scope's commit order, exactly once, torn files and chain tails repaired
 * (see Journals.replayScope). Every scope with a journal is replayed so, even
 * with no record: a journal a power loss left may be a recycled file's old
 * bytes. A checkpoint makes what they wrote durable before the logs go. Logs
 * of this boot are never replayed: their page cache survived their writer
 * (see commit-log.ts).
 */
export async function replayEarlierBoots(host: ReplayHost): Promise<ReplayReport> {
  const report: ReplayReport = { logs: [], commits: 0, written: [], left: [] };
  const earlier = () => findLogs(host.files.root, host.ownLog).filter((l) => l.kind === 'earlier-boot');
  if (earlier().length === 0) return report;
  return host.exclusive(REPLAY_LOCK, async () => {
    const logs = earlier(); // again, under the lock: another process may have replayed them meanwhile
    if (logs.length === 0) return report;
    const byScope = new Map<string, { scope: Scope; records: CommitRecord[] }>();
    for (const l of logs) {
      for (const r of readLog(host.files.abs(l.rel)).records as CommitRecord[]) {
        const scope = typeof r === 'object' && r !== null && typeof r.scope === 'string' ? scopeOfRecord(r.scope) : null;
        if (!scope || !isWhole(r)) continue;
        const entry = byScope.get(r.scope) ?? { scope, records: [] };
        entry.records.push(r);
        byScope.set(r.scope, entry);
      }
    }
    for (const n of await listDir(host.files.abs(JOURNAL_DIR))) {
      const scope = scopeOfStateName(n, '.json');
      if (scope && !byScope.has(scopeFiles(scope).name)) byScope.set(scopeFiles(scope).name, { scope, records: [] });
    }
    for (const { scope, records } of byScope.values()) {
      const done = await host.underLock(scope, () => host.replay(scope, records));
      report.commits += records.length;
      report.written.push(...done.written);
      report.left.push(...done.left);
    }
    await host.checkpoint();
    for (const l of logs) if (await removeIfExists(host.files.abs(l.rel))) report.logs.push(l.rel);
    return report;
  });
}

/** What recovery needs of the store: its files, its clock, and taking locks the way writers do. */
export interface RecoveryHost {
  files: SafeFiles;
  /** Replay the logs of an earlier boot, once per process (see `replayEarlierBoots`). */
  replayLogs(): Promise<ReplayReport>;
  /** This process's log file, and its checkpoint, which also removes the logs of dead processes of this boot. */
  ownLog(): string | null;
  checkpoint(): Promise<void>;
  lockStaleMs: number;
  now(): Date;
  /** Take and release a scope's lock with an empty transaction: its journal rolls forward, a dead holder's lock is broken. */
  settleScope(scope: Scope): Promise<void>;
  /** Take and release a lock that guards no files: a stale one is broken, and letting go of it removes it. */
  settleLock(rel: string): Promise<void>;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).sort();
  } catch (e) {
    if (isCode(e, 'ENOENT', 'ENOTDIR')) return [];
    throw e;
  }
}

/** The locks in `lockDir` whose holder is gone, each with the scope it guards (a run, the board), or null for any other lock. */
async function staleLocks(lockDir: string, staleMs: number, now: number): Promise<{ name: string; scope: Scope | null }[]> {
  const out: { name: string; scope: Scope | null }[] = [];
  for (const name of await listDir(lockDir)) if (await lockIsStale(path.join(lockDir, name), staleMs, now)) out.push({ name, scope: scopeOfStateName(name, '.lock') });
  return out;
}

/** The scopes whose lock in `lockDir` a dead writer holds: a transaction on each breaks it and removes the writer's temp files. */
export async function deadHeldScopes(lockDir: string, staleMs: number, now: number): Promise<Scope[]> {
  return (await staleLocks(lockDir, staleMs, now)).flatMap((l) => (l.scope ? [l.scope] : []));
}

/**
 * Bring the board to a whole state after crashes (start-up, `doctor`): replay
 * the commit logs of an earlier boot; roll forward every pending journal;
 * break the locks of dead holders (audited on the chain of what they
 * guarded); remove what dead writers left behind: their commit logs (after a
 * checkpoint makes what they wrote durable), temp files, lock-break guards,
 * and run folders of starts that never committed. Nothing a live writer holds
 * is touched, its log included.
 */
export async function recover(host: RecoveryHost): Promise<RecoveryReport> {
  const { files } = host;
  const replayed = await host.replayLogs();
  const report: RecoveryReport = { rolledForward: [], brokenLocks: [], removed: [], replayed };
  for (const n of await listDir(files.abs(JOURNAL_DIR))) {
    const scope = scopeOfStateName(n, '.json');
    if (!scope) continue;
    await host.settleScope(scope);
    report.rolledForward.push(scopeFiles(scope).name);
  }
  for (const { name: n, scope } of await staleLocks(files.abs(LOCKS_DIR), host.lockStaleMs, host.now().getTime())) {
    if (scope) await host.settleScope(scope);
    // Any other lock (a break guard, a request's, a named one: sync, notify-…): taking a stale one breaks it,
    // letting go of it removes it. Left alone, a lock nobody takes again (a notification already sent) stays stale.
    else if (n.endsWith('.lock') || n.endsWith('.break')) await host.settleLock(`${LOCKS_DIR}/${n}`);
    else continue;
    report.brokenLocks.push(n);
  }
  const dead = findLogs(files.root, host.ownLog()).filter((l) => l.kind === 'dead');
  // Not reported: a CLI command leaves its log at exit as a matter of course (see commit-log.ts).
  if (dead.length > 0) await host.checkpoint();
  // Not reported either: a process killed before its exit hook leaves its spares (see spares.ts).
  for (const n of await listDir(files.abs(SPARE_DIR))) if (isDeadSpare(n, pidAlive)) await removeIfExists(files.abs(`${SPARE_DIR}/${n}`));
  for (const dir of [STATE_DIR, REQUESTS_DIR, JOURNAL_DIR]) {
    for (const n of await listDir(files.abs(dir))) {
      if (isDeadTemp(n, pidAlive) && (await removeIfExists(files.abs(`${dir}/${n}`)))) report.removed.push(`${dir}/${n}`);
    }
  }
  for (const id of await listDir(files.abs(RUNS_DIR))) {
    if (isRunId(id) && (await removeUnstartedRun(files, id))) report.removed.push(paths.runDir(id));
  }
  return report;
}

/**
 * A run folder without RUN.md, no pending journal and no live lock holds
 * nothing but what a start that died before committing left: temps, an empty
 * leases folder, or a chain of nothing but `lock.broken` (written by earlier
 * versions). Such a folder is removed; anything else is left for `audit verify`.
 */
async function removeUnstartedRun(files: SafeFiles, id: string): Promise<boolean> {
  const sf = scopeFiles({ kind: 'run', id });
  if (existsSync(files.abs(paths.runFile(id))) || existsSync(files.abs(sf.journal)) || existsSync(files.abs(sf.lock))) return false;
  const dir = paths.runDir(id);
  const names = await listDir(files.abs(dir));
  for (const n of names) {
    if (n.includes(TEMP_MARK)) continue;
    if (n !== 'audit.jsonl') return false;
    const report = verifyChain((await files.readBytes(`${dir}/${n}`))?.toString('utf8') ?? '');
    if (report.breaks.length > 0 || report.events.some((e) => e.action !== 'lock.broken')) return false;
  }
  for (const n of names) await removeIfExists(files.abs(`${dir}/${n}`));
  await removeIfEmpty(files.abs(paths.leaseDir(id)));
  return removeIfEmpty(files.abs(dir));
}

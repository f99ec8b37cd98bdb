/**
 * Recovery after crashes: finishing or discarding what dead writers left
 * (journals, locks, temp files, half-made run folders), at start-up and in
 * `doctor`, and a scope's temp files when its lock was broken.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { verifyChain } from './audit.js';
import { isCode, isDeadTemp, removeIfEmpty, removeIfExists, TEMP_MARK } from './fsutil.js';
import { isRunId, paths, scopeFiles, STATE_DIR, type Scope } from './layout.js';
import { lockIsStale, pidAlive } from './lock.js';
import type { SafeFiles } from './safe-files.js';

export interface RecoveryReport {
  rolledForward: string[];
  brokenLocks: string[];
  removed: string[];
}

/** What recovery needs of the store: its files, its clock, and taking locks the way writers do. */
export interface RecoveryHost {
  files: SafeFiles;
  lockStaleMs: number;
  now(): Date;
  /** Take and release a scope's lock with an empty transaction: its journal rolls forward, a dead holder's lock is broken. */
  settleScope(scope: Scope): Promise<void>;
  /** Take and release a lock that guards no files: a stale one is broken, and letting go of it removes it. */
  settleLock(rel: string): Promise<void>;
}

/** The scope a journal or lock file's name stands for (`board.json`, `run-r-….lock`), or null. */
function scopeOfName(name: string, ext: string): Scope | null {
  if (name === `board${ext}`) return { kind: 'board' };
  const m = new RegExp(`^run-(r-[0-9a-z]{26})\\${ext}$`).exec(name);
  return m ? { kind: 'run', id: m[1]! } : null;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).sort();
  } catch (e) {
    if (isCode(e, 'ENOENT', 'ENOTDIR')) return [];
    throw e;
  }
}

/** Remove a scope's temp files. Call only under its lock, when no live writer can own one. */
export async function cleanTemps(files: SafeFiles, scope: Scope): Promise<void> {
  for (const dir of scopeFiles(scope).dirs) {
    let names: string[];
    try {
      names = await fs.readdir(files.abs(dir));
    } catch (e) {
      if (isCode(e, 'ENOENT', 'ENOTDIR')) continue;
      throw e;
    }
    for (const n of names) if (n.includes(TEMP_MARK)) await removeIfExists(files.abs(path.join(dir, n)));
  }
}

/**
 * Bring the board to a whole state after crashes (start-up, `doctor`): roll
 * forward every pending journal; break the locks of dead holders (audited on
 * the chain of what they guarded); remove what dead writers left behind:
 * temp files, lock-break guards, and run folders of starts that never
 * committed. Nothing a live writer holds is touched.
 */
export async function recover(host: RecoveryHost): Promise<RecoveryReport> {
  const { files } = host;
  const report: RecoveryReport = { rolledForward: [], brokenLocks: [], removed: [] };
  for (const n of await listDir(files.abs(`${STATE_DIR}/journal`))) {
    const scope = scopeOfName(n, '.json');
    if (!scope) continue;
    await host.settleScope(scope);
    report.rolledForward.push(scopeFiles(scope).name);
  }
  const lockDir = `${STATE_DIR}/locks`;
  for (const n of await listDir(files.abs(lockDir))) {
    const rel = `${lockDir}/${n}`;
    if (!(await lockIsStale(files.abs(rel), host.lockStaleMs, host.now().getTime()))) continue;
    const scope = scopeOfName(n, '.lock');
    if (scope) await host.settleScope(scope);
    // Taking a stale guard or request lock breaks it; letting go of it removes it.
    else if (n.endsWith('.break') || n.startsWith('request-')) await host.settleLock(rel);
    else continue;
    report.brokenLocks.push(n);
  }
  for (const dir of [STATE_DIR, `${STATE_DIR}/requests`]) {
    for (const n of await listDir(files.abs(dir))) {
      if (isDeadTemp(n, pidAlive) && (await removeIfExists(files.abs(`${dir}/${n}`)))) report.removed.push(`${dir}/${n}`);
    }
  }
  for (const id of await listDir(files.abs('runs'))) {
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

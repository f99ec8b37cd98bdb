/**
 * Is git at work on a board's repository now? Its index lock is held, or HEAD
 * moved a moment ago: a merge hook may be about to make the board's runs
 * whole, so what changed is not yet anyone's edit. These are git's own files
 * in its folder, never the board's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** How long after git last moved HEAD it still counts as at work. */
const GIT_RECENT_MS = 4000;

/** How long the answer to "which repository holds this board" is kept: asking git is a process spawned while the event loop waits. */
const GIT_DIR_KEPT_MS = 30_000;
const gitDirs = new Map<string, { dir: string | null; at: number }>();

/** The board's repository folder (null: not in one), asked of git at most once per GIT_DIR_KEPT_MS. */
function gitDirOf(root: string, now: number): string | null {
  const kept = gitDirs.get(root);
  if (kept && now - kept.at >= 0 && now - kept.at < GIT_DIR_KEPT_MS) return kept.dir;
  let dir: string | null;
  try {
    dir = execFileSync('git', ['-C', root, 'rev-parse', '--absolute-git-dir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    dir = null;
  }
  gitDirs.set(root, { dir, at: now });
  return dir;
}

export function gitAtWork(root: string, now: number): boolean {
  const gitDir = gitDirOf(root, now);
  if (gitDir === null) return false;
  if (existsSync(path.join(gitDir, 'index.lock'))) return true;
  const moved = Math.max(...['ORIG_HEAD', 'logs/HEAD'].map((f) => statSync(path.join(gitDir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0));
  return now - moved < GIT_RECENT_MS;
}

/** The stamp of the board's git index ('' when there is none): it changes with every git command that stages, checks out or pulls. */
export function gitIndexStamp(root: string, now: number): string | null {
  const gitDir = gitDirOf(root, now);
  if (gitDir === null) return null;
  const st = statSync(path.join(gitDir, 'index'), { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '';
}

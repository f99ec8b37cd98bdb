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

export function gitAtWork(root: string, now: number): boolean {
  let gitDir: string;
  try {
    gitDir = execFileSync('git', ['-C', root, 'rev-parse', '--absolute-git-dir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return false;
  }
  if (existsSync(path.join(gitDir, 'index.lock'))) return true;
  const moved = Math.max(...['ORIG_HEAD', 'logs/HEAD'].map((f) => statSync(path.join(gitDir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0));
  return now - moved < GIT_RECENT_MS;
}

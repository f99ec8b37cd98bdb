/**
 * Is git at work on a board's repository now? Its index lock is held, or HEAD
 * moved a moment ago: a merge hook may be about to make the board's runs
 * whole, so what changed is not yet anyone's edit. These are git's own files
 * in its folder, never the board's.
 */
import { readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { STATE_DIR } from '../board/layout.js';

/** How long after git last moved HEAD it still counts as at work. */
const GIT_RECENT_MS = 4000;

/**
 * The board's repository folder (null: not in one), found the way git finds
 * it: GIT_DIR, else the nearest `.git` upwards, a folder or a file naming one
 * (a linked worktree or a submodule). Read from disk rather than asked of
 * `git rev-parse`: a spawned process costs every CLI call tens of
 * milliseconds.
 */
export function gitDirOf(root: string): string | null {
  if (process.env.GIT_DIR) return path.resolve(process.env.GIT_DIR);
  for (let dir = path.resolve(root); ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    const st = statSync(dotGit, { throwIfNoEntry: false });
    if (st?.isDirectory()) return dotGit;
    if (st?.isFile()) {
      const named = /^gitdir:\s*(.+?)\s*$/m.exec(readOr(dotGit));
      if (named?.[1]) return path.resolve(dir, named[1]);
    }
    if (path.dirname(dir) === dir) return null;
  }
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export function gitAtWork(root: string, now: number): boolean {
  const gitDir = gitDirOf(root);
  if (gitDir === null) return false;
  if (existsSync(path.join(gitDir, 'index.lock'))) return true;
  const moved = Math.max(...['ORIG_HEAD', 'logs/HEAD'].map((f) => statSync(path.join(gitDir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0));
  return now - moved < GIT_RECENT_MS;
}

/** The stamp of the board's git index ('' when there is none): it changes with every git command that stages, checks out or pulls. */
export function gitIndexStamp(root: string): string | null {
  const gitDir = gitDirOf(root);
  if (gitDir === null) return null;
  const st = statSync(path.join(gitDir, 'index'), { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '';
}

/**
 * Whether git's index may name a path under a `.work/` folder. Index versions
 * 2 and 3 store every path whole, so bytes without `.work/` name none. Any
 * other version (4 shares path prefixes between entries), an index that
 * leaves entries elsewhere (a split index's `link` extension, a sparse
 * index's `sdir`: their names anywhere in the bytes), another index file
 * (GIT_INDEX_FILE) or an unreadable one may, and git is asked. A false "may"
 * costs one spawn; a false "cannot" would be a bug, so every doubt answers
 * "may".
 */
export function indexMayNameState(gitDir: string): boolean {
  if (process.env.GIT_INDEX_FILE) return true;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(gitDir, 'index'));
  } catch {
    return true;
  }
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'DIRC') return true;
  const version = bytes.readUInt32BE(4);
  if (version !== 2 && version !== 3) return true;
  return bytes.includes('link') || bytes.includes('sdir') || bytes.includes(`${STATE_DIR}/`);
}

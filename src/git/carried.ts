/**
 * `workboard log <run> --git`: which commit first carried each line of a
 * chain. A line is known by its hash, not its place, so a merge that kept the
 * other side's lines names the commits that wrote those. The commits touching
 * the chain are read oldest first (ancestors before descendants), with each
 * merge's diff against its first parent, in one `git log -p`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BoardError } from '../board/errors.js';

const run = promisify(execFile);

export interface Carrier {
  commit: string;
  short: string;
  /** The commit date, ISO 8601. */
  date: string;
}

async function git(root: string, ...args: string[]): Promise<string> {
  return (await run('git', ['-C', root, ...args], { maxBuffer: 256 * 1024 * 1024 })).stdout;
}

/** The first commit adding each line hash, from `git log --reverse -p` output whose commits start with a NUL. */
export function firstCarriers(log: string): Map<string, Carrier> {
  const out = new Map<string, Carrier>();
  let current: Carrier | null = null;
  for (const line of log.split('\n')) {
    if (line.startsWith('\0')) {
      const [commit, short, date] = line.slice(1).split('\t');
      current = { commit: commit!, short: short!, date: date! };
    } else if (current && line.startsWith('+') && !line.startsWith('+++ ')) {
      try {
        const hash = (JSON.parse(line.slice(1)) as { hash?: unknown }).hash;
        if (typeof hash === 'string' && !out.has(hash)) out.set(hash, current);
      } catch {
        // not an audit line: it carries nothing to find
      }
    }
  }
  return out;
}

/** For the chain at `rel` (relative to the board root), the commit that first carried each line, by line hash. */
export async function carriers(root: string, rel: string): Promise<Map<string, Carrier>> {
  try {
    if ((await git(root, 'rev-parse', '--is-inside-work-tree')).trim() !== 'true') throw new Error('not a work tree');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new BoardError('invalid', 'git is not installed: log --git needs the git command');
    throw new BoardError('invalid', `not a git repository: ${root} is not inside a git work tree, so log --git has no commits to show`);
  }
  const head = await git(root, 'rev-parse', '--verify', '-q', 'HEAD').catch(() => null);
  if (head === null) return new Map(); // nothing committed yet
  const log = await git(root, 'log', '--reverse', '--topo-order', '--diff-merges=first-parent', '-p', '-U0', '--no-textconv', '--no-ext-diff', '--no-color', '--format=%x00%H%x09%h%x09%cI', '--', rel);
  return firstCarriers(log);
}

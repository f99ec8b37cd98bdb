/**
 * Which of a board's `.work/` records hold what git brought. `.work/` is this
 * coordinator's own (tokens, web sessions, the signing key, journals), yet a
 * pull or a clone writes there whatever a collaborator committed with
 * `git add -f`. A record git tracks whose bytes are still the ones git has
 * for it came from git, not from this coordinator, so the board reads it as
 * absent (docs/git.md "What git never brings"); once this clone writes it, it is its own.
 * git is asked again only when its index changed (a stat per question), and
 * not at all when the index's own bytes show it names no `.work/` path, as on
 * almost every board: a spawned `git ls-files` costs each CLI call tens of
 * milliseconds.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { STATE_DIR } from '../board/layout.js';
import { gitDirOf, gitIndexStamp, indexMayNameState } from './at-work.js';

/** The `.work/` paths (relative to the board root) git tracks now, with the blob each has in git's index. */
export function trackedState(root: string): Map<string, string> {
  let out: string;
  try {
    out = execFileSync('git', ['-C', root, 'ls-files', '-z', '--stage', '--', STATE_DIR], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return new Map(); // not in a git work tree
  }
  // "<mode> <blob> <stage>\t<path>", each ended by a NUL.
  return new Map(
    out.split('\0').flatMap((e) => {
      const m = /^\d+ ([0-9a-f]+) \d\t(.*)$/s.exec(e);
      return m ? [[m[2]!, m[1]!] as [string, string]] : [];
    }),
  );
}

/** The id git gives these bytes as a blob (SHA-1 repositories). */
const blobId = (bytes: Buffer): string => createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');

/** A question the board asks of each state record it reads: are its bytes (read only when git tracks it) the ones git brought? */
export function gitBroughtState(root: string): (rel: string, bytes: () => Buffer | null) => boolean {
  let seen: string | null = null;
  let tracked = new Map<string, string>();
  return (rel, bytes) => {
    const stamp = gitIndexStamp(root);
    if (stamp === null) return false;
    if (stamp !== seen) {
      const gitDir = gitDirOf(root);
      tracked = gitDir !== null && !indexMayNameState(gitDir) ? new Map<string, string>() : trackedState(root);
      seen = stamp;
    }
    const blob = tracked.get(rel);
    if (blob === undefined) return false;
    const now = bytes();
    return now !== null && blobId(now) === blob;
  };
}

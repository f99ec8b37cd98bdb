/**
 * What a commit from elsewhere may never bring into a board's clone
 * (docs/git.md "What git never brings"): anything under `.work/` (tokens, sessions, the signing
 * key, journals: this clone's own, never git's), a path git could write
 * outside the folder it names (`..`, `.`, an empty name, `.git`), and a link
 * or submodule where the board keeps its files (a `runs` that is a symlink
 * would take the board's writes elsewhere). Pure.
 */
import { STATE_DIR, WORK_FILE } from '../board/layout.js';

/** One path a commit changes, as `git diff-tree --raw` gives it: its new mode ('000000' when removed). */
export interface TreeChange {
  mode: string;
  path: string;
}

/** The board's top-level names: where a link or a submodule is refused. */
const BOARD_NAMES = new Set(['runs', 'processes', 'audit', 'files', STATE_DIR, WORK_FILE, '.gitignore', '.gitattributes']);

/**
 * The changes refused, each with why in words. `prefix`: the board's folder
 * in the repository (with a trailing slash, '' at the top); paths are the
 * repository's, so a `..` anywhere in it is refused, the board's or not.
 */
export function refusedChanges(changes: readonly TreeChange[], prefix: string): { path: string; why: string }[] {
  const out: { path: string; why: string }[] = [];
  for (const { mode, path } of changes) {
    const bad = path.split('/').find((n) => n === '..' || n === '.' || n === '' || n.toLowerCase() === '.git');
    if (bad !== undefined) {
      out.push({ path, why: bad === '' ? 'an empty name in it' : `"${bad}" in it` });
      continue;
    }
    if (!path.startsWith(prefix)) continue;
    const top = path.slice(prefix.length).split('/')[0]!;
    if (top === STATE_DIR) out.push({ path, why: `under ${STATE_DIR}/, which never comes from git` });
    else if ((mode === '120000' || mode === '160000') && BOARD_NAMES.has(top))
      out.push({ path, why: mode === '120000' ? 'a symbolic link among the board files' : 'a submodule among the board files' });
  }
  return out;
}

/** The refusal in one line, every path named. */
export function refusalText(what: string, refused: readonly { path: string; why: string }[]): string {
  return `${what} brings ${refused.length === 1 ? 'a path' : `${refused.length} paths`} this clone never takes from git: ${refused.map((r) => `${r.path} (${r.why})`).join(', ')}; nothing was changed: ask whoever pushed it to remove ${refused.length === 1 ? 'it' : 'them'} in a new commit`;
}

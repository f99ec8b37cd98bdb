/**
 * Reading a board's files safely: only paths inside the board, and never
 * through a symbolic link (git can commit links; none is followed).
 */
import path from 'node:path';
import { BoundedMap } from '../core/bounded-map.js';
import { BoardError } from './errors.js';
import { isCode, lstatIfExists, readNoFollow } from './fsutil.js';
import { normalizeRel, scopeFiles, type Scope } from './layout.js';

/** Folders remembered as real (the open runs' and their leases' folders fit many times over). */
const REAL_DIRS = 4096;

export class SafeFiles {
  readonly root: string;
  /**
   * Folders already seen to be real folders (not links), so each is checked once per store.
   * Bounded: every run has folders of its own, and a long-lived server sees them all; one
   * forgotten costs an lstat.
   */
  private readonly realDirs = new BoundedMap<string, true>(REAL_DIRS);

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  abs(rel: string): string {
    return path.join(this.root, rel);
  }

  /**
   * A file's bytes, or null when absent. Refuses a path that leaves the board
   * or passes through a symbolic link.
   */
  async readBytes(rel: string, opts: { fresh?: boolean } = {}): Promise<Buffer | null> {
    const norm = normalizeRel(rel);
    if (norm === null) throw new BoardError('invalid', `not a path inside the board: ${JSON.stringify(rel)}`);
    // The folders are checked here; the file itself is opened without following a link (ELOOP).
    await this.assertNoLinks(norm, opts.fresh, false);
    try {
      return readNoFollow(this.abs(norm));
    } catch (e) {
      if (isCode(e, 'ELOOP')) throw linkError(norm, norm);
      // Something other than a file where a board file belongs is a bad edit, never a transient fault.
      if (isCode(e, 'EISDIR'))
        throw new BoardError('invalid', `${norm} is a folder where a file belongs; remove it or restore the file from git`, [{ path: norm, message: 'is a folder, not a file' }]);
      if (isCode(e, 'ENOTDIR')) return null;
      throw e;
    }
  }

  /** A scope's folders are checked afresh by each transaction and read: one could have been swapped for a link since. */
  forgetDirs(scope: Scope): void {
    for (const d of scopeFiles(scope).dirs) this.realDirs.delete(this.abs(d));
  }

  /**
   * No component of the path below the root may be a symbolic link; `fresh`
   * checks folders already seen again. `file: false` checks the folders only:
   * for a file replaced by rename (a rename replaces a link, never follows it)
   * or opened without following one.
   */
  async assertNoLinks(rel: string, fresh = false, file = true): Promise<void> {
    let cur = this.root;
    const parts = rel.split('/');
    for (const [i, part] of parts.entries()) {
      cur = path.join(cur, part);
      const dir = i < parts.length - 1;
      if (!dir && !file) return;
      if (dir && !fresh && this.realDirs.get(cur)) continue;
      const st = lstatIfExists(cur);
      if (st === null) return;
      if (st.isSymbolicLink()) throw linkError(rel, path.relative(this.root, cur));
      if (dir && st.isDirectory()) this.realDirs.set(cur, true);
    }
  }
}

function linkError(rel: string, at: string): BoardError {
  return new BoardError('invalid', `${rel} passes through a symbolic link; workboard never follows links inside a board`, [{ path: at, message: 'is a symbolic link' }]);
}

/**
 * Reads without a transaction, for what is rebuilt from the board and only
 * compared against it (the run index, the open-run cache, the insights
 * history) and for doctor: the names in a folder, a file's or a folder's
 * stat, a file's stamp, a file's bytes. Any path inside the board, committed
 * or under `.work/`; a path that could leave the board is refused. None of
 * these is a consistent view of a scope (that is `store.snapshot`): a caller
 * keeps what it reads only while the stamps it took stay the same.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import path from 'node:path';
import { bigStatIfExists, isCode, readNoFollow } from './fsutil.js';

/** What a stamp is made of, in nanoseconds where the file system keeps them. */
export interface Stat {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  /** Hard links: for a folder, 2 + its subfolders where the file system counts them so. */
  links: number;
  isFile: boolean;
}

/** An empty segment (so also a leading or trailing `/`), `.` or `..`, a backslash or NUL: not a plain path inside the board. */
const UNSAFE = /(^|\/)\.{0,2}(\/|$)|\\|\0/;

export class Listing {
  private readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The names in a folder, sorted; null when it does not exist (or is not a folder). */
  names(dir: string): string[] | null {
    try {
      return readdirSync(this.abs(dir)).sort();
    } catch (e) {
      if (isCode(e, 'ENOENT', 'ENOTDIR')) return null;
      throw e;
    }
  }

  /**
   * The names in a folder, in the order the folder gives them, each with whether it is a symbolic link as
   * the listing itself says (null where the file system does not say); null
   * when the folder is absent, not a folder, or a link itself.
   */
  typedNames(dir: string): { name: string; link: boolean | null }[] | null {
    try {
      return readdirSync(this.abs(dir), { withFileTypes: true }).map((d) => ({ name: d.name, link: d.isSymbolicLink() ? true : d.isDirectory() || d.isFile() ? false : null }));
    } catch (e) {
      if (isCode(e, 'ENOENT', 'ENOTDIR')) return null;
      throw e;
    }
  }

  /**
   * A file's bytes and the stamp of those very bytes (`stamp`'s form), taken
   * with one open, fstat, read and close, where a stamp and a read cost a stat
   * and an lstat more; null when absent, not a file, or a symbolic link (not followed).
   */
  readStamped(rel: string): { bytes: Buffer; stamp: string } | null {
    let fd: number;
    try {
      fd = openSync(this.abs(rel), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (e) {
      if (isCode(e, 'ENOENT', 'ELOOP', 'ENOTDIR')) return null;
      throw e;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      if (!st.isFile()) return null;
      const bytes = Buffer.allocUnsafeSlow(Number(st.size));
      let n = 0;
      for (let r = 1; n < bytes.length && r > 0; n += r) r = readSync(fd, bytes, n, bytes.length - n, n);
      return { bytes: bytes.subarray(0, n), stamp: stampOf(st) };
    } finally {
      closeSync(fd);
    }
  }

  /** A file's or folder's stat, or null when absent. */
  stat(rel: string): Stat | null {
    const st = bigStatIfExists(this.abs(rel));
    return st && { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, links: Number(st.nlink), isFile: st.isFile() };
  }

  /** A file's inode, size and mtime ('' when absent): any replacement (a rename always is) or rewrite changes it. */
  stamp(rel: string): string {
    const st = bigStatIfExists(this.abs(rel));
    return st ? stampOf(st) : '';
  }

  /** A file's bytes as they are now, or null when absent; never through a symbolic link (those read as absent). */
  readNow(rel: string): Buffer | null {
    try {
      return readNoFollow(this.abs(rel));
    } catch (e) {
      if (isCode(e, 'ELOOP', 'ENOTDIR')) return null;
      throw e;
    }
  }

  // Joined by hand, not by path.join: the insights history stats every run's chain, 10k of them a page.
  private abs(rel: string): string {
    if (UNSAFE.test(rel)) throw new Error(`not a path inside the board: ${JSON.stringify(rel)}`);
    return `${this.root}/${rel}`;
  }
}

/** The stamp `Listing.stamp` gives, of a stat already taken. */
export function stampOf(st: Pick<Stat, 'ino' | 'size' | 'mtimeNs'>): string {
  return `${st.ino}:${st.size}:${st.mtimeNs}`;
}

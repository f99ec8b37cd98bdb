/**
 * Spare files: lock files and journals this process is done with, kept under
 * `.work/spare/` to be written again instead of deleted and created anew.
 *
 * Why: every transition takes a lock file and writes a journal, and both are
 * gone once it commits. Creating a file costs the file system an inode, and
 * deleting one leaves it "recently deleted": on ext4 without a journal (the
 * bench machines' disk) every new inode is searched for past those, so under
 * load each creation cost 0.3–0.8 ms of kernel time, more than the rest of a
 * transition (docs/architecture.md "Recycled lock files and journals"). PostgreSQL recycles its WAL segment files
 * by renaming for the same reason.
 *
 * Only locks and journals are recycled. Their lock-free readers use what they
 * read only to wait or retry (a lock's holder, whether a commit is in flight),
 * and a spare appears under its new name by `link`, whole, so a reader that
 * catches a recycled file mid-write takes it for a live lock or a commit in
 * flight and waits. Board files and `.work/` records are never recycled: a
 * reader could open one just before it was reused and read another file's bytes.
 *
 * A spare is named `<host>-<pid>-<random>-<n>`; only the process that parked
 * it takes it again (its names are in memory), so two processes never share
 * one. Each process removes its own at exit; recovery removes a dead one's.
 * A spare is written only while it is a plain file with one link, so it can
 * never be a board file's other name.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, ftruncateSync, linkSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createExclusive, HOST, isCode, lstatIfExists, removeIfExists } from './fsutil.js';
import { SPARE_DIR } from './layout.js';

export { SPARE_DIR };

/** Spares kept per process: more than the locks it holds at once, so a release always has room. */
const KEEP = 32;

export class Spares {
  private static readonly pools = new Map<string, Spares>();
  private static exitHook = false;

  /** This process's spares for the board at `root`. */
  static of(root: string): Spares {
    let pool = Spares.pools.get(root);
    if (!pool) {
      pool = new Spares(root);
      Spares.pools.set(root, pool);
    }
    return pool;
  }

  private readonly dir: string;
  private readonly prefix = `${HOST}-${process.pid}-${randomBytes(4).toString('hex')}-`;
  private readonly free: string[] = [];
  private n = 0;

  private constructor(root: string) {
    this.dir = path.join(root, SPARE_DIR);
  }

  /**
   * Create `file` holding `data`, failing (false) when it exists, like
   * `createExclusive`; from a spare when there is one. The file appears whole.
   */
  async create(file: string, data: string | Uint8Array): Promise<boolean> {
    const spare = this.free.pop();
    if (spare === undefined || !fill(spare, data)) return createExclusive(file, data);
    let linked = link(spare, file);
    if (linked === 'no folder') {
      mkdirSync(path.dirname(file), { recursive: true });
      linked = link(spare, file);
    }
    if (linked === 'exists') {
      this.free.push(spare);
      return false;
    }
    dropQuietly(spare);
    // A file system without hard links, or a spare gone: the plain way.
    return linked === 'done' ? true : createExclusive(file, data);
  }

  /** Remove `file`, keeping it as a spare while there is room. False when it was not there. */
  async remove(file: string): Promise<boolean> {
    if (this.free.length >= KEEP) return removeIfExists(file);
    const spare = this.nextName();
    try {
      renameSync(file, spare);
    } catch (e) {
      if (!isCode(e, 'ENOENT', 'EXDEV')) throw e;
      // Not there, or the spare folder is missing or elsewhere: make it and retry once, else delete.
      try {
        mkdirSync(this.dir, { recursive: true });
        renameSync(file, spare);
      } catch {
        return removeIfExists(file);
      }
    }
    this.free.push(spare);
    this.exitHook();
    return true;
  }

  private nextName(): string {
    return path.join(this.dir, `${this.prefix}${++this.n}`);
  }

  private exitHook(): void {
    if (Spares.exitHook) return;
    Spares.exitHook = true;
    process.once('exit', () => {
      for (const pool of Spares.pools.values()) for (const f of pool.free.splice(0)) dropQuietly(f);
    });
  }
}

/** Overwrite a spare with `data`; false (the spare dropped) unless it is a plain file with one link. */
function fill(spare: string, data: string | Uint8Array): boolean {
  // Checked before the open truncates it. Only this process renames files into its spares,
  // so nothing gives one a second name between the two calls but a hand in `.work/spare/`.
  const st = lstatIfExists(spare);
  if (st === null || !st.isFile() || st.nlink !== 1) {
    dropQuietly(spare);
    return false;
  }
  // Written over from the start and cut to its new length, never truncated to nothing first: on
  // ext4 a file cut to zero and written again is flushed on close (auto_da_alloc), and the
  // truncation costs a journal transaction; together most of a lock's cost on a journaled ext4.
  let fd: number;
  try {
    fd = openSync(spare, constants.O_WRONLY | constants.O_NOFOLLOW);
  } catch {
    dropQuietly(spare);
    return false;
  }
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at, at);
    if (st.size > bytes.length) ftruncateSync(fd, bytes.length);
    return true;
  } catch {
    dropQuietly(spare);
    return false;
  } finally {
    closeSync(fd);
  }
}

/** `link`, which fails when the new name exists: what makes it an exclusive create. */
function link(from: string, to: string): 'done' | 'exists' | 'no folder' | 'failed' {
  try {
    linkSync(from, to);
    return 'done';
  } catch (e) {
    if (isCode(e, 'EEXIST')) return 'exists';
    if (isCode(e, 'ENOENT')) return 'no folder';
    return 'failed';
  }
}

function dropQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already; nothing else holds it
  }
}

/** Is this spare's process gone (same host, pid not alive)? Names carry both (see `Spares`). */
export function isDeadSpare(name: string, alive: (pid: number) => boolean): boolean {
  const m = /^(.*)-(\d+)-[0-9a-f]{8}-\d+$/.exec(name);
  return m !== null && m[1] === HOST && !alive(Number(m[2]));
}

/**
 * The few file operations the write path is built from, with their fsyncs.
 *
 * Everything but the fsyncs is synchronous, on purpose. Board files are
 * small and sit in the page cache: a blocking open, write, rename or stat
 * takes microseconds, where each asynchronous call is a thread-pool round
 * trip costing more CPU than the work itself (strace counted about 130 of
 * them per transition). An fsync waits for the disk, so it stays on the
 * thread pool, where a commit's fsyncs run side by side and other callers
 * go on meanwhile.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  constants,
  fdatasync,
  fsync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { promisify } from 'node:util';
import { hostname, uptime } from 'node:os';
import path from 'node:path';
import { randomHex } from '../core/ids.js';

export const HOST = hostname();

/**
 * This boot of the machine: a log written in another boot may have lost its
 * data files' page cache (a power loss), one of this boot cannot (see commit-log.ts).
 * Linux says it; elsewhere the boot time, to the minute, stands in.
 */
export const BOOT_ID = ((): string => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return `booted-${Math.round((Date.now() / 1000 - uptime()) / 60)}`;
  }
})();

const fsyncNow = promisify(fsync);
const fdatasyncNow = promisify(fdatasync);
const execFileNow = promisify(execFile);
let fsyncs = 0;

/** Every fsync of this process goes through here, counted for the bench (`fsyncCount`). */
function fsyncFd(fd: number): Promise<void> {
  fsyncs++;
  return fsyncNow(fd);
}

/** Flush a file's data (and its size), not its other metadata: the commit log's one flush per group. */
export function fdatasyncFd(fd: number): Promise<void> {
  fsyncs++;
  return fdatasyncNow(fd);
}

/**
 * Flush every file system the board lives on (Linux syncfs, through coreutils
 * `sync --file-system`, since Node has no binding): one flush, counted as one.
 * False when it could not be run; the caller then fsyncs what it touched.
 */
export async function syncFileSystem(dir: string): Promise<boolean> {
  fsyncs++;
  try {
    await execFileNow('sync', ['--file-system', dir]);
    return true;
  } catch {
    return false;
  }
}

/** The same, blocking: for `process.on('exit')`, where nothing asynchronous runs. */
export function syncFileSystemNow(dir: string): boolean {
  fsyncs++;
  try {
    execFileSync('sync', ['--file-system', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** fsync a file or folder by path; nothing there is nothing to flush. */
export async function fsyncPath(file: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY);
  } catch (e) {
    if (isCode(e, 'ENOENT', 'ENOTDIR')) return;
    throw e;
  }
  try {
    await fsyncFd(fd);
  } catch (e) {
    if (!isCode(e, 'EISDIR', 'EINVAL', 'EPERM')) throw e;
  } finally {
    closeSync(fd);
  }
}

/** How many flushes this process has asked for (fsync, fdatasync, syncfs; files and folders alike): the bench's fsyncs per transition. */
export function fsyncCount(): number {
  return fsyncs;
}

/**
 * Read a whole small file, or null when it does not exist. A file that may well
 * be missing (a step not reached yet, a lease not taken) is looked for with a
 * stat first: an open that fails builds an exception, which costs more than both calls.
 */
export async function readIfExists(file: string): Promise<Buffer | null> {
  if (lstatIfExists(file) === null) return null;
  try {
    return readFileSync(file);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return null;
    throw e;
  }
}

/**
 * Read a whole small file that is almost always there (a lock being let go), or
 * null when it is not: no stat first, which only pays when the file is often missing.
 */
export function readPresent(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return null;
    throw e;
  }
}

/** A file's bytes, or null when it does not exist; a symbolic link is not followed (ELOOP). */
export function readNoFollow(file: string): Buffer | null {
  if (lstatIfExists(file) === null) return null;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return null;
    throw e;
  }
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function isCode(e: unknown, ...codes: string[]): boolean {
  return typeof e === 'object' && e !== null && codes.includes((e as NodeJS.ErrnoException).code ?? '');
}

/** A temp file name in the same directory, so rename never crosses a filesystem. */
export function tempPathFor(file: string): string {
  return `${file}.tmp-${HOST}-${process.pid}-${randomHex(4)}`;
}

export const TEMP_MARK = '.tmp-';

/**
 * Create a file that must not exist yet (O_CREAT|O_EXCL) with its bytes, making
 * its folder when missing. False when it already exists. `sync` fsyncs it.
 * The file is created and written before the returned promise is first awaited
 * (only the fsync is asynchronous): the journal relies on this.
 */
export async function createExclusive(file: string, data: string | Uint8Array, opts: { mode?: number; sync?: boolean } = {}): Promise<boolean> {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, opts.mode ?? 0o644);
  } catch (e) {
    if (isCode(e, 'EEXIST')) return false;
    if (!isCode(e, 'ENOENT')) throw e;
    mkdirSync(path.dirname(file), { recursive: true });
    return createExclusive(file, data, opts);
  }
  try {
    writeFileSync(fd, data);
    if (opts.sync) await fsyncFd(fd);
  } catch (e) {
    // A full disk fails the write after the create: leave no empty or partial file behind.
    closeQuietly(fd);
    removeQuietly(file);
    throw e;
  }
  closeSync(fd);
  return true;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already failing; the first error is the one reported
  }
}

/** Remove a file if it is there (a temp a failed write left), saying nothing either way. */
export function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // nothing there, or nothing more to be done
  }
}

/** Rename within one folder tree (atomic on one filesystem). */
export function renameNow(from: string, to: string): void {
  renameSync(from, to);
}

// The stats below ask for no exception when nothing is there: building one costs
// more than the stat itself, and get_work stats folders that often do not exist.
// A path through something that is not a folder (ENOTDIR) is nothing there too.
function orNull<T>(stat: () => T | undefined): T | null {
  try {
    return stat() ?? null;
  } catch (e) {
    if (isCode(e, 'ENOTDIR')) return null;
    throw e;
  }
}

/** A path's lstat (a link is not followed), or null when nothing is there. */
export function lstatIfExists(file: string): Stats | null {
  return orNull(() => lstatSync(file, { throwIfNoEntry: false }));
}

/** Write a file's bytes to a new temp file beside it and fsync it (unless `durable` is false). Returns the temp path. */
export async function writeTemp(file: string, data: string | Uint8Array, opts: { mode?: number; durable?: boolean } = {}): Promise<string> {
  const tmp = tempPathFor(file);
  if (!(await createExclusive(tmp, data, { sync: opts.durable !== false, ...(opts.mode === undefined ? {} : { mode: opts.mode }) }))) throw new Error(`temp file ${tmp} already exists`);
  return tmp;
}

export async function fsyncDir(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    await fsyncFd(fd);
  } catch (e) {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
    if (!isCode(e, 'EISDIR', 'EINVAL', 'EPERM', 'ENOENT')) throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A file's stat, or null when it does not exist. */
export function statIfExists(file: string): Stats | null {
  return orNull(() => statSync(file, { throwIfNoEntry: false }));
}

/** The same with nanosecond times (bigint fields). */
export function bigStatIfExists(file: string): BigIntStats | null {
  return orNull(() => statSync(file, { bigint: true, throwIfNoEntry: false }));
}

/**
 * A file's identity and version: its inode, size and mtime in nanoseconds, or
 * '' when absent. Changes whenever the file is replaced (an atomic rename
 * always is) or rewritten.
 */
export function fileStamp(file: string): string {
  const st = bigStatIfExists(file);
  return st ? `${st.ino}:${st.size}:${st.mtimeNs}` : '';
}

/**
 * Replace a file atomically: temp + fsync + rename + directory fsync. With
 * `durable: false` (a cache) neither flush: a reader still sees the old bytes
 * or the new, but a power loss may leave the old, or a torn file, which the
 * cache's reader must take for absent.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, opts: { mode?: number; durable?: boolean } = {}): Promise<void> {
  const tmp = await writeTemp(file, data, opts);
  try {
    renameSync(tmp, file);
  } catch (e) {
    removeQuietly(tmp);
    throw e;
  }
  if (opts.durable !== false) await fsyncDir(path.dirname(file));
}

/** Remove a folder if it is empty (a write that failed before its first file landed); true when removed. */
export async function removeIfEmpty(dir: string): Promise<boolean> {
  try {
    rmdirSync(dir);
    return true;
  } catch (e) {
    if (isCode(e, 'ENOENT', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR')) return false;
    throw e;
  }
}

/**
 * Is this a temp file of a writer that is gone? Temp names carry their
 * writer's host and pid (see `tempPathFor`), so a leftover is known without a lock.
 */
export function isDeadTemp(name: string, alive: (pid: number) => boolean): boolean {
  const at = name.lastIndexOf(TEMP_MARK);
  if (at < 0) return false;
  const m = /^(.*)-(\d+)-[0-9a-f]{8}$/.exec(name.slice(at + TEMP_MARK.length));
  return m !== null && m[1] === HOST && !alive(Number(m[2]));
}

/** Append bytes, without fsync: what the audit append needs once the commit log holds the lines (see commit-log.ts). */
export function appendNow(file: string, data: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, data);
}

export async function removeIfExists(file: string): Promise<boolean> {
  try {
    unlinkSync(file);
    return true;
  } catch (e) {
    if (isCode(e, 'ENOENT')) return false;
    throw e;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

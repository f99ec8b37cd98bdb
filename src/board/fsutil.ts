/** The few file operations the write path is built from, with their fsyncs. */
import { randomBytes } from 'node:crypto';
import { close, closeSync, promises as fs, constants, fsync, open, openSync, readFileSync, statSync, writeFile, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import { hostname } from 'node:os';
import path from 'node:path';

export const HOST = hostname();

/**
 * Read a whole small file, or null when it does not exist. Synchronous on
 * purpose: board files are small, and a blocking read takes microseconds
 * where the promise API's five thread-pool round trips take milliseconds.
 */
/** Callback fs calls as promises (see createExclusive). */
const cb = { open: promisify(open), writeFile: promisify(writeFile), fsync: promisify(fsync), close: promisify(close) };

export async function readIfExists(file: string): Promise<Buffer | null> {
  try {
    return readFileSync(file);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return null;
    throw e;
  }
}

/** A file's bytes, or null when it does not exist; a symbolic link is not followed (ELOOP). */
export function readNoFollow(file: string): Buffer | null {
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
  return `${file}.tmp-${HOST}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export const TEMP_MARK = '.tmp-';

/**
 * Create a file that must not exist yet (O_CREAT|O_EXCL) with its bytes, making
 * its folder when missing. False when it already exists. `sync` fsyncs it.
 */
export async function createExclusive(file: string, data: string | Uint8Array, opts: { mode?: number; sync?: boolean } = {}): Promise<boolean> {
  // The callback API under promisify: a FileHandle costs about twice the CPU per file, and the commit path creates several per write.
  let fd: number;
  try {
    fd = await cb.open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, opts.mode ?? 0o644);
  } catch (e) {
    if (isCode(e, 'EEXIST')) return false;
    if (!isCode(e, 'ENOENT')) throw e;
    await fs.mkdir(path.dirname(file), { recursive: true });
    return createExclusive(file, data, opts);
  }
  try {
    await cb.writeFile(fd, data);
    if (opts.sync) await cb.fsync(fd);
  } catch (e) {
    // A full disk fails the write after the create: leave no empty or partial file behind.
    await cb.close(fd).catch(() => undefined);
    await removeIfExists(file).catch(() => undefined);
    throw e;
  }
  await cb.close(fd);
  return true;
}

/** Write a file's bytes to a new temp file beside it and fsync it. Returns the temp path. */
export async function writeTemp(file: string, data: string | Uint8Array, opts: { mode?: number } = {}): Promise<string> {
  const tmp = tempPathFor(file);
  if (!(await createExclusive(tmp, data, { sync: true, ...opts }))) throw new Error(`temp file ${tmp} already exists`);
  return tmp;
}

export async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await fs.open(dir, constants.O_RDONLY);
    await fh.sync();
  } catch (e) {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
    if (!isCode(e, 'EISDIR', 'EINVAL', 'EPERM', 'ENOENT')) throw e;
  } finally {
    await fh?.close();
  }
}

/** A file's stat, or null when it does not exist. */
export function statIfExists(file: string): Stats | null {
  try {
    return statSync(file);
  } catch (e) {
    if (isCode(e, 'ENOENT', 'ENOTDIR')) return null;
    throw e;
  }
}

/** Replace a file atomically: temp + fsync + rename + directory fsync. */
export async function writeFileAtomic(file: string, data: string | Uint8Array, opts: { mode?: number } = {}): Promise<void> {
  const tmp = await writeTemp(file, data, opts);
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await removeIfExists(tmp).catch(() => undefined);
    throw e;
  }
  await fsyncDir(path.dirname(file));
}

/** Remove a folder if it is empty (a write that failed before its first file landed); true when removed. */
export async function removeIfEmpty(dir: string): Promise<boolean> {
  try {
    await fs.rmdir(dir);
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

/** Append bytes and fsync before returning. */
export async function appendDurable(file: string, data: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const fh = await fs.open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o644);
  try {
    await fh.write(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export async function removeIfExists(file: string): Promise<boolean> {
  try {
    await fs.unlink(file);
    return true;
  } catch (e) {
    if (isCode(e, 'ENOENT')) return false;
    throw e;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

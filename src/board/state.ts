/**
 * The coordinator's uncommitted state under `.work/` (outbox, sessions,
 * digests, incidents, tokens, caches, last-valid copies), through one API so
 * that every record has one write discipline: whole-file replacement by
 * atomic rename, and, where two writers could race, a named lock file held
 * around the read-modify-write. Nothing here is audited or committed to git;
 * losing a record costs a cache rebuild or a repeated notice, never truth.
 *
 * Paths are relative to the board root and must lie under `.work/`.
 */
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { BoardError } from './errors.js';
import { createExclusive, isCode, readIfExists, removeIfExists, removeQuietly, TEMP_MARK, tempPathFor, writeFileAtomic } from './fsutil.js';
import { isStatePath, JOURNAL_DIR, lockFile, LOCKS_DIR, normalizeRel, STATE_DIR, type Scope } from './layout.js';
import { deadHeldScopes } from './recovery.js';
import { Listing } from './listing.js';
import { acquireLock, LockTimeout } from './lock.js';
import { Spares } from './spares.js';
import { watchFolder, type Closable } from './run-watch.js';

/** Is this record's content not the coordinator's own? `bytes` reads it, only when the answer needs it. */
export type Distrusted = (rel: string, bytes: () => Buffer | null) => boolean;

export interface StateLockOptions {
  lockStaleMs: number;
  lockTimeoutMs: number;
  now?: () => Date;
}

export class WorkState {
  private readonly listing: Listing;
  /** Records that did not come from this coordinator (git brought them: docs/git.md "What git never brings"); read as absent. */
  private distrusted: Distrusted = () => false;

  constructor(
    private readonly root: string,
    private readonly options: StateLockOptions,
  ) {
    this.listing = new Listing(root);
  }

  /**
   * Never read a record that someone else put here: `distrusted` says which
   * (the shell passes "git brought these bytes", for what a pull or a clone
   * wrote under .work/), and each is then read as absent, so a planted token
   * or session opens nothing.
   */
  distrust(distrusted: Distrusted): void {
    this.distrusted = distrusted;
  }

  /** A record's bytes, or null when absent. */
  async read(rel: string): Promise<Buffer | null> {
    const bytes = await readIfExists(this.abs(rel));
    return bytes !== null && this.distrusted(rel, () => bytes) ? null : bytes;
  }

  /** A record's text, or null when absent. */
  async readText(rel: string): Promise<string | null> {
    return (await this.read(rel))?.toString('utf8') ?? null;
  }

  /** The same, without yielding: for hot paths that check a cache on every request. */
  readTextNow(rel: string): string | null {
    try {
      const bytes = readFileSync(this.abs(rel));
      return this.distrusted(rel, () => bytes) ? null : bytes.toString('utf8');
    } catch (e) {
      if (isCode(e, 'ENOENT', 'ENOTDIR')) return null;
      throw e;
    }
  }

  /** A record's inode, size and mtime ('' when absent): a reader re-reads only when it changes. */
  stamp(rel: string): string {
    const stamp = this.listing.stamp(this.rel(rel));
    return stamp !== '' && this.distrusted(rel, () => readFileSync(this.abs(rel))) ? '' : stamp;
  }

  /** The names in a state folder, sorted ([] when it does not exist). */
  list(dir: string): string[] {
    return this.listing.names(this.rel(dir)) ?? [];
  }

  /**
   * The journals and the sync's intent left in `.work/journal/`: commits or a
   * merge under way or cut short. A writer's temp file there is none of them
   * (it never became one), even when its writer died before the rename.
   */
  pendingJournals(): string[] {
    return this.list(JOURNAL_DIR).filter((n) => !n.includes(TEMP_MARK));
  }

  /**
   * Replace a record whole by atomic rename: a reader sees the old bytes or the
   * new, never a mix. For records with one writer at a time (its own lock, or a
   * cache where the last writer wins); otherwise hold `locked` around the read and the replace.
   * `durable: false` for a cache: nothing is flushed (fsutil.ts `writeFileAtomic`).
   */
  async replace(rel: string, bytes: string | Buffer, opts: { mode?: number; durable?: boolean } = {}): Promise<void> {
    const file = this.abs(rel);
    try {
      await writeFileAtomic(file, bytes, opts);
    } catch (e) {
      if (!isCode(e, 'ENOENT')) throw e;
      this.ensureDir(path.posix.dirname(rel));
      await writeFileAtomic(file, bytes, opts);
    }
  }

  /**
   * `replaceNow` from pieces written as they come, in writes of about a
   * megabyte: a file too large to build whole in memory first (the run
   * index's ended entries at 100k runs, 37 MB, once held thrice over). The
   * file's length in bytes.
   */
  replaceInPieces(rel: string, pieces: Iterable<string>): number {
    const out = this.openPieces(rel);
    try {
      for (const piece of pieces) out.write(piece);
      return out.finish();
    } catch (e) {
      out.abort();
      throw e;
    }
  }

  /** A file to be written in pieces over time and put in place at once by `finish` (or dropped by `abort`): the run index's cold build. */
  openPieces(rel: string): PiecesFile {
    const file = this.abs(rel);
    const tmp = tempPathFor(file);
    return new PiecesFile(
      file,
      tmp,
      openTemp(tmp, () => this.ensureDir(path.posix.dirname(rel))),
    );
  }

  /** `replace` without yielding and without fsync: for caches written on the way out of a request. */
  replaceNow(rel: string, bytes: string | Buffer): void {
    const file = this.abs(rel);
    const tmp = tempPathFor(file);
    try {
      writeFileSync(tmp, bytes);
      renameSync(tmp, file);
    } catch (e) {
      removeQuietly(tmp);
      throw e;
    }
  }

  /**
   * Run `fn` holding the named lock file (a dead holder's lock is broken; a live one is waited for, then `busy`).
   * `waitMs` bounds the wait (0: try once, for work whoever holds the lock is already doing).
   */
  async locked<T>(lock: string, fn: () => Promise<T>, opts: { waitMs?: number } = {}): Promise<T> {
    const file = this.abs(lockFile(lock));
    const now = this.options.now ?? (() => new Date());
    let held;
    try {
      held = await acquireLock(file, { staleMs: this.options.lockStaleMs, timeoutMs: opts.waitMs ?? this.options.lockTimeoutMs, now: () => now().getTime(), spares: Spares.of(this.root) });
    } catch (e) {
      if (e instanceof LockTimeout) throw new BoardError('busy', `${lock} is busy: ${e.message}; retry`, []);
      if (!isCode(e, 'ENOENT')) throw e;
      this.ensureDir(LOCKS_DIR);
      return this.locked(lock, fn, opts);
    }
    try {
      return await fn();
    } finally {
      await held.release();
    }
  }

  /** Create a record only if it does not exist yet (a secret made once); false when it already did. */
  async create(rel: string, bytes: string | Buffer, opts: { mode?: number } = {}): Promise<boolean> {
    this.ensureDir(path.posix.dirname(rel));
    return createExclusive(this.abs(rel), bytes, { ...opts, sync: true });
  }

  /** Append one line to a log record (incidents): no fsync, a lost tail costs a report line. */
  append(rel: string, line: string): void {
    const text = line.endsWith('\n') ? line : `${line}\n`;
    try {
      appendFileSync(this.abs(rel), text);
    } catch (e) {
      if (!isCode(e, 'ENOENT')) throw e;
      this.ensureDir(path.posix.dirname(rel));
      appendFileSync(this.abs(rel), text);
    }
  }

  /**
   * Cut an append-only record back to its first `length` bytes (a cache's tail
   * that a crash tore or that no later line vouches for); false when it is absent.
   */
  truncateNow(rel: string, length: number): boolean {
    try {
      truncateSync(this.abs(rel), length);
      return true;
    } catch (e) {
      if (isCode(e, 'ENOENT')) return false;
      throw e;
    }
  }

  /** The scopes (a run, the board) whose lock a writer that died holds: a transaction on each finishes what it left. */
  deadHeldScopes(): Promise<Scope[]> {
    return deadHeldScopes(this.abs(LOCKS_DIR), this.options.lockStaleMs, (this.options.now ?? (() => new Date()))().getTime());
  }

  /** Remove a record; false when it was not there. */
  remove(rel: string): Promise<boolean> {
    return removeIfExists(this.abs(rel));
  }

  /** Watch a state folder (made if missing), calling back with the name of what changed in it. */
  async watch(dir: string, onName: (name: string) => void): Promise<Closable> {
    this.ensureDir(dir);
    return watchFolder(this.abs(dir), onName);
  }

  /** The path, normalised, when it lies under `.work/`; anything else is a programming error. */
  private rel(rel: string): string {
    const norm = normalizeRel(rel);
    if (norm === null || !isStatePath(norm)) throw new Error(`not a path under ${STATE_DIR}/: ${JSON.stringify(rel)}`);
    return norm;
  }

  private abs(rel: string): string {
    return path.join(this.root, this.rel(rel));
  }

  private ensureDir(dir: string): void {
    mkdirSync(dir === STATE_DIR ? path.join(this.root, STATE_DIR) : this.abs(dir), { recursive: true });
  }
}

/** How much a `PiecesFile` gathers before each write. */
const PIECE_BYTES = 1 << 20;

/** A temp file written a megabyte at a time, renamed over its record when finished (never flushed: for caches). */
export class PiecesFile {
  private pending: string[] = [];
  private size = 0;
  private len = 0;
  private fd: number | null;

  constructor(
    private readonly file: string,
    private readonly tmp: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  write(piece: string): void {
    this.pending.push(piece);
    this.size += piece.length;
    if (this.size >= PIECE_BYTES) this.flush();
  }

  /** What was written so far, read back (the file is not put in place). */
  readBack(): string {
    this.flush();
    return readFileSync(this.tmp, 'utf8');
  }

  /** Put the file in place by rename; its length in bytes. */
  finish(): number {
    this.flush();
    this.close();
    renameSync(this.tmp, this.file);
    return this.len;
  }

  /** Drop the temp file. */
  abort(): void {
    this.close();
    removeQuietly(this.tmp);
  }

  private flush(): void {
    if (this.fd === null || this.pending.length === 0) return;
    const bytes = Buffer.from(this.pending.join(''));
    for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at);
    this.len += bytes.length;
    this.pending = [];
    this.size = 0;
  }

  private close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** A temp file opened for writing, its folder made first when it is missing. */
function openTemp(tmp: string, makeDir: () => void): number {
  try {
    return openSync(tmp, 'w');
  } catch (e) {
    if (!isCode(e, 'ENOENT')) throw e;
    makeDir();
    return openSync(tmp, 'w');
  }
}

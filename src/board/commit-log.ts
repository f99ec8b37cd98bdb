/**
 * The commit log: what makes a commit durable with one flush
 * (docs/architecture.md "The commit log"). One log per board and process,
 * `.work/log/<host>-<pid>-<random>.log`, append-only: a header frame (host,
 * pid, boot), then one frame per commit holding the same record as the
 * commit's journal (journal.ts), content and all. A commit's point of no
 * return is the flush of the frame that holds it.
 *
 * Group commit: `append` resolves once a flush covering its record is done.
 * With no flush running the flush starts at once (a lone commit waits for no
 * one); records that arrive while one runs are written and flushed together
 * by the next. Each process has its own log: sharing one across processes
 * would need a lock around every append, held across the flush, which is the
 * wait group commit exists to avoid; and a log with one writer never has two
 * appends interleave.
 *
 * Room made ahead: the log's file is grown with zeros ahead of its records
 * (ROOM_MIN doubling to ROOM_MAX at a time), and a record is written over
 * those zeros in place. A flush of bytes written in place needs no change of
 * the file's size or blocks, so the file system flushes the data alone: on
 * this machine's ext4 half the time of a flush that grows the file, and on a
 * journaled ext4 no journal commit, which concurrent processes' flushes would
 * otherwise queue behind (docs/performance.md). Zeros never read as a frame
 * (their digest does not match), so the log still ends at its last whole
 * record, and a record torn in its flush ends it the same way.
 *
 * Checkpoint: the data files written since the last one are not durable by
 * themselves. Once the log passes CHECKPOINT_BYTES and shortly after the
 * process goes idle, a checkpoint waits until no commit is between its
 * flush and the end of its renames and audit append, flushes the file system
 * (syncfs; else every file touched since), then cuts the log to its header.
 * The logs of processes of this boot that are dead are removed by the same
 * checkpoint: their page cache survived them, so the flush covers them too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { BOOT_ID, fdatasyncFd, fsyncDir, fsyncPath, HOST, isCode, syncFileSystem, syncFileSystemNow } from './fsutil.js';
import { STATE_DIR } from './layout.js';
import { pidAlive } from './lock.js';

export const LOG_DIR = `${STATE_DIR}/log`;

/** The log's size past which a checkpoint cuts it. */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;
/** How many logs of this boot may wait in the folder before an exiting process flushes and removes them. */
const EXIT_SYNC_LOGS = 16;
/** How long a process stays without commits before its checkpoint. */
const IDLE_MS = 1000;
/** Zeros written ahead of the records when they reach the end of the room made: the first time, and at most, each time. */
const ROOM_MIN = 64 * 1024;
const ROOM_MAX = 1024 * 1024;

export interface LogHeader {
  log: 1;
  host: string;
  pid: number;
  boot: string;
}

// ---- frames: length, then the first 8 bytes of the payload's sha256, then the payload (JSON) ----

const FRAME_HEAD = 12;

function digest8(payload: Buffer): Buffer {
  return createHash('sha256').update(payload).digest().subarray(0, 8);
}

export function frame(value: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(value), 'utf8');
  const head = Buffer.alloc(FRAME_HEAD);
  head.writeUInt32BE(payload.length, 0);
  digest8(payload).copy(head, 4);
  return Buffer.concat([head, payload]);
}

/**
 * The whole frames at the start of `bytes`, in order, and where they end. The
 * first frame that is cut short or whose digest does not match ends the log:
 * it and anything after it were never flushed whole (a torn tail).
 */
export function readFrames(bytes: Buffer): { values: unknown[]; end: number } {
  const values: unknown[] = [];
  let at = 0;
  while (at + FRAME_HEAD <= bytes.length) {
    const len = bytes.readUInt32BE(at);
    const payload = bytes.subarray(at + FRAME_HEAD, at + FRAME_HEAD + len);
    if (payload.length < len || !digest8(payload).equals(bytes.subarray(at + 4, at + FRAME_HEAD))) break;
    try {
      values.push(JSON.parse(payload.toString('utf8')));
    } catch {
      break;
    }
    at += FRAME_HEAD + len;
  }
  return { values, end: at };
}

/** A log file as found in the folder: who wrote it, and whether that writer is this process, alive, dead in this boot, or of an earlier boot. */
export interface FoundLog {
  rel: string;
  header: LogHeader | null;
  kind: 'own' | 'foreign' | 'live' | 'dead' | 'earlier-boot';
}

function isHeader(v: unknown): v is LogHeader {
  const h = v as LogHeader;
  return typeof h === 'object' && h !== null && h.log === 1 && typeof h.host === 'string' && Number.isInteger(h.pid) && typeof h.boot === 'string';
}

/** Read a log: its header and its whole records (a torn tail dropped). */
export function readLog(file: string): { header: LogHeader | null; records: unknown[] } {
  const { values } = readFrames(readFileSync(file));
  const [first, ...records] = values;
  return isHeader(first) ? { header: first, records } : { header: null, records: [] };
}

/** A log's header alone: its first frame, read without reading the records after it. */
function readHeader(file: string): LogHeader | null {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(HEADER_READ);
    const n = readSync(fd, buf, 0, HEADER_READ, 0);
    const [first] = readFrames(buf.subarray(0, n)).values;
    return isHeader(first) ? first : null;
  } finally {
    closeSync(fd);
  }
}

/** More than a header frame ever takes (a host name is at most 255 bytes). */
const HEADER_READ = 1024;

/**
 * Every log in the board's folder, judged by the liveness rule of lock.ts: a
 * log of another host is never judged (its pid means nothing here); one whose
 * header never reached the disk holds no record and counts as dead.
 */
export function findLogs(root: string, own: string | null): FoundLog[] {
  let names: string[];
  try {
    names = readdirSync(path.join(root, LOG_DIR)).sort();
  } catch (e) {
    if (isCode(e, 'ENOENT', 'ENOTDIR')) return [];
    throw e;
  }
  const found: FoundLog[] = [];
  for (const n of names) {
    const m = /^(.+)-(\d+)-[0-9a-f]{8}\.log$/.exec(n);
    if (!m) continue;
    const rel = `${LOG_DIR}/${n}`;
    if (rel === own) {
      found.push({ rel, header: null, kind: 'own' });
      continue;
    }
    if (m[1] !== HOST) {
      found.push({ rel, header: null, kind: 'foreign' });
      continue;
    }
    let header: LogHeader | null;
    try {
      header = readHeader(path.join(root, rel));
    } catch (e) {
      if (isCode(e, 'ENOENT')) continue;
      throw e;
    }
    const kind = header && header.boot !== BOOT_ID ? 'earlier-boot' : pidAlive(Number(m[2])) ? 'live' : 'dead';
    found.push({ rel, header, kind });
  }
  return found;
}

/** Write all of `bytes` at `position` (the log is written in place, not appended to). */
function writeAt(fd: number, bytes: Buffer, position: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

interface Waiting {
  bytes: Buffer;
  resolve(): void;
  reject(e: unknown): void;
}

/** Told of each flush and each run commit, for serve's metrics (docs/operations.md); nothing here waits for it. */
export interface CommitObserver {
  /** A flush made `group` commits durable at once, in `seconds`. */
  flushed(group: number, seconds: number): void;
  /** A run's commit was applied, with its audit actions in order. */
  committed(actions: readonly string[]): void;
}

export class CommitLog {
  private static readonly logs = new Map<string, CommitLog>();
  private static exitHook = false;

  /** The log of this process for the board at `root` (one, however many stores are open on it). */
  static of(root: string): CommitLog {
    let log = CommitLog.logs.get(root);
    if (!log) {
      log = new CommitLog(root);
      CommitLog.logs.set(root, log);
    }
    return log;
  }

  // The log's states and the invariants these fields keep: docs/architecture.md "A commit's states".
  private fd: number | null = null;
  private rel: string | null = null;
  private headerBytes = 0;
  /** Where the records end: the next one is written here. */
  private size = 0;
  /** The file's length: the records, then zeros made ahead for the next ones. */
  private room = 0;
  private queue: Waiting[] = [];
  private flushing: Promise<void> | null = null;
  private checkpointing: Promise<void> | null = null;
  /** Commits flushed whose renames and audit append are not done yet: a checkpoint waits for none. */
  private applying = 0;
  private settled: (() => void)[] = [];
  /** Every file and folder written since the last checkpoint, for a checkpoint without syncfs. */
  private touched = new Set<string>();
  private idleTimer: NodeJS.Timeout | null = null;
  private lastCommit = 0;
  private earlierBoots: Promise<void> | null = null;
  /** The log folder, until the flush that makes this log's entry in it durable (see `open`). */
  private entryUnflushed: string | null = null;
  /** Earlier logs of this process that a failed write left with a torn tail: removed at the next checkpoint. */
  private retired: string[] = [];
  /** Files were written outside a commit since the last checkpoint (see `wroteOutside`). */
  private outside = false;

  /** serve's metrics, when it exports them; null costs nothing per commit. */
  observer: CommitObserver | null = null;
  /** Why the last flush failed, until one succeeds again: what serve's /readyz reports as commit_log. */
  failure: string | null = null;

  private constructor(readonly root: string) {}

  /**
   * Can this process make a file in the log's folder now? null when it can,
   * else the error's code (EROFS, EACCES…). An empty probe file is made and
   * removed, unflushed (a full disk shows as the last flush's failure,
   * `failure`): /readyz asks this, and must stay cheap.
   * Synchronous: tens of microseconds, where the thread pool would queue it
   * behind the commits' flushes (hundreds of milliseconds under load).
   */
  probe(): string | null {
    const dir = path.join(this.root, LOG_DIR);
    const file = path.join(dir, `.probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      mkdirSync(dir, { recursive: true });
      closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
      unlinkSync(file);
      return null;
    } catch (e) {
      try {
        unlinkSync(file);
      } catch {
        // it was never made
      }
      return (e as NodeJS.ErrnoException).code ?? 'error';
    }
  }

  /** This process's log file (relative to the root), or null before its first commit. */
  get file(): string | null {
    return this.rel;
  }

  /**
   * Run `replay` once per process before its first commit: the logs of an
   * earlier boot must be replayed before anything is committed on top of
   * what they hold (see recovery.ts `replayEarlierBoots`).
   */
  beforeFirstCommit(replay: () => Promise<void>): Promise<void> {
    this.earlierBoots ??= replay().catch((e) => {
      this.earlierBoots = null;
      throw e;
    });
    return this.earlierBoots;
  }

  /**
   * Make `record` durable: resolves once a flush that covers it is done, rejects
   * (and nothing of it stays in the log) when it could not be. Once resolved, the
   * commit counts as being applied until `applied` is called: a checkpoint waits for it.
   */
  append(record: unknown): Promise<void> {
    const bytes = frame(record);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ bytes, resolve, reject });
      if (!this.flushing && !this.checkpointing) this.flushing = this.flushAll();
    });
  }

  /** A flushed commit's renames, audit append and journal removal are over (done or failed); `written` are the files and folders it wrote. */
  applied(written: readonly string[]): void {
    for (const f of written) {
      this.touched.add(f);
      this.touched.add(path.dirname(f));
    }
    this.applying--;
    if (this.applying === 0) for (const s of this.settled.splice(0)) s();
    this.afterCommit();
  }

  /**
   * Files written outside this process's commits (a replay of an earlier
   * boot's logs): the next checkpoint flushes them even when this process has
   * no record of its own, since the logs that hold them go once it is done.
   */
  wroteOutside(written: readonly string[]): void {
    for (const f of written) {
      this.touched.add(f);
      this.touched.add(path.dirname(f));
    }
    this.outside = true;
  }

  /**
   * Make every data file written so far durable, then cut the log to its
   * header; also remove the logs of dead processes of this boot. Covers only
   * commits that finished applying: new flushes wait meanwhile.
   */
  checkpoint(): Promise<void> {
    this.checkpointing ??= this.runCheckpoint().finally(() => {
      this.checkpointing = null;
      if (this.queue.length > 0 && !this.flushing) this.flushing = this.flushAll();
    });
    return this.checkpointing;
  }

  private async flushAll(): Promise<void> {
    try {
      while (this.queue.length > 0 && !this.checkpointing) {
        const batch = this.queue.splice(0);
        const began = this.observer ? performance.now() : 0;
        try {
          const fd = await this.open();
          const bytes = batch.length === 1 ? batch[0]!.bytes : Buffer.concat(batch.map((w) => w.bytes));
          await this.write(fd, bytes);
          this.failure = null;
          this.observer?.flushed(batch.length, (performance.now() - began) / 1000);
          // Counted before anyone hears of it, so no checkpoint slips in between the flush and the renames.
          this.applying += batch.length;
          for (const w of batch) w.resolve();
        } catch (e) {
          this.failure = (e as NodeJS.ErrnoException).code ?? 'error';
          for (const w of batch) w.reject(e);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  /**
   * Write and flush where the records end, over the zeros made ahead; when
   * they run out, more zeros go in the same write and flush (but for a disk
   * too full to take them: then the record alone, as it would have fitted).
   */
  private async write(fd: number, bytes: Buffer): Promise<void> {
    const end = this.size + bytes.length;
    if (end > this.room) {
      const grow = Math.min(ROOM_MAX, Math.max(ROOM_MIN, this.room - this.headerBytes));
      try {
        return await this.writeFlushed(fd, Buffer.concat([bytes, Buffer.alloc(grow)]), end, end + grow);
      } catch (e) {
        if (!isCode(e, 'ENOSPC', 'EDQUOT') || this.fd !== fd) throw e;
      }
    }
    await this.writeFlushed(fd, bytes, end, Math.max(this.room, end));
  }

  /** Write `out` where the records end and flush; on failure cut back what was written, so no torn frame is followed by whole ones. */
  private async writeFlushed(fd: number, out: Buffer, end: number, room: number): Promise<void> {
    try {
      writeAt(fd, out, this.size);
      const entry = this.entryUnflushed;
      await (entry === null ? fdatasyncFd(fd) : Promise.all([fdatasyncFd(fd), fsyncDir(entry)]));
      if (this.fd === fd) this.entryUnflushed = null;
      this.size = end;
      this.room = room;
    } catch (e) {
      try {
        ftruncateSync(fd, this.size);
        this.room = this.size;
      } catch {
        // A torn frame would hide every frame after it: later commits go to a new log, this one
        // is kept (its whole frames still count) until the next checkpoint covers them.
        this.retire();
      }
      throw e;
    }
  }

  private retire(): void {
    if (this.fd === null || this.rel === null) return;
    this.retired.push(this.rel);
    closeSync(this.fd);
    this.fd = null;
    this.rel = null;
  }

  /**
   * The log file, made on the first commit. Nothing is flushed here: the
   * first record's flush covers the header written before it, and the
   * folder's entry is flushed beside it (`entryUnflushed`), so a process's
   * one commit costs two flushes, not four. A header that a crash left
   * unflushed comes with no record, and `findLogs` counts such a log dead.
   */
  private async open(): Promise<number> {
    if (this.fd !== null) return this.fd;
    const dir = path.join(this.root, LOG_DIR);
    mkdirSync(dir, { recursive: true });
    const name = `${HOST}-${process.pid}-${randomBytes(4).toString('hex')}.log`;
    const file = path.join(dir, name);
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    try {
      const header = frame({ log: 1, host: HOST, pid: process.pid, boot: BOOT_ID } satisfies LogHeader);
      let room = header.length + ROOM_MIN;
      try {
        writeAt(fd, Buffer.concat([header, Buffer.alloc(ROOM_MIN)]), 0);
      } catch (e) {
        // A disk too full for the zeros may still take the header, and the records that fit.
        if (!isCode(e, 'ENOSPC', 'EDQUOT')) throw e;
        ftruncateSync(fd, 0);
        writeAt(fd, header, 0);
        room = header.length;
      }
      this.entryUnflushed = dir;
      this.headerBytes = this.size = header.length;
      this.room = room;
    } catch (e) {
      closeSync(fd);
      try {
        unlinkSync(file);
      } catch {
        // nothing more to undo
      }
      throw e;
    }
    this.fd = fd;
    this.rel = `${LOG_DIR}/${name}`;
    if (!CommitLog.exitHook) {
      CommitLog.exitHook = true;
      process.once('exit', () => {
        for (const log of CommitLog.logs.values()) log.checkpointAtExit();
      });
    }
    return fd;
  }

  private afterCommit(): void {
    this.lastCommit = Date.now();
    if (this.size > CHECKPOINT_BYTES) {
      void this.checkpoint().catch(() => undefined);
      return;
    }
    if (this.idleTimer) return;
    const arm = (ms: number) => {
      this.idleTimer = setTimeout(() => {
        const quiet = Date.now() - this.lastCommit;
        if (quiet < IDLE_MS) return arm(IDLE_MS - quiet);
        this.idleTimer = null;
        // A failed checkpoint leaves the log whole: the next one, or recovery, does it again.
        void this.checkpoint().catch(() => undefined);
      }, ms);
      this.idleTimer.unref();
    };
    arm(IDLE_MS);
  }

  private async runCheckpoint(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.applying > 0) await new Promise<void>((r) => this.settled.push(r));
    // Judged before the flush: whatever a dead process wrote happened before it, so the flush covers it.
    const dead = findLogs(this.root, this.rel).filter((l) => l.kind === 'dead');
    const records = this.fd !== null && this.size > this.headerBytes;
    if (!records && dead.length === 0 && this.retired.length === 0 && !this.outside) return;
    this.outside = false;
    if (!(await syncFileSystem(this.root))) {
      for (const f of this.touched) await fsyncPath(f);
      // Without syncfs, what a dead process wrote is not known here: its log stays for recovery.
      dead.length = 0;
    }
    this.touched.clear();
    if (records) {
      // Cut to the header: the zeros made ahead go too, so no record of before the cut is ever read after it.
      ftruncateSync(this.fd!, this.headerBytes);
      await fdatasyncFd(this.fd!);
      this.size = this.room = this.headerBytes;
    }
    for (const rel of [...dead.map((l) => l.rel), ...this.retired.splice(0)]) {
      try {
        unlinkSync(path.join(this.root, rel));
      } catch (e) {
        if (!isCode(e, 'ENOENT')) throw e;
      }
    }
  }

  /**
   * At exit (nothing asynchronous runs), a CLI command's end: its log is left
   * as a dead process's log, which the next checkpoint of any process removes
   * (its page cache outlives it) and which recovery replays after a power
   * loss, so a command waits for no file-system flush. Only once
   * EXIT_SYNC_LOGS logs wait in the folder does the exiting process flush the
   * file system and remove them, so commands run with no server beside them
   * leave no more than that. A log whose commit is mid-way always stays.
   */
  private checkpointAtExit(): void {
    if (this.fd === null || this.rel === null) return;
    closeSync(this.fd);
    this.fd = null;
    if (this.applying > 0 || this.flushing || this.queue.length > 0) return;
    try {
      if (this.size === this.headerBytes && this.retired.length === 0) {
        unlinkSync(path.join(this.root, this.rel));
        return;
      }
      const dead = findLogs(this.root, this.rel).filter((l) => l.kind === 'dead');
      if (dead.length + 1 < EXIT_SYNC_LOGS) return;
      if (!syncFileSystemNow(this.root)) return;
      for (const rel of [this.rel, ...this.retired, ...dead.map((l) => l.rel)]) unlinkSync(path.join(this.root, rel));
    } catch {
      // the logs stay; recovery or another process's checkpoint removes them
    }
  }
}

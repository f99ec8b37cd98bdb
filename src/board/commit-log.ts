/**
 * The commit log: what makes a commit durable with one flush
 * (docs/architecture.md "The commit log"). One log per board and process,
 * `.work/log/<host>-<pid>-<random>.log`, written only forward: a header frame
 * (host, pid, boot), then one frame per commit holding the same record as the
 * commit's journal (journal.ts), content and all. A commit's point of no
 * return is the flush of the frame that holds it. Frames, and reading the logs
 * in the folder, are in log-files.ts.
 *
 * Group commit: `append` resolves once a flush covering its record is done.
 * With no flush running the flush starts at once (a lone commit waits for no
 * one); records that arrive while one runs are written and flushed together
 * by the next. Each process has its own log, so two appends never interleave.
 *
 * Room made ahead: the file is grown with zeros ahead of its records
 * (ROOM_MIN doubling to ROOM_MAX at a time), and a record is written over
 * those zeros in place, so its flush changes neither the file's size nor its
 * blocks (docs/performance.md). Zeros never read as a frame.
 *
 * Checkpoint (docs/architecture.md "Checkpoints"): once the log passes
 * CHECKPOINT_BYTES, and shortly after the process goes idle, it waits until no
 * commit is between its flush and the end of its renames and audit append,
 * flushes the file system (syncfs; else every file touched since), then cuts
 * the log to its header, and removes the logs of dead processes of this boot.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { BOOT_ID, fdatasyncFd, fsyncDir, fsyncPath, HOST, isCode, syncFileSystem, syncFileSystemNow } from './fsutil.js';
import { findLogs, frame, LOG_DIR, probeLogFolder, type LogHeader } from './log-files.js';

/** The log's size past which a checkpoint cuts it. */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;
/** How many logs of this boot may wait in the folder before an exiting process flushes and removes them. */
const EXIT_SYNC_LOGS = 16;
/** How long a process stays without commits before its checkpoint. */
const IDLE_MS = 1000;
/** Zeros written ahead of the records when they reach the end of the room made: the first time, and at most, each time. */
const ROOM_MIN = 64 * 1024;
const ROOM_MAX = 1024 * 1024;

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

  /** Can this process make a file in the log's folder now? null when it can, else the error's code (see `probeLogFolder`). */
  probe(): string | null {
    return probeLogFolder(this.root);
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
  append(record: unknown, json?: string): Promise<void> {
    const bytes = frame(record, json);
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

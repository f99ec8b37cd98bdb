/**
 * Reading the change log (`.work/changes`, see CHANGES_FILE): every commit,
 * by any coordinator, appends a line naming its scope, and now and then the
 * log is renamed away and a new one started. A reader keeps a cursor: which
 * log it read (its inode) and how far, in bytes, it read whole lines. A line
 * still being appended waits for the next read; a cursor into another log,
 * or past the end of this one, starts over from the beginning and says so
 * (the lines appended to the old log after the cursor are lost to it).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { isCode } from './fsutil.js';
import { CHANGES_FILE } from './layout.js';

/** Where a reader is: the log's inode ('' when there was none) and the byte offset just past the last whole line read. */
export interface ChangeCursor {
  log: string;
  offset: number;
}

export interface ChangeRead {
  /** The whole lines read, without their line ends (empty lines dropped). */
  lines: string[];
  /** Where the next read starts. */
  cursor: ChangeCursor;
  /** The cursor was into another log, or past this one's end: the lines were read from the log's start, and some may have been missed. */
  restarted: boolean;
}

export class ChangeLog {
  private readonly file: string;

  constructor(root: string) {
    this.file = path.join(path.resolve(root), CHANGES_FILE);
  }

  /** The log as it is now, taken as read to its end: a reader starting here sees only what is appended after. */
  end(): ChangeCursor {
    return this.withLog(
      (_fd, log, size) => ({ log, offset: size }),
      () => ({ log: '', offset: 0 }),
    );
  }

  /**
   * The whole lines after `from`, up to byte `until` of the log at most. A
   * cursor taken when there was no log reads a log made since from its start,
   * and is not a restart: that log holds only what came after.
   */
  read(from: ChangeCursor, until = Number.POSITIVE_INFINITY): ChangeRead {
    return this.withLog(
      (fd, log, size) => {
        const restarted = from.log !== '' && (from.log !== log || from.offset > size);
        const start = from.log === log && !restarted ? from.offset : 0;
        const stop = Math.min(size, Math.max(start, until));
        const buf = Buffer.alloc(stop - start);
        const got = buf.length > 0 ? readSync(fd, buf, 0, buf.length, start) : 0;
        const end = buf.subarray(0, got).lastIndexOf(0x0a) + 1;
        const lines = buf.subarray(0, end).toString('utf8').split('\n').filter(Boolean);
        return { lines, cursor: { log, offset: start + end }, restarted };
      },
      () => ({ lines: [], cursor: { log: '', offset: 0 }, restarted: from.log !== '' }),
    );
  }

  /** `fn` with the log open, its inode and its size; `absent()` when there is no log. */
  private withLog<T>(fn: (fd: number, log: string, size: number) => T, absent: () => T): T {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (e) {
      if (isCode(e, 'ENOENT', 'ENOTDIR')) return absent();
      throw e;
    }
    try {
      const st = fstatSync(fd, { bigint: true });
      return fn(fd, String(st.ino), Number(st.size));
    } finally {
      closeSync(fd);
    }
  }
}

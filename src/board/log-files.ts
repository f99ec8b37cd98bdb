/**
 * A commit log as files on disk (docs/architecture.md "The commit log"):
 * frames, reading a log back, and the logs found in the board's folder,
 * each judged by who wrote it. The writing process's side, `CommitLog`, is
 * in commit-log.ts; recovery (replay) and `audit verify` read logs through here.
 *
 * A frame is its payload's length, the first 8 bytes of the payload's
 * SHA-256, and the payload (JSON). The first frame cut short or with a wrong
 * digest ends the log (invariant 5 in docs/architecture.md "Invariants"), so
 * zeros made ahead of the records never read as one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, readSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { BOOT_ID, HOST, isCode } from './fsutil.js';
import { LOG_DIR } from './layout.js';
import { pidAlive } from './lock.js';

export { LOG_DIR };

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

/** A frame of `value`; `json` when the caller has it already (the journal's own bytes), so it is not serialized twice. */
export function frame(value: unknown, json: string = JSON.stringify(value)): Buffer {
  const payload = Buffer.from(json, 'utf8');
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

/**
 * Can this process make a file in the log folder now? null when it can, else
 * the error's code (EROFS, EACCES…). An empty probe file is made and removed,
 * unflushed (a full disk shows as the last flush's failure, `CommitLog.failure`):
 * /readyz asks this, and must stay cheap. Synchronous: tens of microseconds,
 * where the thread pool would queue it behind the commits' flushes (hundreds of
 * milliseconds under load).
 */
export function probeLogFolder(root: string): string | null {
  const dir = path.join(root, LOG_DIR);
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

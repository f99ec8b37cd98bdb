/**
 * What a power loss leaves of the files written since the last flush, and
 * how the commit log's records explain it: pure rules for replaying the logs
 * of an earlier boot (recovery.ts, journal.ts `replayScope`; README "The
 * write path", Recovery).
 *
 * A file renamed into place, or appended to, whose bytes had not all reached
 * the disk reads back empty, cut short, or with whole blocks of zeros: its
 * name (metadata, journaled in order) got there before its data. Such a file
 * can only be one that a commit after the last flush wrote, so its last bytes
 * are in a log record.
 */
import type { CommitRecord, RecordFile } from './commit-record.js';

/** One scope's commits in their commit order: chain position, an audited commit before an unaudited one there, then time. */
export function commitOrder(a: CommitRecord, b: CommitRecord): number {
  return a.pos - b.pos || Number(a.lines.length === 0) - Number(b.lines.length === 0) || a.at - b.at;
}

/**
 * Are `bytes` what a power loss leaves of `version`: no longer, and each byte
 * either the version's or a zero (an unwritten block), the empty file included?
 * A whole copy is not torn.
 */
export function isTornCopyOf(bytes: Buffer, version: Buffer): boolean {
  if (bytes.length > version.length || (bytes.length === version.length && bytes.equals(version))) return false;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0 && bytes[i] !== version[i]) return false;
  return true;
}

/** Each file's last write among a scope's records (in commit order): what it must hold once they are all applied. */
export function lastWrites(records: readonly CommitRecord[]): Map<string, RecordFile> {
  const last = new Map<string, RecordFile>();
  for (const r of records) for (const f of r.files) last.set(f.rel, f);
  return last;
}

/**
 * Where an audit chain's bytes stop being whole lines a power loss left
 * alone: the end of its last line break before the first zero byte (or
 * before a torn last line). What follows is the tail to cut.
 */
export function wholeLinesEnd(bytes: Buffer): number {
  const zero = bytes.indexOf(0);
  const upTo = zero < 0 ? bytes.length : zero;
  return upTo === 0 ? 0 : bytes.lastIndexOf(0x0a, upTo - 1) + 1;
}

/**
 * The lines the records carry from seq `from` on, as long as they follow one
 * another: what the chain's tail was being written as.
 */
export function linesFrom(records: readonly CommitRecord[], from: number): string {
  const bySeq = new Map<number, string>();
  for (const r of records) r.lines.forEach((l, i) => bySeq.set(r.firstSeq + i, l));
  let out = '';
  for (let seq = from; bySeq.has(seq); seq++) out += bySeq.get(seq)!;
  return out;
}

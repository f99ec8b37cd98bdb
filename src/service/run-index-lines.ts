/**
 * The line format of the run index's files (run-index-file.ts): each line
 * `<crc32> <json>`, so a line torn by a crash or an edit is known and what
 * comes after it is not trusted.
 */
import { crc32 } from 'node:zlib';

/** One record as a line. */
export function line(v: unknown): string {
  const json = JSON.stringify(v);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** Records as lines, one by one: the ended runs' entries at 100k runs are 37 MB that is never one string. */
export function* linesOf<E extends { stamp: string; summary: unknown }>(entries: ReadonlyMap<string, E>): Generator<string> {
  for (const [id, e] of entries) yield line([id, e.stamp, e.summary]);
}

/** The records of whole, intact lines from the start, each with the bytes up to its end; stops at the first that is not. */
export function records(text: string): { value: unknown; end: number }[] {
  const out: { value: unknown; end: number }[] = [];
  let at = 0;
  let bytes = 0;
  for (;;) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return out;
    const raw = text.slice(at, nl);
    const json = raw.slice(9);
    if (raw[8] !== ' ' || raw.slice(0, 8) !== crc32(json).toString(16).padStart(8, '0')) return out;
    try {
      bytes += Buffer.byteLength(raw) + 1;
      out.push({ value: JSON.parse(json) as unknown, end: bytes });
    } catch {
      return out;
    }
    at = nl + 1;
  }
}

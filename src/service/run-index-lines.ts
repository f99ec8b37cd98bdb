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

/** The JSON of whole, intact lines from the start, each with the bytes up to its end; stops at the first that is not. */
export function* intactLines(text: string): Generator<{ json: string; end: number }> {
  let at = 0;
  let bytes = 0;
  for (;;) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return;
    const raw = text.slice(at, nl);
    const json = raw.slice(9);
    if (raw[8] !== ' ' || raw.slice(0, 8) !== crc32(json).toString(16).padStart(8, '0')) return;
    bytes += Buffer.byteLength(raw) + 1;
    yield { json, end: bytes };
    at = nl + 1;
  }
}

/** The records of whole, intact lines from the start, each with the bytes up to its end; stops at the first that is not. */
export function records(text: string): { value: unknown; end: number }[] {
  const out: { value: unknown; end: number }[] = [];
  for (const { json, end } of intactLines(text)) {
    try {
      out.push({ value: JSON.parse(json) as unknown, end });
    } catch {
      return out;
    }
  }
  return out;
}

/**
 * The id an ended-file line names, without parsing its entry (`["<id>", stamp, summary]`
 * sets it, `["<id>"]` drops it); null for a line of another shape. Run ids hold no quote or escape.
 */
export function lineId(json: string): { id: string; set: boolean } | null {
  const close = json.indexOf('"', 2);
  if (!json.startsWith('["') || close < 0) return null;
  const id = json.slice(2, close);
  if (json.length === close + 2 && json.endsWith('"]')) return { id, set: false };
  return json[close + 1] === ',' ? { id, set: true } : null;
}

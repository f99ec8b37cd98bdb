/**
 * Reading the run index's `ended` file (run-index-file.ts): every entry, or
 * the ids alone, each read checked against what the last cursor line of
 * `open` vouched for (which file, how many whole bytes and lines, a count
 * and sum of ids). Null when the file is not that: nothing of it is trusted.
 */
import { INDEX_DIR } from '../board/layout.js';
import type { WorkState } from '../board/state.js';
import { intactLines, lineId } from './run-index-lines.js';
import { idSum, inodeOf, type EndedMark } from './run-index-mark.js';
import type { RunSummary } from './run-summary-scan.js';

export const ENDED_FILE = `${INDEX_DIR}/ended`;

/** A run's summary and the stamp of the RUN.md it was read from. */
export interface IndexEntry {
  stamp: string;
  summary: RunSummary;
}

export const isEntry = (v: unknown): v is IndexEntry => typeof v === 'object' && v !== null && 'stamp' in v && typeof v.stamp === 'string' && 'summary' in v && typeof v.summary === 'object';

/** Each intact line of `ended` up to what `disk` vouches for, if the file is the one it names; whether those lines are all it vouches for. */
function scanEnded(state: WorkState | null, disk: EndedMark, each: (json: string) => void): boolean {
  const text = state?.readTextNow(ENDED_FILE) ?? null;
  let whole = 0;
  let lines = 0;
  if (state && text !== null && inodeOf(state.stamp(ENDED_FILE)) === disk.ino) {
    for (const { json, end } of intactLines(text)) {
      if (end > disk.len) break;
      whole = end;
      lines++;
      each(json);
    }
  }
  return whole === disk.len && lines === disk.lines;
}

/** Whether the ids read, the open runs' taken out (a run ended, then open again), are the ones vouched for. */
function vouched(whole: boolean, ids: Map<string, unknown> | Set<string>, disk: EndedMark, open: ReadonlyMap<string, unknown>): boolean {
  for (const id of open.keys()) ids.delete(id);
  return whole && ids.size === disk.n && idSum(ids.keys()) === disk.sum;
}

/** Every ended entry in the file, or null when it is not what was vouched for. */
export function readEndedEntries(state: WorkState | null, disk: EndedMark, open: ReadonlyMap<string, unknown>): Map<string, IndexEntry> | null {
  const ended = new Map<string, IndexEntry>();
  const whole = scanEnded(state, disk, (json) => {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      return; // not a record: the count does not match
    }
    if (!Array.isArray(value) || typeof value[0] !== 'string') return;
    const entry = { stamp: value[1] as unknown, summary: value[2] as unknown };
    if (value.length === 1) ended.delete(value[0]);
    else if (isEntry(entry)) ended.set(value[0], entry);
  });
  return vouched(whole, ended, disk, open) ? ended : null;
}

/** The ids of the ended entries in the file, their entries not parsed, or null when it is not what was vouched for. */
export function readEndedIds(state: WorkState | null, disk: EndedMark, open: ReadonlyMap<string, unknown>): Set<string> | null {
  const ids = new Set<string>();
  const whole = scanEnded(state, disk, (json) => {
    const l = lineId(json);
    if (l?.set) ids.add(l.id);
    else if (l) ids.delete(l.id);
  });
  return vouched(whole, ids, disk, open) ? ids : null;
}

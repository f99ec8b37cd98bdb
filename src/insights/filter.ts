/**
 * The Insights filter from what a person typed (CLI options or the page's GET
 * form): every problem named at once, nothing assumed. Pure: `now` is given.
 */
import { NAME_PATTERN } from '../process/model.js';
import type { InsightsFilter, Mode } from './figures.js';

export interface FilterWords {
  process?: string | undefined;
  version?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** Test runs: left out (absent, `no`), counted with live ones (`also`, `1`), or alone (`only`). */
  tests?: string | undefined;
}

const AGO = /^(\d{1,6})([hdw])$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/**
 * An instant from `7d` (before now), `2026-11-30` (that day's start, UTC; with
 * `endOfDay`, the next day's start, so an until date counts its own day) or an
 * ISO date-time; null when it is none of them.
 */
export function instant(text: string, now: Date, endOfDay = false): string | null {
  const ago = AGO.exec(text);
  if (ago) return new Date(now.getTime() - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS]).toISOString();
  if (DATE.test(text)) {
    const ms = Date.parse(`${text}T00:00:00Z`);
    return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? null : new Date(ms + (endOfDay ? 86_400_000 : 0)).toISOString();
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

const MODES: Record<string, Mode[]> = { no: ['live'], also: ['live', 'test'], '1': ['live', 'test'], only: ['test'] };

export function parseFilter(w: FilterWords, now: Date): { ok: true; filter: InsightsFilter } | { ok: false; issues: string[] } {
  const issues: string[] = [];
  const filter: InsightsFilter = { modes: ['live'] };
  const given = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
  const process = given(w.process);
  if (process !== undefined) {
    if (NAME_PATTERN.test(process)) filter.process = process;
    else issues.push(`process: ${process} is not a process name (lower-case words joined by hyphens)`);
  }
  const version = given(w.version);
  if (version !== undefined) {
    if (/^[1-9]\d{0,8}$/.test(version)) filter.version = Number(version);
    else issues.push(`version: ${version} is not a version number (1, 2, …)`);
  }
  for (const k of ['since', 'until'] as const) {
    const v = given(w[k]);
    if (v === undefined) continue;
    const at = instant(v, now, k === 'until');
    if (at === null) issues.push(`${k}: ${v} is not a date (2026-11-30), a date-time (2026-11-30T09:00:00Z) or an age (12h, 7d, 4w)`);
    else filter[k] = at;
  }
  // As instants: ISO text past year 9999 (`+010000-…`) does not sort as its time does.
  if (filter.since !== undefined && filter.until !== undefined && Date.parse(filter.since) >= Date.parse(filter.until)) issues.push(`until: must come after since (${filter.since})`);
  const tests = given(w.tests);
  if (tests !== undefined) {
    if (Object.hasOwn(MODES, tests)) filter.modes = MODES[tests]!;
    else issues.push(`tests: ${tests} is not one of no, also, only`);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, filter };
}

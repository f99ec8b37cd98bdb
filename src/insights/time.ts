/** Periods (weeks, months, … chosen from the span) and percentiles as the figures define them. Pure. */

export const DAY = 86_400_000;

/** The instant a UTC calendar day starts; any year (Date.UTC reads 0–99 as 1900–1999). */
function utc(year: number, month: number, day = 1): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  return d.getTime();
}

/** The ISO week (weeks start on Monday, UTC; week 1 holds the year's first Thursday) of an instant, as `2026-W49`. */
export function isoWeek(ms: number): string {
  const day = Math.floor(ms / DAY) * DAY;
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  const thursday = day + (3 - weekday) * DAY;
  const year = new Date(thursday).getUTCFullYear();
  const jan4 = utc(year, 0, 4);
  const firstThursday = jan4 + (3 - ((new Date(jan4).getUTCDay() + 6) % 7)) * DAY;
  const n = 1 + Math.round((thursday - firstThursday) / (7 * DAY));
  return `${yearText(year)}-W${String(n).padStart(2, '0')}`;
}

/** A year as ISO dates write it: four digits at least, a sign before the years before 1 BC's. */
const yearText = (y: number): string => (y < 0 ? `-${String(-y).padStart(4, '0')}` : String(y).padStart(4, '0'));

/** The first instant a Date holds: the first period of the longest unit starts before it. */
const FIRST = -8.64e15;

/** An instant's UTC day, `YYYY-MM-DD` (or ±YYYYYY-MM-DD past year 9999, as toISOString writes it); no earlier than FIRST's. */
export const dayText = (ms: number): string => {
  const iso = new Date(ms >= FIRST ? ms : FIRST).toISOString(); // NaN too: a start past the Date range
  return iso.slice(0, iso.indexOf('T'));
};

/**
 * A length of time the figures count runs by (README, Insights): weeks while
 * the runs' times fit in MAX_PERIODS of them, else months, quarters, years,
 * then 10, 100, … years, so a chain dated 1970 or 9999 gives a few dozen
 * periods, not hundreds of thousands. Periods are numbered from an origin;
 * each starts at a UTC midnight, so a day is wholly in one.
 */
export interface Unit {
  /** In words: `week`, `month`, `quarter`, `year`, `10 years`, … */
  per: string;
  index(ms: number): number;
  start(index: number): number;
  label(index: number): string;
}

/** The most periods one figure is counted in. */
export const MAX_PERIODS = 156;

/** 1970-01-05, a Monday: week 0. */
const MONDAY = 4 * DAY;
const WEEK: Unit = {
  per: 'week',
  index: (ms) => Math.floor((ms - MONDAY) / (7 * DAY)),
  start: (i) => MONDAY + i * 7 * DAY,
  label: (i) => isoWeek(MONDAY + i * 7 * DAY),
};

function months(n: 1 | 3): Unit {
  /** The year and month (0–11) period i starts in; floored, so years before 0 count too. */
  const at = (i: number) => {
    const year = Math.floor((i * n) / 12);
    return { year, month: i * n - year * 12 };
  };
  return {
    per: n === 1 ? 'month' : 'quarter',
    index: (ms) => {
      const d = new Date(ms);
      return Math.floor((d.getUTCFullYear() * 12 + d.getUTCMonth()) / n);
    },
    start: (i) => utc(at(i).year, at(i).month),
    label: (i) => {
      const { year, month } = at(i);
      return n === 1 ? `${yearText(year)}-${String(month + 1).padStart(2, '0')}` : `${yearText(year)}-Q${month / 3 + 1}`;
    },
  };
}

function years(n: number): Unit {
  return {
    per: n === 1 ? 'year' : `${n} years`,
    index: (ms) => Math.floor(new Date(ms).getUTCFullYear() / n),
    start: (i) => utc(i * n, 0),
    label: (i) => (n === 1 ? yearText(i) : `${yearText(i * n)}–${yearText(i * n + n - 1)}`),
  };
}

/** From shortest to longest; the last holds every instant a Date can (271,821 BC to AD 275,760) in 56 periods. */
const UNITS: readonly Unit[] = [WEEK, months(1), months(3), years(1), years(10), years(100), years(1000), years(10_000)];

/** The shortest unit that counts the instants from `from` to `to` in at most MAX_PERIODS periods; weeks when there are none. */
export function unitFor(from: number, to: number): Unit {
  if (!(from <= to)) return WEEK;
  return UNITS.find((u) => u.index(to) - u.index(from) + 1 <= MAX_PERIODS) ?? UNITS[UNITS.length - 1]!;
}

/** The unit a period's label is written in (`2026-W49`, `2026-11`, `2026-Q4`, `2026`, `2000–2099`), or null. */
export function unitOfLabel(label: string): Unit | null {
  if (/^-?\d{4,}-W(0[1-9]|[1-4]\d|5[0-3])$/.test(label)) return WEEK;
  if (/^-?\d{4,}-(0[1-9]|1[0-2])$/.test(label)) return UNITS[1]!;
  if (/^-?\d{4,}-Q[1-4]$/.test(label)) return UNITS[2]!;
  if (/^-?\d{4,}$/.test(label)) return UNITS[3]!;
  const range = /^(-?\d{4,})–(-?\d{4,})$/.exec(label);
  return range ? (UNITS.find((u) => u.per === `${Number(range[2]) - Number(range[1]) + 1} years`) ?? null) : null;
}

/** Whether an instant falls in the period a label names. */
export function inPeriod(ms: number, label: string): boolean {
  const u = unitOfLabel(label);
  return u !== null && u.label(u.index(ms)) === label;
}

/** Every period of a unit from the one holding `from` to the one holding `to`, in order: its index, label and first day. */
export function periodsBetween(unit: Unit, from: number, to: number): { index: number; period: string; from: string }[] {
  const out: { index: number; period: string; from: string }[] = [];
  for (let i = unit.index(from); i <= unit.index(to); i++) out.push({ index: i, period: unit.label(i), from: dayText(unit.start(i)) });
  return out;
}

export interface Spread {
  count: number;
  /** Nearest rank: the smallest value at least half (nine tenths) of the values do not exceed; null with no value. */
  p50Ms: number | null;
  p90Ms: number | null;
}

/** The nearest-rank percentile p (0–100] of values sorted ascending. */
function rank(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? { count: 0, p50Ms: null, p90Ms: null } : { count: sorted.length, p50Ms: rank(sorted, 50), p90Ms: rank(sorted, 90) };
}

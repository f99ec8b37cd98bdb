/** Weeks and percentiles as the figures define them. Pure. */

export const DAY = 86_400_000;

/** The ISO week (weeks start on Monday, UTC; week 1 holds the year's first Thursday) of an instant, as `2026-W49`. */
export function isoWeek(ms: number): string {
  const day = Math.floor(ms / DAY) * DAY;
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  const thursday = day + (3 - weekday) * DAY;
  const year = new Date(thursday).getUTCFullYear();
  const jan4 = Date.UTC(year, 0, 4);
  const firstThursday = jan4 + (3 - ((new Date(jan4).getUTCDay() + 6) % 7)) * DAY;
  const n = 1 + Math.round((thursday - firstThursday) / (7 * DAY));
  return `${year}-W${String(n).padStart(2, '0')}`;
}

/** The Monday (UTC, `YYYY-MM-DD`) a week starts on. */
export function weekStart(ms: number): string {
  const day = Math.floor(ms / DAY) * DAY;
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  return new Date(day - weekday * DAY).toISOString().slice(0, 10);
}

/** Every week from the one holding `from` to the one holding `to`, in order. */
export function weeksBetween(from: number, to: number): { week: string; from: string }[] {
  const out: { week: string; from: string }[] = [];
  for (let t = Date.parse(`${weekStart(from)}T00:00:00Z`); t <= to; t += 7 * DAY) out.push({ week: isoWeek(t), from: weekStart(t) });
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

/**
 * Times in words: relative to a given now ("in 2 days", "3 hours ago") and
 * exact in a given time zone ("Thu 3 Dec 2026, 19:54 CET"). No clock: the
 * caller passes now. Pure.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const UNITS: { unit: string; ms: number; below: number }[] = [
  { unit: 'minute', ms: MINUTE, below: 45 * MINUTE },
  { unit: 'hour', ms: HOUR, below: 36 * HOUR },
  { unit: 'day', ms: DAY, below: 14 * DAY },
  { unit: 'week', ms: 7 * DAY, below: 60 * DAY },
  { unit: 'month', ms: 30 * DAY, below: 365 * DAY },
  { unit: 'year', ms: 365 * DAY, below: Infinity },
];

/** "in 5 minutes", "3 hours ago", "in 2 days"; "just now" / "in under a minute" within a minute. Callers add "due". */
export function relativeTime(iso: string, now: Date): string {
  const diff = Date.parse(iso) - now.getTime();
  if (Number.isNaN(diff)) return iso;
  const size = Math.abs(diff);
  if (size < MINUTE) return diff < 0 ? 'just now' : 'in under a minute';
  const u = UNITS.find((x) => size < x.below) ?? UNITS[UNITS.length - 1]!;
  const n = Math.max(1, Math.round(size / u.ms));
  // In English words by hand: Intl.RelativeTimeFormat says the same, but loading its data costs every CLI call 30 ms.
  const amount = `${n} ${u.unit}${n === 1 ? '' : 's'}`;
  return diff < 0 ? `${amount} ago` : `in ${amount}`;
}

/** Whether Intl knows this IANA time zone name ("Europe/Berlin", "UTC"). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

// Building a DateTimeFormat costs far more than using one (a notification's words build several per transition), so each is kept.
const formats = new Map<string, Intl.DateTimeFormat>();

/** The zones whose clock is UTC's and whose short name is "UTC" in both locales used here. */
const UTC_ZONES: ReadonlySet<string> = new Set(['UTC', 'Etc/UTC']);
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
// en-GB's short month names, as ICU's English data has them ("Sept").
const MONTHS_GB = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/**
 * The fields this module asks for, read off UTC's clock by hand, or null for
 * anything else. The first Intl formatter a process builds loads ICU's data
 * (20–30 ms, a tenth of a CLI call); boards in UTC, the default, skip it.
 */
function utcParts(date: Date, timeZone: string, locale: string, opts: Intl.DateTimeFormatOptions): Record<string, string> | null {
  if (!UTC_ZONES.has(timeZone) || date.getUTCFullYear() < 1000 || date.getUTCFullYear() > 9999) return null;
  const out: Record<string, string> = {};
  for (const [key, how] of Object.entries(opts) as [keyof Intl.DateTimeFormatOptions, unknown][]) {
    if (key === 'weekday' && how === 'short') out.weekday = WEEKDAYS[date.getUTCDay()] ?? '';
    else if (key === 'day' && how === 'numeric') out.day = String(date.getUTCDate());
    else if (key === 'month' && how === 'short' && locale === 'en-GB') out.month = MONTHS_GB[date.getUTCMonth()] ?? '';
    else if (key === 'year' && how === 'numeric') out.year = String(date.getUTCFullYear());
    else if (key === 'hour' && how === '2-digit' && opts.hourCycle === 'h23') out.hour = two(date.getUTCHours());
    else if (key === 'minute' && how === '2-digit') out.minute = two(date.getUTCMinutes());
    else if (key === 'timeZoneName' && how === 'short') out.timeZoneName = 'UTC';
    else if (key !== 'hourCycle') return null;
  }
  return out;
}

function parts(date: Date, timeZone: string, locale: string, opts: Intl.DateTimeFormatOptions): Record<string, string> {
  const utc = utcParts(date, timeZone, locale, opts);
  if (utc) return utc;
  const key = `${locale} ${timeZone} ${JSON.stringify(opts)}`;
  let format = formats.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, { timeZone, ...opts });
    formats.set(key, format);
  }
  const out: Record<string, string> = {};
  for (const p of format.formatToParts(date)) out[p.type] = p.value;
  return out;
}

/** The zone's short name where one is in use ("CET", "EST", "UTC"), else its offset ("GMT+5:30"). */
function zoneName(date: Date, timeZone: string): string {
  const names = ['en-GB', 'en-US'].map((l) => parts(date, timeZone, l, { timeZoneName: 'short' }).timeZoneName ?? '');
  return names.find((n) => n !== '' && !n.startsWith('GMT')) ?? names[0] ?? timeZone;
}

/** "Thu 3 Dec 2026, 19:54 CET": the moment as a clock in that zone shows it. */
export function exactTime(iso: string, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const p = parts(date, timeZone, 'en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return `${p.weekday} ${p.day} ${p.month} ${p.year}, ${p.hour}:${p.minute} ${zoneName(date, timeZone)}`;
}

/** A calendar date ("2026-12-03") in words: "Thu 3 Dec 2026". It is a day, not a moment, so no zone applies. */
export function dateWords(ymd: string): string {
  const date = new Date(`${ymd}T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return ymd;
  const p = parts(date, 'UTC', 'en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
  return `${p.weekday} ${p.day} ${p.month} ${p.year}`;
}

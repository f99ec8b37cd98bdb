/**
 * A time as a person types it, read off a clock in a time zone ("2026-03-29
 * 02:30" in Berlin, no offset), and the zone named in words for the label
 * beside it. The zone's rules come from Intl, so summer time is whatever this
 * Node knows it to be. Pure.
 */

const WALL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?$/;
const DAY = 86_400_000;
const UTC_NAMES = /^(Etc\/)?(UTC|UCT|GMT|Zulu|Universal|Greenwich)$/i;

/** How far the zone's clocks are ahead of UTC at that instant, in ms. */
function offsetAt(ms: number, timeZone: string): number {
  const at = Math.floor(ms / 1000) * 1000;
  const p: Record<string, number> = {};
  const fmt = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  for (const x of fmt.formatToParts(at)) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return Date.UTC(p.year!, p.month! - 1, p.day, p.hour, p.minute, p.second) - at;
}

/**
 * The instant a clock time in `timeZone` stands for, as an RFC 3339 UTC time, or null when the text is no
 * clock time or no such day exists. A time that occurs twice (clocks going back) is the first of the two; a
 * time skipped when clocks go forward is read as the clock would have shown it without the jump (02:30 in a
 * zone that jumps from 02:00 to 03:00 is 03:30), the way calendars do.
 */
export function instantOf(wall: string, timeZone: string): string | null {
  const m = WALL.exec(wall);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(asUtc);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  // The zone's offset a day either side: around one change of the clocks, one of the two is the right one.
  const candidates = [offsetAt(asUtc - DAY, timeZone), offsetAt(asUtc + DAY, timeZone)].map((o) => asUtc - o);
  const exact = candidates.filter((t) => t + offsetAt(t, timeZone) === asUtc).sort((a, b) => a - b);
  const instant = exact[0] ?? candidates[0]!;
  const fraction = m[7] ?? '';
  return `${new Date(instant).toISOString().slice(0, 19)}${fraction}Z`;
}

/** The zone in words for a label: "UTC", or its place's time ("Berlin time", "New York time"). */
export function zoneWords(timeZone: string): string {
  if (UTC_NAMES.test(timeZone)) return 'UTC';
  const place = timeZone.split('/').pop() ?? timeZone;
  return `${place.replace(/_/g, ' ')} time`;
}

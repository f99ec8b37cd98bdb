/**
 * When the rungs of a work item's reminder ladder fall (pure): from the item
 * (when it opened, when it is due), its ladder (WORK.md's `reminders`) and the
 * clock. A rung due in quiet hours or on a day off waits for the next working
 * minute in the board's time zone; rungs go out in order; of several
 * reminders due at once (serve was down) only the last is sent. Nothing here
 * decides anything: a ladder only tells people
 * (docs/operators.md "Reminders and escalation ladders").
 */
import type { Ladder, Reminders, Weekday } from '../board/ladders.js';
import { instantOf } from '../words/index.js';

export type RungKind = 'remind' | 'escalate' | 'owner';

export interface Rung {
  /** Stable within the ladder: what the record of sent rungs is keyed by. */
  key: string;
  kind: RungKind;
  /** When the ladder puts it (ms since the epoch), before quiet hours and days off. */
  at: number;
  /** Who is told: null for the item's assignees, else a group, "operators" or a person's email. */
  to: string | null;
}

/** The item as a ladder sees it. */
export interface LadderItem {
  openedAt: string | null;
  due: string | null;
}

/** The board's calendar: its zone, quiet hours and working days. */
export interface Calendar {
  timeZone: string;
  quietHours: Reminders['quietHours'];
  workingDays: readonly Weekday[];
}

/** What became of a rung: sent, or passed over (a later reminder fell due with it). */
export interface RungRecord {
  at: string;
  sent: boolean;
  kind: RungKind;
  to: string | null;
}

export type RungRecords = Record<string, RungRecord>;

const KIND_ORDER: Record<RungKind, number> = { remind: 0, escalate: 1, owner: 2 };

/** Every rung of the ladder for this item, in order. Rungs that fall before the item opened are none of its. */
export function rungsOf(item: LadderItem, ladder: Ladder): Rung[] {
  const due = item.due ? Date.parse(item.due) : NaN;
  const opened = item.openedAt ? Date.parse(item.openedAt) : NaN;
  const anchor = Number.isNaN(due) ? opened : due;
  if (Number.isNaN(anchor)) return [];
  const out: Rung[] = [];
  if (!Number.isNaN(due)) for (const b of ladder.before) out.push({ key: `before-${b}`, kind: 'remind', at: due - b, to: null });
  if (ladder.after) for (let k = 1; k <= ladder.after.times; k++) out.push({ key: `after-${k}`, kind: 'remind', at: anchor + ladder.after.every * k, to: null });
  if (ladder.escalate) out.push({ key: 'escalate', kind: 'escalate', at: anchor + ladder.escalate.after, to: ladder.escalate.to });
  if (ladder.owner) out.push({ key: 'owner', kind: 'owner', at: anchor + ladder.owner.after, to: ladder.owner.to });
  return out.filter((r) => Number.isNaN(opened) || r.at > opened).sort((a, b) => a.at - b.at || KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
}

// ---- the calendar ----------------------------------------------------------------------

const formats = new Map<string, Intl.DateTimeFormat>();
const DAY_OF: Record<string, Weekday> = { Mon: 'mon', Tue: 'tue', Wed: 'wed', Thu: 'thu', Fri: 'fri', Sat: 'sat', Sun: 'sun' };

interface Local {
  y: number;
  mo: number;
  d: number;
  minute: number;
  day: Weekday;
}

/** The wall clock and weekday in `timeZone` at an instant. */
function localAt(ms: number, timeZone: string): Local {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', weekday: 'short', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    formats.set(timeZone, f);
  }
  const p: Record<string, string> = {};
  for (const x of f.formatToParts(ms)) p[x.type] = x.value;
  return { y: Number(p.year), mo: Number(p.month), d: Number(p.day), minute: Number(p.hour) * 60 + Number(p.minute), day: DAY_OF[p.weekday ?? ''] ?? 'mon' };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The instant of a wall clock time in `timeZone`, `plusDays` after the local date given. */
function instantAt(l: Local, plusDays: number, minute: number, timeZone: string): number {
  const day = new Date(Date.UTC(l.y, l.mo - 1, l.d + plusDays));
  const wall = `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}T${pad(Math.floor(minute / 60))}:${pad(minute % 60)}`;
  return Date.parse(instantOf(wall, timeZone) ?? '');
}

function inQuiet(minute: number, q: Calendar['quietHours']): boolean {
  if (!q) return false;
  return q.from < q.to ? minute >= q.from && minute < q.to : minute >= q.from || minute < q.to;
}

/** Why a moment is closed, or null when a rung may go out then. */
export function closedWhy(ms: number, cal: Calendar): 'day off' | 'quiet hours' | null {
  const l = localAt(ms, cal.timeZone);
  if (!cal.workingDays.includes(l.day)) return 'day off';
  return inQuiet(l.minute, cal.quietHours) ? 'quiet hours' : null;
}

/** The first moment at or after `ms` on a working day outside quiet hours, in the board's zone. */
export function openAt(ms: number, cal: Calendar): number {
  let t = ms;
  // A week of days off and a quiet span each day is at most 14 jumps.
  for (let i = 0; i < 16; i++) {
    const why = closedWhy(t, cal);
    if (why === null) return t;
    const l = localAt(t, cal.timeZone);
    const q = cal.quietHours;
    let next: number;
    if (why === 'day off' || !q) next = instantAt(l, 1, 0, cal.timeZone);
    else if (q.from > q.to && l.minute >= q.from) next = instantAt(l, 1, q.to, cal.timeZone);
    else next = instantAt(l, 0, q.to, cal.timeZone);
    t = Number.isNaN(next) || next <= t ? t + 60_000 : next;
  }
  return t;
}

// ---- what falls due ----------------------------------------------------------------------

export interface PlannedRung extends Rung {
  /** When it goes out: its `at`, or the end of the quiet hours or days off it falls in. */
  fireAt: number;
  /** What moved it, if anything. */
  waited: 'day off' | 'quiet hours' | null;
}

/** The rungs not yet sent or passed over, each with when it goes out, in order. */
export function pendingRungs(item: LadderItem, ladder: Ladder, cal: Calendar, done: RungRecords): PlannedRung[] {
  return rungsOf(item, ladder)
    .filter((r) => !done[r.key])
    .map((r) => ({ ...r, fireAt: openAt(r.at, cal), waited: closedWhy(r.at, cal) }));
}

/**
 * What goes out now: every rung whose time has come, in order, except that
 * of several reminders due together only the last is sent (the others are
 * passed over). Escalations and the owner's rung are always sent.
 */
export function dueRungs(item: LadderItem, ladder: Ladder, cal: Calendar, done: RungRecords, now: number): { send: PlannedRung[]; pass: PlannedRung[] } {
  const due = pendingRungs(item, ladder, cal, done).filter((r) => r.fireAt <= now);
  const lastRemind = due.filter((r) => r.kind === 'remind').at(-1);
  return {
    send: due.filter((r) => r.kind !== 'remind' || r === lastRemind),
    pass: due.filter((r) => r.kind === 'remind' && r !== lastRemind),
  };
}

/** The next rung to go out, or null when the ladder is done. */
export function nextRung(item: LadderItem, ladder: Ladder, cal: Calendar, done: RungRecords): PlannedRung | null {
  return pendingRungs(item, ladder, cal, done)[0] ?? null;
}

/** The calendar WORK.md gives the board. */
export function calendarOf(reminders: Reminders, timeZone: string): Calendar {
  return { timeZone, quietHours: reminders.quietHours, workingDays: reminders.workingDays };
}

/**
 * A work item's reminder ladder rung by rung (pure), for `workboard
 * reminders`: when each rung fell or will fall, whom it tells and by which
 * channel, what quiet hours or a day off moved, and which were sent or passed
 * over (docs/operators.md "Reminders and escalation ladders"). Built from the
 * same rungs, calendar and record of rungs sent that serve's daemon uses
 * (ladder.ts), so what it says is what serve does.
 */
import type { Ladder } from '../board/ladders.js';
import type { Manifest } from '../board/manifest.js';
import type { Assignment } from '../protocol/views.js';
import { exactTime, personName, relativeTime, type PersonLike } from '../words/index.js';
import { closedWhy, openAt, rungsOf, type Calendar, type Rung, type RungKind, type RungRecords } from './ladder.js';
import { audienceWords, rungRecipients } from './ladder-notes.js';
import type { Delivery, OutboxEntry } from './outbox.js';
import { planDeliveries, personOf } from './schedule.js';

/** Where a rung stands: sent, passed over (a later reminder went with it), due and not sent yet (no serve ran), or still to come. */
export type RungStatus = 'sent' | 'passed over' | 'due' | 'to come';

/** One way a rung's message goes out, and how that went (`planned` for a rung still to come). */
export interface RungWay {
  channel: 'email' | 'digest' | 'slack' | 'webhook' | 'command';
  /** The person an email or digest is for; null for the board's Slack channel, webhook and command. */
  person: string | null;
  status: 'planned' | 'sent' | 'waiting' | 'parked' | 'not sent';
  /** Why it is not sent (a person who chose none, a test run), or the last error of a parked one. */
  why?: string;
}

export interface RungRow {
  key: string;
  kind: RungKind;
  /** Before/after the due time (or after the item opened), in ms; null for a rung the ladder no longer has. */
  offset: number | null;
  /** When the ladder puts it, and when it goes out (later, when that falls in quiet hours or on a day off). */
  at: string;
  fireAt: string;
  waited: 'quiet hours' | 'day off' | null;
  status: RungStatus;
  /** When it was sent or passed over. */
  recordedAt: string | null;
  /** A group, "operators" or a person's email; null: the item's assignees. */
  audience: string | null;
  recipients: string[];
  /** How its message goes out; null when the outbox no longer holds a sent rung's message. */
  ways: RungWay[] | null;
}

export interface ItemForLadder {
  runId: string;
  workItemId: string;
  mode: 'live' | 'test';
  openedAt: string | null;
  due: string | null;
  assigned: Assignment;
}

const iso = (ms: number) => new Date(ms).toISOString();
const LADDER_KINDS: Record<RungKind, string> = { remind: 'reminder', escalate: 'ladder_escalation', owner: 'ladder_owner' };

function wayOf(key: string, d: Delivery, planned: boolean): RungWay {
  const channel = key.startsWith('digest:') ? 'digest' : key.startsWith('email:') ? 'email' : key === 'slack' || key === 'webhook' || key === 'command' ? key : 'email';
  const person = personOf(key);
  const status: RungWay['status'] = d.skipped ? 'not sent' : planned ? 'planned' : d.doneAt ? 'sent' : d.parkedAt ? 'parked' : 'waiting';
  const why = d.skipped ?? (d.parkedAt ? d.lastError : undefined);
  return { channel, person, status, ...(why ? { why } : {}) };
}

/** The message of a sent rung in the outbox: the run's entry of the rung's kind written in the rung's commit. */
function entryOf(item: ItemForLadder, kind: RungKind, at: string, outbox: readonly OutboxEntry[]): OutboxEntry | undefined {
  return outbox.find((e) => e.runId === item.runId && e.workItemId === item.workItemId && e.kind === LADDER_KINDS[kind] && e.at === at);
}

/** Every rung of the item's ladder, and any the record holds that the ladder no longer has, in order. */
export function ladderRows(item: ItemForLadder, ladder: Ladder, cal: Calendar, done: RungRecords, manifest: Manifest, outbox: readonly OutboxEntry[], now: number): RungRow[] {
  const due = item.due ? Date.parse(item.due) : NaN;
  const anchor = Number.isNaN(due) ? Date.parse(item.openedAt ?? '') : due;
  const rungs: (Rung & { offset: number | null })[] = rungsOf(item, ladder).map((r) => ({ ...r, offset: r.at - anchor }));
  for (const [key, rec] of Object.entries(done)) if (!rungs.some((r) => r.key === key)) rungs.push({ key, kind: rec.kind, at: Date.parse(rec.at), to: rec.to, offset: null });
  rungs.sort((a, b) => a.at - b.at);
  return rungs.map((r) => {
    const rec = done[r.key];
    const fire = openAt(r.at, cal);
    const recipients = [...new Set(rungRecipients(r, item.assigned, manifest).map((x) => x.toLowerCase()))];
    const status: RungStatus = rec ? (rec.sent ? 'sent' : 'passed over') : fire <= now ? 'due' : 'to come';
    let ways: RungWay[] | null = null;
    if (status === 'sent') {
      const entry = entryOf(item, r.kind, rec?.at ?? '', outbox);
      ways = entry ? Object.entries(entry.deliveries ?? planDeliveries(entry, manifest, entry.at)).map(([k, d]) => wayOf(k, d, false)) : null;
    } else if (status !== 'passed over') {
      ways = Object.entries(planDeliveries({ mode: item.mode, recipients }, manifest, iso(now))).map(([k, d]) => wayOf(k, d, true));
    }
    return { key: r.key, kind: r.kind, offset: r.offset, at: iso(r.at), fireAt: iso(fire), waited: closedWhy(r.at, cal), status, recordedAt: rec?.at ?? null, audience: r.to, recipients, ways };
  });
}

// ---- in words --------------------------------------------------------------------------

const UNITS: [number, string][] = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
];

/** A ladder's span as WORK.md gave it: "1 day", "4 hours", "90 seconds". */
export function spanWords(ms: number): string {
  const [size, unit] = UNITS.find(([u]) => ms % u === 0) ?? [1000, 'second'];
  const n = Math.round(ms / size);
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** What the rung is: "Reminder 2 hours before it is due", "To the finance leads", "To the process owner, Mira Okafor". */
function rungWords(r: RungRow, hasDue: boolean, people: readonly PersonLike[]): string {
  if (r.kind === 'escalate') return `To ${audienceWords(r.audience ?? '', people)}`;
  if (r.kind === 'owner') return `To the process owner, ${audienceWords(r.audience ?? '', people)}`;
  if (r.offset === null) return 'Reminder';
  if (r.offset < 0) return `Reminder ${spanWords(-r.offset)} before it is due`;
  return `Reminder ${spanWords(r.offset)} after ${hasDue ? 'it is due' : 'it opened'}`;
}

const CHANNEL_WORDS: Record<RungWay['channel'], string> = { email: 'email', digest: 'the daily digest', slack: 'Slack', webhook: 'the webhook', command: 'the notify command' };

function wayWords(w: RungWay, people: readonly PersonLike[]): string {
  const what = w.person ? `${w.channel === 'digest' ? `${personName(people, w.person)}'s digest` : `email to ${personName(people, w.person)}`}` : CHANNEL_WORDS[w.channel];
  if (w.status === 'planned') return what;
  if (w.status === 'not sent') return `${what} not sent (${w.why ?? 'skipped'})`;
  if (w.status === 'parked') return `${what} parked (${w.why ?? 'it kept failing'}: workboard notifications retry)`;
  return `${what} ${w.status}`;
}

function list(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1) ?? ''}`;
}

/** One rung as a line a person reads: what it is, when, whom it tells, by which channel, and how it went. */
export function rungLine(r: RungRow, hasDue: boolean, timeZone: string, now: Date, people: readonly PersonLike[]): string {
  const when = (t: string) => `${exactTime(t, timeZone)} (${relativeTime(t, now)})`;
  const whom = r.recipients.length > 0 ? `to ${list(r.recipients.map((e) => personName(people, e)))}` : 'to nobody (no one is assigned)';
  const ways =
    r.ways === null ? '; its message is no longer in the outbox' : r.ways.length === 0 ? '; no channel is configured, so it is only recorded' : `, by ${list(r.ways.map((w) => wayWords(w, people)))}`;
  const moved = r.waited ? `falls at ${exactTime(r.at, timeZone)}, ${r.waited === 'quiet hours' ? 'in quiet hours' : 'on a day off'}, so ` : '';
  let state: string;
  if (r.status === 'sent') state = `sent ${when(r.recordedAt ?? r.fireAt)} ${whom}${ways}`;
  else if (r.status === 'passed over') return `${rungWords(r, hasDue, people)}: passed over ${when(r.recordedAt ?? r.fireAt)}, a later reminder went out in its place.`;
  else if (r.status === 'due') state = `${moved}due since ${when(r.fireAt)}, not sent yet (workboard serve sends it) ${whom}${ways}`;
  else state = `${moved}goes ${when(r.fireAt)} ${whom}${ways}`;
  return `${rungWords(r, hasDue, people)}: ${state}.`;
}

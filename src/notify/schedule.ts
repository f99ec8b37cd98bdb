/**
 * How a notification goes out and when it is tried again (pure): which
 * deliveries it gets from WORK.md as it is when first planned, whether a
 * person is still to be told at a later attempt, exponential backoff after a
 * failure, and parking after the board's maximum attempts.
 */
import type { Manifest } from '../board/manifest.js';
import type { Delivery, OutboxEntry } from './outbox.js';
import type { Notification } from './rules.js';

const FIRST_RETRY_MS = 15_000;
const MAX_RETRY_MS = 3_600_000;

/** The wait after the n-th failed attempt: 15 s, 30 s, 1 min … capped at an hour, with up to 10% jitter. */
export function backoffMs(attempts: number, jitter: number = Math.random()): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (1 + 0.1 * jitter));
}

/** The channel a delivery goes out on: a person's email and digest both go by email. */
export type Channel = 'command' | 'webhook' | 'email' | 'slack';

export function channelOf(key: string): Channel {
  return key === 'command' || key === 'webhook' || key === 'slack' ? key : 'email';
}

/** The person an email or digest delivery is for, or null for the command, the webhook and Slack. */
export function personOf(key: string): string | null {
  const at = key.indexOf(':');
  return at < 0 ? null : key.slice(at + 1);
}

/** Why a person is not told, from WORK.md as it is now (no longer on the board, or chose none), or null when they are. */
export function personSkip(manifest: Manifest, email: string): string | null {
  const person = manifest.people.find((p) => p.email.toLowerCase() === email.toLowerCase());
  if (!person) return 'no longer on the board';
  return person.notify === 'none' ? 'chose no notifications' : null;
}

/**
 * Every delivery a notification gets: the board's command and webhook once
 * each, and per recipient an email or a place in their digest, as their
 * preference says. Test runs, news too old to send (`notSent`), people who
 * chose none and people no longer on the board are recorded as skipped, with why.
 */
export function planDeliveries(n: Pick<Notification, 'mode' | 'recipients'>, manifest: Manifest, at: string, notSent?: string): Record<string, Delivery> {
  const ready: Delivery = { attempts: 0, nextAt: at };
  const skip = (why: string): Delivery => ({ attempts: 0, skipped: why });
  const out: Record<string, Delivery> = {};
  // Why nothing of it goes out at all, if so: a test run, or news too old to send when first seen.
  const none = notSent ?? (n.mode === 'test' ? 'test run' : undefined);
  if (manifest.notify) out.command = none ? skip(none) : { ...ready };
  if (manifest.notifications.webhook) out.webhook = none ? skip(none) : { ...ready };
  if (manifest.notifications.slack) out.slack = none ? skip(none) : { ...ready };
  if (manifest.notifications.email) {
    const people = new Map(manifest.people.map((p) => [p.email.toLowerCase(), p]));
    for (const email of n.recipients) {
      const pref = people.get(email.toLowerCase())?.notify ?? 'email';
      const why = none ?? personSkip(manifest, email);
      out[`${pref === 'digest' ? 'digest' : 'email'}:${email}`] = why ? skip(why) : { ...ready };
    }
  }
  return out;
}

/** A delivery after it went out. */
export function delivered(d: Delivery, at: string): Delivery {
  const { nextAt: _n, lastError: _e, ...rest } = d;
  return { ...rest, attempts: d.attempts + 1, doneAt: at };
}

/** A delivery that will not go out after all (its person left or chose none before this attempt). */
export function skipped(d: Delivery, why: string): Delivery {
  const { nextAt: _n, ...rest } = d;
  return { ...rest, skipped: why };
}

/** A delivery after a failed attempt: tried again later, or parked once it has failed `maxAttempts` times. */
export function failed(d: Delivery, error: string, now: Date, maxAttempts: number, jitter?: number): Delivery {
  const attempts = d.attempts + 1;
  const { nextAt: _n, ...rest } = d;
  if (attempts >= maxAttempts) return { ...rest, attempts, lastError: error, parkedAt: now.toISOString() };
  return { ...rest, attempts, lastError: error, nextAt: new Date(now.getTime() + backoffMs(attempts, jitter)).toISOString() };
}

/** An operator's retry: parked deliveries are tried again now, counting from zero. */
export function retried(e: OutboxEntry, at: string): OutboxEntry {
  if (!e.deliveries) return e;
  const deliveries: Record<string, Delivery> = {};
  for (const [k, d] of Object.entries(e.deliveries)) {
    if (!d.parkedAt) deliveries[k] = d;
    else {
      const { parkedAt: _p, ...rest } = d;
      deliveries[k] = { ...rest, attempts: 0, nextAt: at };
    }
  }
  return { ...e, deliveries };
}

/** Whether a delivery is to be tried now: waiting, and its time has come. */
export function isDue(d: Delivery, now: Date): boolean {
  return d.nextAt !== undefined && Date.parse(d.nextAt) <= now.getTime();
}

/** The deliveries of an entry that are due now (digests are sent by their own schedule). */
export function dueKeys(e: OutboxEntry, now: Date): string[] {
  return Object.entries(e.deliveries ?? {})
    .filter(([k, d]) => !k.startsWith('digest:') && isDue(d, now))
    .map(([k]) => k);
}

/** When the entry next needs the courier (ms since the epoch), or null when nothing of it waits on time; `busy` deliveries (being tried) are left out. */
export function nextWake(e: OutboxEntry, busy: (key: string) => boolean = () => false): number | null {
  let best: number | null = null;
  for (const [k, d] of Object.entries(e.deliveries ?? {})) {
    if (k.startsWith('digest:') || d.nextAt === undefined || busy(k)) continue;
    const t = Date.parse(d.nextAt);
    if (best === null || t < best) best = t;
  }
  return best;
}

/** What the outbox holds still to go out, per channel, and since when the oldest of it has been due (for serve's /readyz and /metrics). */
export interface Backlog {
  /** Deliveries not yet sent, skipped or parked (digests included). */
  waiting: Record<Channel, number>;
  /** Deliveries parked for an operator after their last attempt failed. */
  parked: Record<Channel, number>;
  /** The earliest `nextAt` among deliveries due by `now` (digests left out: they go by their own schedule), or null. */
  oldestDueAt: number | null;
}

export function emptyBacklog(): Backlog {
  return { waiting: { command: 0, webhook: 0, email: 0, slack: 0 }, parked: { command: 0, webhook: 0, email: 0, slack: 0 }, oldestDueAt: null };
}

/** Add one entry's deliveries to `into`. */
export function addToBacklog(into: Backlog, e: OutboxEntry, now: number): void {
  for (const [k, d] of Object.entries(e.deliveries ?? {})) {
    const channel = channelOf(k);
    if (d.parkedAt) into.parked[channel]++;
    if (d.doneAt || d.skipped || d.parkedAt) continue;
    into.waiting[channel]++;
    if (k.startsWith('digest:') || d.nextAt === undefined) continue;
    const at = Date.parse(d.nextAt);
    if (at <= now && (into.oldestDueAt === null || at < into.oldestDueAt)) into.oldestDueAt = at;
  }
}

/**
 * The durable outbox, `.work/notifications/`: one JSON file per notification,
 * named by its run (or `board`) and id. A run's notifications are records of
 * the commit of the transition that causes them, so they commit or roll back
 * with it; the courier (courier.ts) records each delivery's attempts in
 * the same file, under a lock per notification held only to change the file.
 */
import { OUTBOX_DIR } from '../board/layout.js';
import { sha256Hex } from '../core/hash.js';
import { idLength, idTime } from '../core/ids.js';
import type { StateRecord } from '../board/commit.js';
import type { WorkState } from '../board/state.js';
import type { Notification } from './rules.js';

export { OUTBOX_DIR };

/** One way a notification goes out: the command, the webhook, an email or a digest to one person. */
export interface Delivery {
  attempts: number;
  /** When to try next (ISO); absent once done, skipped or parked. */
  nextAt?: string;
  doneAt?: string;
  /** Why it was not sent and never will be (a test run, a person who chose none or left). */
  skipped?: string;
  parkedAt?: string;
  lastError?: string;
}

/** A notification as stored: what it says, and (once the courier has planned it) how each delivery went. */
export interface OutboxEntry extends Notification {
  deliveries: Record<string, Delivery> | null;
}

/** An entry's file name in the outbox. */
export function entryName(n: Pick<Notification, 'id' | 'runId'>): string {
  return `${n.runId ?? 'board'}-${n.id}.json`;
}

/** The length of a run's notification's file name, '<run id>-<notification id>.json'. */
export const RUN_ENTRY_NAME_LENGTH = idLength('r') + 1 + idLength('n') + '.json'.length;

/** When an entry's notification was made, from its file name; null for a name of another shape (made by hand). */
export function entryMadeAt(name: string): number | null {
  return name.endsWith('.json') ? idTime(name.slice(0, -'.json'.length)) : null;
}

export function entryFile(n: Pick<Notification, 'id' | 'runId'>): string {
  return `${OUTBOX_DIR}/${entryName(n)}`;
}

/** The name of the lock on an entry's file (by file name), held to read, change and write it. */
export function entryLock(name: string): string {
  return `notify-${name.replace(/\.json$/, '')}`;
}

/** The name of the lock on one delivery of an entry, held for the whole attempt: two couriers never try one delivery at once. */
export function deliveryLock(name: string, key: string): string {
  return `${entryLock(name)}-${sha256Hex(key).slice(0, 16)}`;
}

const text = (e: OutboxEntry) => `${JSON.stringify(e, null, 2)}\n`;

/** The outbox records of a transition's notifications, for its commit. */
export function outboxRecords(notes: readonly Notification[]): StateRecord[] {
  return notes.map((n) => ({ rel: entryFile(n), bytes: text({ ...n, deliveries: null }) }));
}

/** Record a notification outside any run transaction (about the board itself). */
export function enqueue(state: WorkState, n: Notification): Promise<void> {
  return state.replace(entryFile(n), text({ ...n, deliveries: null }));
}

export function writeEntry(state: WorkState, e: OutboxEntry): Promise<void> {
  return state.replace(entryFile(e), text(e));
}

/**
 * Change one delivery of an entry under the entry's lock, reading it afresh,
 * so deliveries of one entry recorded at once each keep their own result.
 * Returns the delivery as written, or null when the entry or the delivery is gone.
 */
export function updateDelivery(state: WorkState, name: string, key: string, change: (d: Delivery) => Delivery): Promise<Delivery | null> {
  return state.locked(entryLock(name), async () => {
    const e = await readEntry(state, name);
    const d = e?.deliveries?.[key];
    if (!e || !d) return null;
    const next = change(d);
    await writeEntry(state, { ...e, deliveries: { ...e.deliveries, [key]: next } });
    return next;
  });
}

/** The outbox's file names, oldest id last within a run (ids are time-ordered). */
export function entryNames(state: WorkState): string[] {
  return state.list(OUTBOX_DIR).filter((n) => n.endsWith('.json') && !n.includes('.tmp-'));
}

/** One entry by file name; null when it is gone or is not an outbox entry (a damaged file is left for doctor). */
export async function readEntry(state: WorkState, name: string): Promise<OutboxEntry | null> {
  const bytes = await state.read(`${OUTBOX_DIR}/${name}`);
  if (!bytes) return null;
  try {
    const e = JSON.parse(bytes.toString('utf8')) as OutboxEntry;
    return typeof e.id === 'string' && typeof e.kind === 'string' && Array.isArray(e.recipients) ? e : null;
  } catch {
    return null;
  }
}

/** Every entry now in the outbox (for the CLI and doctor). */
export async function allEntries(state: WorkState): Promise<OutboxEntry[]> {
  const out: OutboxEntry[] = [];
  for (const name of entryNames(state)) {
    const e = await readEntry(state, name);
    if (e) out.push(e);
  }
  return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : 1));
}

export type EntryStatus = 'pending' | 'sent' | 'parked' | 'not sent';

/** Where an entry stands: every delivery finished (sent, or not sent for a stated reason), some parked, or still going. */
export function statusOf(e: OutboxEntry): EntryStatus {
  if (!e.deliveries) return 'pending';
  const ds = Object.values(e.deliveries);
  if (ds.some((d) => d.parkedAt)) return 'parked';
  if (ds.some((d) => !d.doneAt && !d.skipped)) return 'pending';
  return ds.some((d) => d.doneAt) ? 'sent' : 'not sent';
}

/**
 * The durable outbox, `.work/notifications/`: one JSON file per notification,
 * named by its run (or `board`) and id. A run's notifications are staged in
 * the transaction of the transition that causes them, so they commit or roll
 * back with it; the courier (courier.ts) records each delivery's attempts in
 * the same file, under a lock per notification.
 */
import { promises as fs } from 'node:fs';
import { readIfExists, writeFileAtomic } from '../board/fsutil.js';
import { OUTBOX_DIR } from '../board/layout.js';
import type { BoardStore } from '../board/store.js';
import type { Tx } from '../board/tx.js';
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

export function entryFile(n: Pick<Notification, 'id' | 'runId'>): string {
  return `${OUTBOX_DIR}/${n.runId ?? 'board'}-${n.id}.json`;
}

const text = (e: OutboxEntry) => `${JSON.stringify(e, null, 2)}\n`;

/** Stage notifications with the transition that causes them. */
export function stage(tx: Tx, notes: readonly Notification[]): void {
  for (const n of notes) tx.writeState(entryFile(n), text({ ...n, deliveries: null }));
}

/** Record a notification outside any run transaction (about the board itself). */
export async function enqueue(store: BoardStore, n: Notification): Promise<void> {
  await fs.mkdir(store.abs(OUTBOX_DIR), { recursive: true });
  await writeFileAtomic(store.abs(entryFile(n)), text({ ...n, deliveries: null }));
}

export async function writeEntry(store: BoardStore, e: OutboxEntry): Promise<void> {
  await writeFileAtomic(store.abs(entryFile(e)), text(e));
}

/** The outbox's file names, oldest id last within a run (ids are time-ordered). */
export async function entryNames(store: BoardStore): Promise<string[]> {
  const names = await fs.readdir(store.abs(OUTBOX_DIR)).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.json') && !n.includes('.tmp-')).sort();
}

/** One entry by file name; null when it is gone or is not an outbox entry (a damaged file is left for doctor). */
export async function readEntry(store: BoardStore, name: string): Promise<OutboxEntry | null> {
  const bytes = await readIfExists(store.abs(`${OUTBOX_DIR}/${name}`));
  if (!bytes) return null;
  try {
    const e = JSON.parse(bytes.toString('utf8')) as OutboxEntry;
    return typeof e.id === 'string' && typeof e.kind === 'string' && Array.isArray(e.recipients) ? e : null;
  } catch {
    return null;
  }
}

/** Every entry now in the outbox (for the CLI and doctor). */
export async function allEntries(store: BoardStore): Promise<OutboxEntry[]> {
  const out: OutboxEntry[] = [];
  for (const name of await entryNames(store)) {
    const e = await readEntry(store, name);
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

/**
 * `serve --git-sync`'s state, for the people who look after it: when the last
 * sync succeeded, the last failure and its words, and when the next try is.
 * The daemon writes it to `.work/git-sync.json` after every try (docs/git.md
 * "When a sync fails"); `workboard doctor` and the operators' doctor page read
 * it. The backoff and the words are pure; reading and writing go through the
 * board's `.work/` records.
 */
import { hostname } from 'node:os';
import { pidAlive } from '../board/lock.js';
import type { WorkState } from '../board/state.js';
import { SYNC_STATE_FILE } from '../board/layout.js';
import { relativeTime } from '../words/index.js';

export { SYNC_STATE_FILE };

export interface SyncState {
  /** The serve that syncs: its process id and host, so a reader can tell a record left by one that stopped. */
  pid: number;
  host: string;
  /** `--git-sync`, in milliseconds: the gap between syncs while they succeed. */
  everyMs: number;
  runs: number;
  failures: number;
  /** Failed syncs since the last good one. */
  failingInARow: number;
  lastGoodAt: string | null;
  /** When the last good syncs ended, oldest first, at most GOOD_SYNCS_KEPT: how far another clone's lines could have travelled here (clone-offer.ts). */
  goodAt: string[];
  lastFailureAt: string | null;
  /** The last failure in words (the remote's own, for a declined push). */
  lastFailure: string | null;
  /** The last failure was the remote declining the push: no retry mends that, a person must. */
  declined: boolean;
  nextTryAt: string | null;
}

/** How many of the last good syncs' times the record keeps. */
export const GOOD_SYNCS_KEPT = 3;

/** The longest wait between tries after failures: 15 minutes, or the interval itself when that is longer. */
export const MAX_BACKOFF_MS = 15 * 60_000;

/**
 * How long to wait before the next sync: the interval while syncs succeed;
 * after failures, the interval doubled for each failure in a row, up to
 * MAX_BACKOFF_MS (or the interval, when longer). A declined push backs off
 * the same way: it stays visible in doctor while it waits for a person.
 */
export function nextSyncDelay(everyMs: number, failingInARow: number): number {
  if (failingInARow <= 0) return everyMs;
  const cap = Math.max(everyMs, MAX_BACKOFF_MS);
  return Math.min(cap, everyMs * 2 ** Math.min(failingInARow, 30));
}

/**
 * The record after one try, at `now`: a success clears the run of failures, a
 * failure adds to it. `wall`: the wall's time, which `goodAt` keeps because it
 * is compared with lines other processes stamped (docs/architecture.md
 * "Test-only seams"); it is `now` unless a test set serve's clock ahead.
 */
export function afterTry(prev: SyncState, now: Date, outcome: { ok: true } | { ok: false; message: string; declined: boolean }, wall = now): SyncState {
  const s: SyncState = { ...prev, runs: prev.runs + 1 };
  if (outcome.ok) Object.assign(s, { failingInARow: 0, lastGoodAt: now.toISOString(), goodAt: [...prev.goodAt, wall.toISOString()].slice(-GOOD_SYNCS_KEPT) });
  else Object.assign(s, { failures: prev.failures + 1, failingInARow: prev.failingInARow + 1, lastFailureAt: now.toISOString(), lastFailure: outcome.message, declined: outcome.declined });
  s.nextTryAt = new Date(now.getTime() + nextSyncDelay(s.everyMs, s.failingInARow)).toISOString();
  return s;
}

export function freshSyncState(pid: number, host: string, everyMs: number, now: Date): SyncState {
  return {
    pid,
    host,
    everyMs,
    runs: 0,
    failures: 0,
    failingInARow: 0,
    lastGoodAt: null,
    goodAt: [],
    lastFailureAt: null,
    lastFailure: null,
    declined: false,
    nextTryAt: new Date(now.getTime() + everyMs).toISOString(),
  };
}

const isState = (v: unknown): v is SyncState =>
  typeof v === 'object' && v !== null && 'everyMs' in v && typeof v.everyMs === 'number' && 'failingInARow' in v && typeof v.failingInARow === 'number' && 'pid' in v && typeof v.pid === 'number';

export async function readSyncState(state: WorkState): Promise<SyncState | null> {
  const text = await state.readText(SYNC_STATE_FILE);
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as unknown;
    if (!isState(v)) return null;
    // A record written before the good syncs' times were kept has none.
    return Array.isArray(v.goodAt) && v.goodAt.every((t) => typeof t === 'string') ? v : { ...v, goodAt: [] };
  } catch {
    return null; // torn by a crash mid-write: the next try writes it whole
  }
}

/** Whether the serve that wrote the record still runs (on this machine: a record from another host is not this clone's). */
export function syncingServeRuns(s: SyncState): boolean {
  return s.host === hostname() && pidAlive(s.pid);
}

export async function writeSyncState(state: WorkState, s: SyncState): Promise<void> {
  await state.replace(SYNC_STATE_FILE, `${JSON.stringify(s, null, 2)}\n`);
}

/**
 * The state in words, one sentence each: the last good sync, the last failure
 * with its words, the next try. `running`: whether the serve that wrote it is
 * still running (a stopped serve tries nothing next).
 */
export function syncStateWords(s: SyncState, now: Date, running: boolean): { good: string; failure: string | null; next: string } {
  const at = (iso: string) => `${relativeTime(iso, now)} (${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')})`;
  const good = s.lastGoodAt ? `last good sync ${at(s.lastGoodAt)}` : 'no sync has succeeded yet';
  const failing = s.failingInARow > 0;
  const failure =
    s.lastFailureAt && s.lastFailure
      ? `${failing ? `failing: ${s.failingInARow} tr${s.failingInARow === 1 ? 'y' : 'ies'} in a row; ` : ''}last failure ${at(s.lastFailureAt)}: ${s.lastFailure}`
      : null;
  const wait = Math.round(nextSyncDelay(s.everyMs, s.failingInARow) / 1000);
  const next = !running
    ? 'serve --git-sync is not running here, so nothing will try again until it starts'
    : s.nextTryAt
      ? `next try ${at(s.nextTryAt)}${failing ? `, backing off to ${wait} s after ${s.failingInARow} failure${s.failingInARow === 1 ? '' : 's'} (every ${Math.round(s.everyMs / 1000)} s while syncs succeed)` : ''}`
      : 'next try soon';
  return { good, failure, next };
}

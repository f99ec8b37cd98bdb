/**
 * serve's readiness, judged from facts the server gathers (pure): which
 * checks pass, and in words why one fails, naming no run, person or file of
 * the board's content (docs/operations.md, Health and readiness).
 */

export const CHECKS = ['board', 'recovery', 'commit_log', 'outbox', 'sync', 'event_loop'] as const;
export type Check = (typeof CHECKS)[number];

export interface ReadinessFacts {
  now: number;
  /** WORK.md is where the board was opened. */
  boardThere: boolean;
  /** The daemon has recovered the board and watches it (false before, and once it stops). */
  running: boolean;
  stopping: boolean;
  /** null: a file can be made in the commit log's folder and the last flush succeeded; else the error's code. */
  commitLog: string | null;
  /** Since when the oldest delivery the outbox holds has been due (ms since the epoch), or null. */
  outboxOldestDueAt: number | null;
  /** How long a delivery may stay due before the outbox counts as stuck. */
  outboxStuckMs: number;
  /** Syncs failed in a row since the last good one; null without `--git-sync`. */
  syncFailingInARow: number | null;
  /** How long serve's main event loop has not turned: 0 when asked on that loop (it is turning); the ops thread reads it from the heartbeat. */
  loopStalledMs: number;
}

/** A main loop that has not turned for this long is stuck: no call is being answered. */
export const LOOP_STUCK_MS = 5000;

/** Liveness: the process answers, and its main event loop is not stuck. */
export function health(loopStalledMs: number): { live: boolean; body: { status: string; stalledSeconds?: number } } {
  if (loopStalledMs <= LOOP_STUCK_MS) return { live: true, body: { status: 'ok' } };
  return { live: false, body: { status: 'stuck', stalledSeconds: Math.round(loopStalledMs / 1000) } };
}

/** Failed syncs in a row before readiness fails: one failure is a network blip, three are a problem for an operator. */
export const SYNC_FAILURES_NOT_READY = 3;

export interface Readiness {
  ready: boolean;
  /** Every check: 'ok', or why it fails. */
  checks: Record<Check, string>;
  /** The checks that fail, in CHECKS order. */
  failed: Check[];
}

export function readiness(f: ReadinessFacts): Readiness {
  const checks: Record<Check, string> = {
    board: f.boardThere ? 'ok' : 'WORK.md is not where the board was opened',
    recovery: f.stopping ? 'the server is shutting down' : f.running ? 'ok' : 'recovery has not finished',
    commit_log: f.commitLog === null ? 'ok' : `the commit log cannot be written (${f.commitLog})`,
    outbox: 'ok',
    sync: 'ok',
    event_loop: f.loopStalledMs > LOOP_STUCK_MS ? `serve's event loop has not turned for ${Math.round(f.loopStalledMs / 1000)} s` : 'ok',
  };
  if (f.outboxOldestDueAt !== null && f.now - f.outboxOldestDueAt > f.outboxStuckMs) {
    checks.outbox = `a notification has waited ${Math.round((f.now - f.outboxOldestDueAt) / 1000)} s past its time (stuck after ${f.outboxStuckMs / 1000} s)`;
  }
  if (f.syncFailingInARow !== null && f.syncFailingInARow >= SYNC_FAILURES_NOT_READY) checks.sync = `the last ${f.syncFailingInARow} syncs with the git remote failed`;
  const failed = CHECKS.filter((c) => checks[c] !== 'ok');
  return { ready: failed.length === 0, checks, failed };
}

/**
 * Readiness judged from facts (http/readiness.ts), without a server: every
 * check passes on a healthy serve; each failing fact fails its own check,
 * named, with its reason; several fail together in one answer.
 */
import { describe, expect, it } from 'vitest';
import { health, LOOP_STUCK_MS, readiness, type ReadinessFacts } from '../../src/http/readiness.js';

const NOW = Date.parse('2026-12-05T09:00:00.000Z');
const healthy: ReadinessFacts = {
  now: NOW,
  boardThere: true,
  running: true,
  stopping: false,
  commitLog: null,
  outboxOldestDueAt: null,
  outboxStuckMs: 300_000,
  syncFailingInARow: null,
  loopStalledMs: 0,
};

describe('readiness', () => {
  it('is ready when every fact is good', () => {
    expect(readiness(healthy)).toEqual({ ready: true, failed: [], checks: { board: 'ok', recovery: 'ok', commit_log: 'ok', outbox: 'ok', sync: 'ok', event_loop: 'ok' } });
  });

  it('names each check that fails, with why', () => {
    const r = readiness({ ...healthy, boardThere: false, running: false, commitLog: 'EROFS', outboxOldestDueAt: NOW - 301_000, syncFailingInARow: 3, loopStalledMs: 12_400 });
    expect(r.ready).toBe(false);
    expect(r.failed).toEqual(['board', 'recovery', 'commit_log', 'outbox', 'sync', 'event_loop']);
    expect(r.checks).toEqual({
      board: 'WORK.md is not where the board was opened',
      recovery: 'recovery has not finished',
      commit_log: 'the commit log cannot be written (EROFS)',
      outbox: 'a notification has waited 301 s past its time (stuck after 300 s)',
      sync: 'the last 3 syncs with the git remote failed',
      event_loop: "serve's event loop has not turned for 12 s",
    });
  });

  it('a stopping serve is not ready; an outbox due within its threshold and two failed syncs are no fault', () => {
    expect(readiness({ ...healthy, stopping: true }).checks.recovery).toBe('the server is shutting down');
    expect(readiness({ ...healthy, outboxOldestDueAt: NOW - 300_000, syncFailingInARow: 2 }).ready).toBe(true);
  });

  it('a main loop late by up to the limit is live and ready; past it, stuck and not ready', () => {
    expect(health(0)).toEqual({ live: true, body: { status: 'ok' } });
    expect(health(LOOP_STUCK_MS)).toEqual({ live: true, body: { status: 'ok' } });
    expect(health(LOOP_STUCK_MS + 1)).toEqual({ live: false, body: { status: 'stuck', stalledSeconds: 5 } });
    expect(readiness({ ...healthy, loopStalledMs: LOOP_STUCK_MS }).ready).toBe(true);
    expect(readiness({ ...healthy, loopStalledMs: LOOP_STUCK_MS + 1 }).failed).toEqual(['event_loop']);
  });
});

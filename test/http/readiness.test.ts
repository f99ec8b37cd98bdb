/**
 * Readiness judged from facts (http/readiness.ts), without a server: every
 * check passes on a healthy serve; each failing fact fails its own check,
 * named, with its reason; several fail together in one answer.
 */
import { describe, expect, it } from 'vitest';
import { readiness, type ReadinessFacts } from '../../src/http/readiness.js';

const NOW = Date.parse('2026-12-05T09:00:00.000Z');
const healthy: ReadinessFacts = { now: NOW, boardThere: true, running: true, stopping: false, commitLog: null, outboxOldestDueAt: null, outboxStuckMs: 300_000, syncFailingInARow: null };

describe('readiness', () => {
  it('is ready when every fact is good', () => {
    expect(readiness(healthy)).toEqual({ ready: true, failed: [], checks: { board: 'ok', recovery: 'ok', commit_log: 'ok', outbox: 'ok', sync: 'ok' } });
  });

  it('names each check that fails, with why', () => {
    const r = readiness({ ...healthy, boardThere: false, running: false, commitLog: 'EROFS', outboxOldestDueAt: NOW - 301_000, syncFailingInARow: 3 });
    expect(r.ready).toBe(false);
    expect(r.failed).toEqual(['board', 'recovery', 'commit_log', 'outbox', 'sync']);
    expect(r.checks).toEqual({
      board: 'WORK.md is not where the board was opened',
      recovery: 'recovery has not finished',
      commit_log: 'the commit log cannot be written (EROFS)',
      outbox: 'a notification has waited 301 s past its time (stuck after 300 s)',
      sync: 'the last 3 syncs with the git remote failed',
    });
  });

  it('a stopping serve is not ready; an outbox due within its threshold and two failed syncs are no fault', () => {
    expect(readiness({ ...healthy, stopping: true }).checks.recovery).toBe('the server is shutting down');
    expect(readiness({ ...healthy, outboxOldestDueAt: NOW - 300_000, syncFailingInARow: 2 }).ready).toBe(true);
  });
});

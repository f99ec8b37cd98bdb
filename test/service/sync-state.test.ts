/**
 * serve --git-sync's record (src/service/sync-state.ts): the backoff after
 * failures, and the good syncs' times that the offer's grace counts
 * (docs/git.md "Offered first where it became ready").
 */
import { describe, expect, it } from 'vitest';
import { afterTry, freshSyncState, MAX_BACKOFF_MS, nextSyncDelay } from '../../src/service/sync-state.js';

const t = (s: number) => new Date(Date.UTC(2026, 11, 6, 9, 0, s));
const iso = (s: number) => t(s).toISOString();
const fail = { ok: false as const, message: 'could not reach the remote', declined: false };

describe("serve --git-sync's record", () => {
  it('waits the interval while syncs succeed, doubles it for each failure in a row, up to 15 minutes', () => {
    expect(nextSyncDelay(5000, 0)).toBe(5000);
    expect(nextSyncDelay(5000, 1)).toBe(10_000);
    expect(nextSyncDelay(5000, 3)).toBe(40_000);
    expect(nextSyncDelay(5000, 40)).toBe(MAX_BACKOFF_MS);
    // An interval longer than the cap is the cap.
    expect(nextSyncDelay(3_600_000, 2)).toBe(3_600_000);
  });

  it('keeps when the last three good syncs ended, oldest first; a failure keeps them as they were', () => {
    let s = freshSyncState(1, 'host', 5000, t(0));
    expect(s.goodAt).toEqual([]);
    for (const at of [5, 10, 15, 20]) s = afterTry(s, t(at), { ok: true });
    expect(s.goodAt).toEqual([iso(10), iso(15), iso(20)]);
    s = afterTry(s, t(25), fail);
    expect(s.goodAt).toEqual([iso(10), iso(15), iso(20)]);
    expect(s).toMatchObject({ runs: 5, failures: 1, failingInARow: 1, lastGoodAt: iso(20), lastFailureAt: iso(25), nextTryAt: iso(35) });
    s = afterTry(s, t(35), { ok: true });
    expect(s.goodAt).toEqual([iso(15), iso(20), iso(35)]);
    expect(s).toMatchObject({ failingInARow: 0, lastGoodAt: iso(35), nextTryAt: iso(40) });
  });

  it("keeps the good syncs' times on the wall's clock when serve's runs ahead (a test's)", () => {
    const s = afterTry(freshSyncState(1, 'host', 5000, t(50)), t(55), { ok: true }, t(5));
    expect(s).toMatchObject({ lastGoodAt: iso(55), nextTryAt: iso(60), goodAt: [iso(5)] });
  });
});

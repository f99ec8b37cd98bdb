/** The board clock's rules (src/git/clock.ts), pure: who takes, renews or keeps the lease, and how two leases merge. */
import { describe, expect, it } from 'vitest';
import { clockText, givesWay, holdsClock, mergeClock, nextClock, parseClock, type ClockLease } from '../../src/git/clock.js';

const at = (min: number) => new Date(Date.UTC(2026, 11, 5, 10, min));
const LEASE = 10 * 60_000;
const a = { holder: 'ana@example.com', key: 'ka' };
const b = { holder: 'bo@example.com', key: 'kb' };
const lease = (who: { holder: string; key: string }, since: number, until: number): ClockLease => ({ ...who, since: at(since).toISOString(), until: at(until).toISOString() });

describe('the board clock', () => {
  it('is taken when absent or run out, left alone while another holds it, renewed by its holder once half is spent', () => {
    expect(nextClock(null, a, at(0), LEASE)).toEqual(lease(a, 0, 10));
    expect(nextClock(lease(b, 0, 10), a, at(5), LEASE)).toBeNull();
    expect(nextClock(lease(b, 0, 10), a, at(10), LEASE)).toEqual(lease(a, 10, 20));
    expect(nextClock(lease(a, 0, 10), a, at(4), LEASE)).toBeNull();
    expect(nextClock(lease(a, 0, 10), a, at(6), LEASE)).toEqual(lease(a, 0, 16));
  });

  it('is held only by the key it names, until it runs out', () => {
    expect(holdsClock(lease(a, 0, 10), 'ka', at(9))).toBe(true);
    expect(holdsClock(lease(a, 0, 10), 'ka', at(10))).toBe(false);
    expect(holdsClock(lease(a, 0, 10), 'kb', at(9))).toBe(false);
    expect(holdsClock(null, 'ka', at(0))).toBe(false);
  });

  it('reads back what it writes, and a file that is no lease as none', () => {
    expect(parseClock(clockText(lease(a, 0, 10)))).toEqual(lease(a, 0, 10));
    for (const bad of ['', '{', '{"holder":"x"}', '[]', null]) expect(parseClock(bad)).toBeNull();
  });

  it("gives this clone's change up before a merge when the remote changed the clock too, to another clone's lease still running", () => {
    const t = (x: ClockLease) => clockText(x);
    const base = t(lease(a, 0, 10));
    // b took it on the remote once a's lease ran out; a's renewal, made in time, got there second: a gives way.
    expect(givesWay(base, t(lease(a, 0, 16)), t(lease(b, 10, 20)), 'ka', at(12))).toBe(true);
    // a took it (first, by its own time) and b's take reached the remote before: a gives way.
    const vacant = t(lease(b, 0, 5));
    expect(givesWay(vacant, t(lease(a, 6, 16)), t(lease(b, 7, 17)), 'ka', at(8))).toBe(true);
    // Nothing to give way to: the remote left the clock as both last saw it, or this clone did, or both agree.
    expect(givesWay(base, t(lease(a, 0, 16)), base, 'ka', at(8))).toBe(false);
    expect(givesWay(base, base, t(lease(b, 10, 20)), 'ka', at(12))).toBe(false);
    expect(givesWay(base, t(lease(b, 10, 20)), t(lease(b, 10, 20)), 'ka', at(12))).toBe(false);
    // The remote's lease has run out (the merge decides), names this clone, or is no lease.
    expect(givesWay(vacant, t(lease(a, 6, 16)), t(lease(b, 7, 17)), 'ka', at(17))).toBe(false);
    expect(givesWay(vacant, t(lease(a, 6, 16)), t(lease(a, 7, 17)), 'ka', at(8))).toBe(false);
    expect(givesWay(vacant, t(lease(a, 6, 16)), '{', 'ka', at(8))).toBe(false);
    expect(givesWay(vacant, t(lease(a, 6, 16)), null, 'ka', at(8))).toBe(false);
  });

  it('merges two leases alike whichever way round: one run out before the other was taken gives way; else the first taken', () => {
    const cases: [ClockLease, ClockLease, ClockLease][] = [
      [lease(a, 0, 10), lease(b, 12, 22), lease(b, 12, 22)],
      [lease(a, 0, 10), lease(b, 1, 11), lease(a, 0, 10)],
      [lease(a, 3, 13), lease(b, 3, 13), lease(b, 3, 13)],
    ];
    for (const [x, y, kept] of cases) {
      expect(mergeClock(clockText(x), clockText(y))).toBe(clockText(kept));
      expect(mergeClock(clockText(y), clockText(x))).toBe(clockText(kept));
    }
  });
});

/**
 * Failed sign-in attempts per client address: past MAX_FAILURES within
 * WINDOW_MS the address is refused until the window passes, so sign-in
 * codes cannot be guessed at speed. In memory, bounded in size.
 */
import { BoundedMap } from '../core/bounded-map.js';

export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60_000;

export class FailureLimit {
  private readonly seen = new BoundedMap<string, { since: number; count: number }>(10_000);

  constructor(private readonly now: () => number = Date.now) {}

  blocked(key: string): boolean {
    const e = this.seen.get(key);
    return e !== undefined && this.now() - e.since < WINDOW_MS && e.count >= MAX_FAILURES;
  }

  fail(key: string): void {
    const t = this.now();
    const e = this.seen.get(key);
    if (!e || t - e.since >= WINDOW_MS) this.seen.set(key, { since: t, count: 1 });
    else this.seen.set(key, { since: e.since, count: e.count + 1 });
  }
}

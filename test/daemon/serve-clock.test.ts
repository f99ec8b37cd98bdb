/**
 * serve's clock and its test-only seam (docs/architecture.md "Test-only
 * seams"): the system's unless WORKBOARD_TEST_CLOCK_AHEAD_MS sets it ahead;
 * a value that is not a whole number of 0 or more is refused by name.
 */
import { describe, expect, it } from 'vitest';
import { serveClock, systemClock, TEST_CLOCK_AHEAD_VAR } from '../../src/daemon/clock.js';

describe('serveClock', () => {
  it('is the system clock when the variable is unset or empty', () => {
    expect(serveClock({})).toBe(systemClock);
    expect(serveClock({ [TEST_CLOCK_AHEAD_VAR]: '' })).toBe(systemClock);
  });

  it('reads the wall plus the milliseconds the variable gives', () => {
    const clock = serveClock({ [TEST_CLOCK_AHEAD_VAR]: '60000' });
    const before = Date.now();
    const now = clock.now().getTime();
    const after = Date.now();
    expect(now).toBeGreaterThanOrEqual(before + 60_000);
    expect(now).toBeLessThanOrEqual(after + 60_000);
  });

  it('refuses anything but a whole number of 0 or more, naming the variable and the value', () => {
    for (const bad of ['-1', '1.5', 'soon', '1e400']) {
      expect(() => serveClock({ [TEST_CLOCK_AHEAD_VAR]: bad })).toThrow(`${TEST_CLOCK_AHEAD_VAR} (test-only) expects a whole number of milliseconds of 0 or more, got "${bad}"`);
    }
  });
});

/**
 * The daemon's time: what the moment is, and calling back once a span has
 * passed. The real clock is the default; tests pass one they move by hand, so
 * a deadline a minute away falls due without waiting a minute.
 */

/** Stops a pending callback; calling it after the callback ran does nothing. */
export type Cancel = () => void;

export interface Clock {
  now(): Date;
  /** Call `fire` once, `ms` milliseconds from now. */
  after(ms: number, fire: () => unknown): Cancel;
  /** Call `fire` every `ms` milliseconds until cancelled. */
  every(ms: number, fire: () => unknown): Cancel;
}

/**
 * Wall time and Node's timers. The timers never hold the process open by
 * themselves: the daemon's watcher does, until `stop` cancels them all.
 */
export const systemClock: Clock = {
  now: () => new Date(),
  after(ms, fire) {
    const t = setTimeout(fire, ms);
    t.unref();
    return () => clearTimeout(t);
  },
  every(ms, fire) {
    const t = setInterval(fire, ms);
    t.unref();
    return () => clearInterval(t);
  },
};

/**
 * Test-only: the environment variable that sets `serve` this many
 * milliseconds ahead of the wall, so a test of real serve processes sees a
 * `due: 1m` fall due at once instead of waiting a minute
 * (docs/architecture.md "Test-only seams"). Read here and nowhere else;
 * unset, serve keeps the system's clock.
 */
export const TEST_CLOCK_AHEAD_VAR = 'WORKBOARD_TEST_CLOCK_AHEAD_MS';

/** The clock `serve` runs on: the system's, or a test's set ahead of it by TEST_CLOCK_AHEAD_VAR. */
export function serveClock(env: NodeJS.ProcessEnv = process.env): Clock {
  const raw = env[TEST_CLOCK_AHEAD_VAR];
  if (raw === undefined || raw === '') return systemClock;
  const ahead = Number(raw);
  if (!Number.isSafeInteger(ahead) || ahead < 0) throw new Error(`${TEST_CLOCK_AHEAD_VAR} (test-only) expects a whole number of milliseconds of 0 or more, got "${raw}"`);
  return { ...systemClock, now: () => new Date(Date.now() + ahead) };
}

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

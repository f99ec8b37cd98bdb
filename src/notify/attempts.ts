/**
 * How delivery attempts run: each channel in its own lane with a bounded
 * number of attempts at once, the rest waiting their turn in order, and each
 * attempt within its channel's time. So a webhook that never answers holds
 * only webhook attempts, and only until their time is up.
 */
import type { Channel } from './schedule.js';

/** Attempts in flight at once per channel: a few slow receivers leave the rest going, and none is flooded. */
export const PER_CHANNEL = 4;

/** How long one attempt may take on each channel before it counts as failed (and is tried again later). */
export const ATTEMPT_MS: Record<Channel, number> = { command: 30_000, webhook: 10_000, email: 30_000, slack: 10_000 };

export class Lanes {
  private readonly active = new Map<Channel, number>();
  private readonly queued = new Map<Channel, (() => void)[]>();

  constructor(private readonly limit: number) {}

  /** Run `fn` in the channel's lane once a place is free. */
  async run<T>(lane: Channel, fn: () => Promise<T>): Promise<T> {
    if ((this.active.get(lane) ?? 0) >= this.limit) await new Promise<void>((go) => this.queued.set(lane, [...(this.queued.get(lane) ?? []), go]));
    else this.active.set(lane, (this.active.get(lane) ?? 0) + 1);
    try {
      return await fn();
    } finally {
      // The place passes straight to the next in line, or is given back.
      const next = this.queued.get(lane)?.shift();
      if (next) next();
      else this.active.set(lane, this.active.get(lane)! - 1);
    }
  }
}

/** Run an attempt with an abort signal that fires after `ms`; one cut short fails saying so. */
export async function within<T>(ms: number, what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  try {
    return await fn(signal);
  } catch (e) {
    if (signal.aborted) throw new Error(`${what} did not finish within ${ms / 1000} s`);
    throw e;
  }
}

/**
 * A clock for daemon tests that moves only when the test moves it: time jumps
 * ahead at once, then every callback that fell due meanwhile runs, earliest
 * first, each to completion, as they would for a daemon that slept through
 * them. Give the same clock's `now` to the service.
 */
import type { Cancel, Clock } from '../../src/daemon/clock.js';

const MAX_CALLBACKS = 1000;

interface Pending {
  at: number;
  fire: () => unknown;
  /** Set for `every`: the span to the next call. */
  every?: number;
}

export class FakeClock implements Clock {
  private at: number;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(start = Date.now()) {
    this.at = start;
  }

  readonly now = (): Date => new Date(this.at);

  after(ms: number, fire: () => unknown): Cancel {
    return this.schedule({ at: this.at + Math.max(0, ms), fire });
  }

  every(ms: number, fire: () => unknown): Cancel {
    return this.schedule({ at: this.at + ms, fire, every: ms });
  }

  /** When the earliest pending callback falls due, or null when nothing waits. */
  nextDue(): Date | null {
    const ats = [...this.pending.values()].map((p) => p.at);
    return ats.length ? new Date(Math.min(...ats)) : null;
  }

  async advance(ms: number): Promise<void> {
    this.at += ms;
    for (let fired = 0; ; fired++) {
      // A callback that keeps re-arming itself for now would spin a real daemon too: fail instead of hanging.
      if (fired > MAX_CALLBACKS) throw new Error(`more than ${MAX_CALLBACKS} callbacks fell due in one advance: something re-arms itself for now`);
      const due = [...this.pending].filter(([, p]) => p.at <= this.at).sort(([i, a], [j, b]) => a.at - b.at || i - j)[0];
      if (!due) return;
      const [id, p] = due;
      if (p.every) p.at = this.at + p.every;
      else this.pending.delete(id);
      await p.fire();
    }
  }

  private schedule(p: Pending): Cancel {
    const id = this.nextId++;
    this.pending.set(id, p);
    return () => {
      this.pending.delete(id);
    };
  }
}

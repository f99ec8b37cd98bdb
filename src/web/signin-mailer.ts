/**
 * Sign-in links sent by email, off the request path and off its thread: the
 * sign-in form hands each ask here and answers at once, the same for every
 * address, so neither its words nor its timing tell whether the address is
 * someone's. Nor does the next request's: every piece of work an address
 * causes (throttle, look-up, code, email) runs on a thread of its own
 * (signin-worker.ts), and this thread does the same for every ask: it hands
 * it over and, later, counts it dealt with. The thread starts at the first
 * ask and ends with the app.
 */
import { Worker } from 'node:worker_threads';
import type { Asker } from './signin-throttle.js';

/** Asks waiting at once; past this they are dropped (and logged), so a flood costs memory it cannot grow. */
export const MAX_WAITING_ASKS = 100;

export interface LinkAsk {
  /** As typed, normalised (signin-email.ts). */
  address: string;
  /** The page of ours to land on after sign-in, already checked. */
  next: string | null;
  who: Asker;
}

/** The worker's module, beside this one in dist/. */
export const SIGNIN_WORKER = new URL('./signin-worker.js', import.meta.url);

export class SignInMailer {
  private worker: Worker | null = null;
  /** Asks handed over and not yet dealt with. */
  private waiting = 0;
  private idlers: (() => void)[] = [];

  constructor(
    private readonly root: string,
    private readonly log: (line: string) => void,
    private readonly entry: URL = SIGNIN_WORKER,
  ) {}

  /** Take an ask and return at once: nothing about the address is looked at on this thread. */
  ask(a: LinkAsk): void {
    if (this.waiting >= MAX_WAITING_ASKS) return this.log(`sign-in links: ${MAX_WAITING_ASKS} asks already waiting; one dropped`);
    this.waiting++;
    this.started().postMessage(a);
  }

  /** Resolves once every ask handed over so far has been dealt with. */
  idle(): Promise<void> {
    return this.waiting === 0 ? Promise.resolve() : new Promise((resolve) => this.idlers.push(resolve));
  }

  /** Let the thread finish the asks it has, then end. */
  close(): void {
    this.worker?.postMessage('close');
    this.worker = null;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.entry, { workerData: { root: this.root } });
    w.unref(); // a server may exit with asks still waiting, as it always could
    w.on('message', () => this.dealt(1));
    w.on('error', (e) => this.log(`sign-in links: the mailer thread failed: ${e.message}`));
    w.on('exit', () => {
      if (this.worker === w) this.worker = null;
      // Asks it had not dealt with are gone with it; the next ask starts a new thread.
      this.dealt(this.waiting);
    });
    return (this.worker = w);
  }

  private dealt(n: number): void {
    this.waiting -= Math.min(n, this.waiting);
    if (this.waiting === 0) for (const resolve of this.idlers.splice(0)) resolve();
  }
}

/**
 * Sign-in links sent by email, off the request path: the sign-in form hands
 * each ask here and answers at once, the same for every address, so neither
 * its words nor its timing tell whether the address is someone's. Asks are
 * dealt with one at a time, after the answer: throttled (LinkThrottle), the
 * person looked up, a code made as `workboard login-link` makes one, the
 * email sent. A failure is logged for the operator, never shown to the asker.
 */
import { servedAt, type ServedBoard as Board } from '../service/web-board.js';
import { boardBaseUrl } from '../core/public-url.js';
import { sendEmail } from '../notify/channels/email.js';
import { createLoginLink } from './sessions.js';
import { recipientFor, signInMessage } from './signin-email.js';
import type { Asker, LinkThrottle } from './signin-throttle.js';

/** Asks waiting at once; past this they are dropped (and logged), so a flood costs memory it cannot grow. */
export const MAX_WAITING_ASKS = 100;
/** As long as a notification's email may take. */
const EMAIL_TIMEOUT_MS = 30_000;

export interface LinkAsk {
  /** As typed, normalised (signin-email.ts). */
  address: string;
  /** The page of ours to land on after sign-in, already checked. */
  next: string | null;
  who: Asker;
}

export class SignInMailer {
  private readonly waiting: LinkAsk[] = [];
  private draining = false;

  constructor(
    private readonly board: Board,
    private readonly throttle: LinkThrottle,
    private readonly log: (line: string) => void,
  ) {}

  /** Take an ask and return at once: nothing about the address is looked at before the answer is sent. */
  ask(a: LinkAsk): void {
    if (this.waiting.length >= MAX_WAITING_ASKS) return this.log(`sign-in links: ${MAX_WAITING_ASKS} asks already waiting; one dropped`);
    this.waiting.push(a);
    if (this.draining) return;
    this.draining = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    // Let the answer go out before any work on the ask starts.
    await new Promise((resolve) => setImmediate(resolve));
    for (let a = this.waiting.shift(); a !== undefined; a = this.waiting.shift()) {
      try {
        await this.deal(a);
      } catch (e) {
        this.log(`sign-in link not sent: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.draining = false;
  }

  private async deal(a: LinkAsk): Promise<void> {
    if (!this.throttle.ask(a.who, a.address)) return;
    await this.board.refresh();
    const m = this.board.manifest;
    const to = recipientFor(m, a.address);
    if (m.notifications.email === null || to === null || !this.throttle.send(to.email)) return;
    const link = await createLoginLink(this.board, to.email, boardBaseUrl(m, { served: servedAt(this.board.state) }), new Date(), a.next ? { next: a.next } : {});
    await sendEmail(m.notifications.email, to.email, signInMessage(m, to, link), AbortSignal.timeout(EMAIL_TIMEOUT_MS));
    this.log(`sign-in link emailed to ${to.email}`);
  }
}

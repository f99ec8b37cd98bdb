/**
 * Failed sign-in codes, counted where a failure belongs to the one asking,
 * so nobody's failures refuse another's valid link: per presented code (a
 * dead link reloaded or guessed at), and per client address only where
 * WORKBOARD_TRUST_PROXY makes the address the client's own. Without it the
 * socket's address may be a proxy everyone shares, so it is not counted:
 * codes are 256 random bits, so guessing gains nothing either way; the bound
 * is on the work. In memory, bounded in size.
 */
import { clientAddress, type TrustedProxies } from '../core/client-address.js';
import { sha256Hex } from '../core/hash.js';
import { addressKey, MAX_THROTTLED_KEYS, Throttle } from '../core/throttle.js';

/** One code: 5 failures, then one a minute. */
export const CODE_FAILURES = { burst: 5, refillMs: 60_000 };
/** One trusted client address: 10 failures, then one every 90 s (10 per 15 minutes). */
export const CLIENT_FAILURES = { burst: 10, refillMs: 90_000 };

export interface Asker {
  peer: string;
  forwardedFor: string | string[] | undefined;
}

export class SignInThrottle {
  private readonly codes = new Throttle({ ...CODE_FAILURES, maxKeys: MAX_THROTTLED_KEYS });
  private readonly clients = new Throttle({ ...CLIENT_FAILURES, maxKeys: MAX_THROTTLED_KEYS });

  constructor(private readonly trusted: TrustedProxies, private readonly now: () => number = Date.now) {}

  /** Milliseconds until this code may be tried by this client: 0 when it may now. */
  waitMs(who: Asker, code: string): number {
    const client = this.client(who);
    return Math.max(this.codes.waitMs(sha256Hex(code), this.now()), client === null ? 0 : this.clients.waitMs(client, this.now()));
  }

  failed(who: Asker, code: string): void {
    this.codes.failed(sha256Hex(code), this.now());
    const client = this.client(who);
    if (client !== null) this.clients.failed(client, this.now());
  }

  private client(who: Asker): string | null {
    return this.trusted === null ? null : addressKey(clientAddress(who.peer, who.forwardedFor, this.trusted));
  }
}

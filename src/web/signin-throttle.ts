/**
 * Failed sign-in codes, counted where a failure belongs to the one asking,
 * so nobody's failures refuse another's valid link: per presented code (a
 * dead link reloaded or guessed at), and per client address only where
 * WORKBOARD_TRUST_PROXY makes the address the client's own. Without it the
 * socket's address may be a proxy everyone shares, so it is not counted:
 * codes are 256 random bits, so guessing gains nothing either way; the bound
 * is on the work. Also the sign-in links people ask to be emailed, counted
 * per address, per person and per trusted client (LinkThrottle). In memory,
 * bounded in size.
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

  constructor(
    private readonly trusted: TrustedProxies,
    private readonly now: () => number = Date.now,
  ) {}

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
    return clientKey(this.trusted, who);
  }
}

/** The key a client is counted under, or null when no proxy is trusted (the peer may be one everybody shares). */
function clientKey(trusted: TrustedProxies, who: Asker): string | null {
  return trusted === null ? null : addressKey(clientAddress(who.peer, who.forwardedFor, trusted));
}

/** Sign-in links asked for one address, or for one person under any of their addresses: 3, then one every 5 minutes (3 per 15 minutes). */
export const LINKS_PER_ADDRESS = { burst: 3, refillMs: 5 * 60_000 };
export const LINKS_PER_PERSON = LINKS_PER_ADDRESS;
/** Sign-in links asked for by one trusted client address, whatever the address typed: 10, then one every 90 s. */
export const LINKS_PER_CLIENT = { burst: 10, refillMs: 90_000 };

/**
 * Who may be sent a sign-in link now. Each ask is counted against the
 * address typed and, with WORKBOARD_TRUST_PROXY, the client; a link that
 * would go out is counted against its person too, so aliases of one person
 * share a bucket. Past any bucket nothing is sent, and the asker is told
 * the same as always (the caller answers before this is consulted).
 */
export class LinkThrottle {
  private readonly addresses = new Throttle({ ...LINKS_PER_ADDRESS, maxKeys: MAX_THROTTLED_KEYS });
  private readonly people = new Throttle({ ...LINKS_PER_PERSON, maxKeys: MAX_THROTTLED_KEYS });
  private readonly clients = new Throttle({ ...LINKS_PER_CLIENT, maxKeys: MAX_THROTTLED_KEYS });

  constructor(
    private readonly trusted: TrustedProxies,
    private readonly now: () => number = Date.now,
  ) {}

  /** Count an ask for `address` (normalised); true when it is within the address's and the client's limits. */
  ask(who: Asker, address: string): boolean {
    const t = this.now();
    const client = clientKey(this.trusted, who);
    if (this.addresses.waitMs(address, t) > 0 || (client !== null && this.clients.waitMs(client, t) > 0)) return false;
    // Throttle counts "failures": here each one is a link asked for.
    this.addresses.failed(address, t);
    if (client !== null) this.clients.failed(client, t);
    return true;
  }

  /** Count a link about to go to `person` (their current address); true when it is within their limit. */
  send(person: string): boolean {
    const t = this.now();
    if (this.people.waitMs(person, t) > 0) return false;
    this.people.failed(person, t);
    return true;
  }
}

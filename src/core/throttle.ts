/**
 * One throttle for failed authentications, used by MCP (bearer tokens) and
 * the web app (sign-in codes): each key (a client address, a presented code)
 * has a bucket of `burst` failures that refills by one every `refillMs`.
 * While it is empty, the key is answered 429 without its credential being
 * looked at, so a guesser gets one try per `refillMs` however fast it asks.
 * Successes never refill it. At most `maxKeys` buckets are kept (least
 * recently seen forgotten first), so memory stays bounded. Time is given in.
 */
import { isIPv6 } from 'node:net';
import { BoundedMap } from './bounded-map.js';

export interface ThrottleLimits {
  burst: number;
  refillMs: number;
  maxKeys: number;
}

/** Keys remembered at once by default: a few hundred kilobytes at most. */
export const MAX_THROTTLED_KEYS = 4096;

/** The key a client's address is counted under: IPv4 whole, IPv6 by its first 64 bits (one machine usually has a whole /64). */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  // No colon, no IPv6: the common IPv4 peer skips isIPv6's long pattern on every request.
  if (!address.includes(':') || !isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export class Throttle {
  private readonly buckets: BoundedMap<string, { tokens: number; at: number }>;

  constructor(private readonly limits: ThrottleLimits) {
    this.buckets = new BoundedMap(limits.maxKeys);
  }

  /** Milliseconds until `key` may try again: 0 when it may now. */
  waitMs(key: string, nowMs: number): number {
    const b = this.level(key, nowMs);
    return b >= 1 ? 0 : Math.ceil((1 - b) * this.limits.refillMs);
  }

  /** Count one failure of `key`. */
  failed(key: string, nowMs: number): void {
    this.buckets.set(key, { tokens: Math.max(0, this.level(key, nowMs) - 1), at: nowMs });
  }

  private level(key: string, nowMs: number): number {
    const b = this.buckets.get(key);
    if (!b) return this.limits.burst;
    return Math.min(this.limits.burst, b.tokens + Math.max(0, nowMs - b.at) / this.limits.refillMs);
  }
}

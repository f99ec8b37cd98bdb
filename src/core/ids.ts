/**
 * New ids and random names: a prefix and a lower-case ULID
 * ("r-01m8wafz2k084g6xf4dc92n8tz"), time-ordered by the given moment, and
 * random hex for temp names, lock tokens and record ids. Both draw from one
 * pool of crypto bytes filled 4 KiB at a time: ulid's own source asks for one
 * byte per character (16 calls an id), and a transition wants several of each.
 */
import { randomFillSync } from 'node:crypto';
import { decodeTime, ulid } from 'ulid';

const pool = Buffer.alloc(4096);
let at = pool.length;

function take(n: number): Buffer {
  if (at + n > pool.length) {
    randomFillSync(pool);
    at = 0;
  }
  at += n;
  return pool.subarray(at - n, at);
}

const pooledRandom = (): number => take(1)[0]! / 256;

export function newId(prefix: string, ms: number): string {
  return `${prefix}-${ulid(ms, pooledRandom).toLowerCase()}`;
}

/** How long an id with this prefix is: the prefix, '-' and 26 characters. */
export function idLength(prefix: string): number {
  return prefix.length + 27;
}

/** When an id was made (ms since the epoch), from its ULID; null for a string that is not such an id. */
export function idTime(id: string): number | null {
  const u = /-([0-9a-hjkmnp-tv-z]{26})$/.exec(id)?.[1];
  try {
    return u === undefined ? null : decodeTime(u.toUpperCase());
  } catch {
    return null; // past ULID's greatest time
  }
}

/** `bytes` random bytes as lower-case hex. */
export function randomHex(bytes: number): string {
  return take(bytes).toString('hex');
}

/**
 * New ids and random names: a prefix and a lower-case ULID
 * ("r-01m8wafz2k084g6xf4dc92n8tz"), time-ordered by the given moment, and
 * random hex for temp names, lock tokens and record ids. Both draw from one
 * pool of crypto bytes filled 4 KiB at a time: ulid's own source asks for one
 * byte per character (16 calls an id), and a transition wants several of each.
 */
import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

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

/** `bytes` random bytes as lower-case hex. */
export function randomHex(bytes: number): string {
  return take(bytes).toString('hex');
}

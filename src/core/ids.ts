/**
 * New ids: a prefix and a lower-case ULID ("r-01m8wafz2k084g6xf4dc92n8tz"),
 * time-ordered by the given moment. The random part is drawn from a pool of
 * crypto bytes filled 4 KiB at a time: ulid's own source asks the kernel for
 * one byte per character, 16 calls an id, a few per transition.
 */
import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

const pool = new Uint8Array(4096);
let at = pool.length;

function pooledRandom(): number {
  if (at === pool.length) {
    randomFillSync(pool);
    at = 0;
  }
  return pool[at++]! / 256;
}

export function newId(prefix: string, ms: number): string {
  return `${prefix}-${ulid(ms, pooledRandom).toLowerCase()}`;
}

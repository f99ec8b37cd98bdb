/**
 * What a cursor line of the run index vouches for of its `ended` file
 * (run-index-file.ts): which file, how much of it is whole, and a count and
 * sum of its ids that a listing of runs/ is compared with.
 */
import { crc32 } from 'node:zlib';

/** What the last cursor line says of `ended`: its inode, how many bytes of it are whole, its lines, its entries, its greatest id, the sum of its ids (`idSum`). */
export interface EndedMark {
  ino: string;
  len: number;
  lines: number;
  n: number;
  max: string;
  sum: number;
}

export const NO_ENDED: EndedMark = { ino: '', len: 0, lines: 0, n: 0, max: '', sum: 0 };

export const TWO_32 = 2 ** 32;

/**
 * The sum of the ids' CRC-32s, modulo 2^32: the same for the same ids in any
 * order, and kept up as runs come and go, so a listing of runs/ is compared
 * with the index (count and sum) without reading the ended runs' entries.
 */
export function idSum(ids: Iterable<string>, from = 0): number {
  let sum = from;
  for (const id of ids) sum = (sum + crc32(id)) % TWO_32;
  return sum;
}

export function isMark(v: unknown): v is EndedMark {
  if (typeof v !== 'object' || v === null || !('ino' in v && 'max' in v && 'len' in v && 'lines' in v && 'n' in v && 'sum' in v)) return false;
  return typeof v.ino === 'string' && typeof v.max === 'string' && [v.len, v.lines, v.n, v.sum].every((x) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0);
}

/** The inode part of a file's stamp ('' when absent). */
export const inodeOf = (stamp: string): string => stamp.split(':')[0] ?? '';

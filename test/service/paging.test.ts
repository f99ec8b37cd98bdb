/**
 * Keyset paging without sorting everything (get_work's): the pages it gives
 * are the pages of the items sorted by key, for every limit and cursor, and
 * walking the cursors visits each item exactly once, in key order.
 */
import { describe, expect, it } from 'vitest';
import { page, pageUnsorted } from '../../src/service/paging.js';

/** A deterministic shuffle (a small linear congruential generator), so a failure is repeatable. */
function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `2026-10-06T09:${String(i % 60).padStart(2, '0')}|r-${String(i).padStart(4, '0')}` }));

describe('pageUnsorted', () => {
  it('gives the same page as sorting every item first, for any order, limit and cursor', () => {
    for (const n of [0, 1, 2, 7, 50, 333]) {
      const sorted = keys(n).sort((a, b) => (a.key < b.key ? -1 : 1));
      for (const seed of [1, 2, 3]) {
        const items = shuffled(sorted, seed);
        for (const limit of [1, 2, 5, 20, 100]) {
          let cursor: string | undefined;
          const cursors: (string | undefined)[] = [undefined];
          for (let guard = 0; guard <= n; guard++) {
            const want = page(sorted, (i) => i.key, limit, cursor);
            const got = pageUnsorted(items, limit, cursor);
            expect(got, `n=${n} seed=${seed} limit=${limit} cursor=${cursor}`).toEqual(want);
            if (got.nextCursor === null) break;
            cursor = got.nextCursor;
            cursors.push(cursor);
          }
          // Following the cursors walks every item once, in order.
          const walked: string[] = [];
          for (const c of cursors) walked.push(...pageUnsorted(items, limit, c).items.map((i) => i.key));
          expect(walked).toEqual(sorted.map((i) => i.key));
        }
      }
    }
  });

  it('a cursor past every key gives an empty last page', () => {
    expect(pageUnsorted(keys(3), 2, Buffer.from('zzz').toString('base64url'))).toEqual({ items: [], nextCursor: null });
  });
});

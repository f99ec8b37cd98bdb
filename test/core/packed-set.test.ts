/**
 * A packed set of fixed-width ids (core/packed-set.ts), as the run index keeps
 * the ended runs' ids: against a plain Set given the same adds and removes,
 * before and after the members kept elsewhere are read in, across folds.
 */
import { describe, expect, it } from 'vitest';
import { PackedSet } from '../../src/core/packed-set.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A run id: 'r-' and 26 characters, the n-th in id order. */
function idOf(n: number): string {
  let tail = '';
  for (let v = n, i = 0; i < 26; i++, v = Math.floor(v / 32)) tail = ALPHABET[v % 32]! + tail;
  return `r-${tail}`;
}

/** One of `pool` run ids: a small pool, so adds, removes and lookups meet. */
const runId = (next: () => number, pool: number): string => idOf(Math.floor(next() * pool));

describe('a packed set of ids', () => {
  it('answers as a Set would, for every seed, across folds, with the file read first, late or never', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const next = rng(seed);
      const file = new Set<string>();
      for (let i = 0; i < 3000; i++) file.add(runId(next, 20_000));
      const model = new Set(file);
      const ids = new PackedSet(28);
      // Seeds 1 and 2 read the file at once; the others after some changes (3 and 4) or only when they pile up (5).
      const fillAt = seed <= 2 ? 0 : seed <= 4 ? 2500 : Infinity;
      let filled = false;
      for (let step = 0; step < 12_000; step++) {
        if (!filled && (step === fillAt || ids.wantsFile)) {
          ids.fill(file);
          filled = true;
        }
        const id = runId(next, 20_000);
        const r = next();
        if (r < 0.45) {
          ids.add(id);
          model.add(id);
        } else if (r < 0.6) {
          ids.delete(id);
          model.delete(id);
        } else {
          const known = ids.has(id);
          // Unknown only while the file's ids are unread, and then only for what nothing since has said.
          if (known === undefined) expect(filled, `seed ${seed} step ${step}`).toBe(false);
          else expect(known, `seed ${seed} step ${step}: ${id}`).toBe(model.has(id));
        }
      }
      if (!filled) ids.fill(file);
      for (let i = 0; i < 20_000; i++) {
        const id = idOf(i);
        expect(ids.has(id), `seed ${seed}: ${id}`).toBe(model.has(id));
      }
      expect([...ids.values()].sort(), `seed ${seed}`).toEqual([...model].sort());
    }
  });

  it('says it wants the file once more ids are beside it than it keeps there, and not before', () => {
    const ids = new PackedSet(28);
    const next = rng(9);
    let added = 0;
    while (!ids.wantsFile) {
      ids.add(runId(next, 1e12));
      added++;
    }
    expect(added).toBe(4097);
    ids.fill([]);
    expect(ids.wantsFile).toBe(false);
  });

  it('keeps an id of another length beside the buffer, found and removed like the others', () => {
    const ids = PackedSet.of(28, ['r-short', 'r-00000000000000000000000001']);
    expect(ids.has('r-short')).toBe(true);
    expect(ids.has('r-00000000000000000000000001')).toBe(true);
    const next = rng(3);
    // Enough adds to fold: the short id stays known through it.
    for (let i = 0; i < 5000; i++) ids.add(runId(next, 1e12));
    expect(ids.has('r-short')).toBe(true);
    expect([...ids.values()].filter((id) => id.length !== 28)).toEqual(['r-short']);
    ids.delete('r-short');
    ids.delete('r-00000000000000000000000001');
    for (let i = 0; i < 5000; i++) ids.add(runId(next, 1e12));
    expect(ids.has('r-short')).toBe(false);
    expect(ids.has('r-00000000000000000000000001')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/core/bounded-map.js';

describe('BoundedMap', () => {
  it('keeps at most its size, forgetting the least recently used first', () => {
    const m = new BoundedMap<string, number>(3);
    m.set('a', 1).set('b', 2).set('c', 3);
    expect(m.get('a')).toBe(1); // a is now the most recent
    m.set('d', 4);
    expect([...m.keys()]).toEqual(['c', 'a', 'd']);
    m.set('c', 30); // re-setting refreshes too
    m.set('e', 5);
    expect([...m.entries()]).toEqual([
      ['d', 4],
      ['c', 30],
      ['e', 5],
    ]);
    expect(m.size).toBe(3);
    expect(m.get('a')).toBeUndefined();
  });
});

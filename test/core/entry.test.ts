import { describe, expect, it } from 'vitest';
import { entry } from '../../src/core/entry.js';

describe('entry', () => {
  it('gives the value a key holds, null and zero included', () => {
    const m = new Map<string, number | null>([
      ['a', 0],
      ['b', null],
    ]);
    expect(entry(m, 'a')).toBe(0);
    expect(entry(m, 'b')).toBeNull();
  });

  it('names the key that is missing instead of handing on undefined', () => {
    expect(() => entry(new Map<string, number>(), 'review')).toThrow('internal: no entry for review');
  });
});

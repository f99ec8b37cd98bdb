/**
 * The order `npm test` starts its files in (test/support/longest-first.ts):
 * longest first by the measured table, unknown files before all. A line of
 * the table for a file that is gone is never looked up, so it does no harm;
 * CONTRIBUTING.md "Test" says how to refresh the table.
 */
import { describe, expect, it } from 'vitest';
import { loadDurations, longestFirst } from '../support/longest-first.js';

describe('the suite starts its longest files first', () => {
  it('orders by duration, longest first, with files the table does not know before them all and ties by path', () => {
    const table = new Map([
      ['test/a.test.ts', 5],
      ['test/b.test.ts', 80],
      ['test/c.test.ts', 5],
      ['test/d.test.ts', 0.1],
    ]);
    expect(longestFirst(['test/d.test.ts', 'test/c.test.ts', 'test/new.test.ts', 'test/a.test.ts', 'test/b.test.ts'], table)).toEqual([
      'test/new.test.ts',
      'test/b.test.ts',
      'test/a.test.ts',
      'test/c.test.ts',
      'test/d.test.ts',
    ]);
  });

  it('the table of durations gives test files by their path from the root, each a duration in seconds', () => {
    const table = loadDurations();
    expect(table.size).toBeGreaterThan(100);
    for (const file of table.keys()) expect(file, file).toMatch(/^test\/.+\.test\.ts$/);
    for (const [file, seconds] of table) expect(Number.isFinite(seconds) && seconds >= 0, file).toBe(true);
  });
});

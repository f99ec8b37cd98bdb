/**
 * The settle rule of serve's watcher (docs/architecture.md "External edits"):
 * a run is read as a hand edit only once its folder has been quiet for the
 * settle time, by what the watch heard and by the files' own times. The wall
 * clock is the test's; the files are real.
 */
import { promises as fs, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Listing } from '../../src/board/listing.js';
import { EditSettle } from '../../src/daemon/edit-settle.js';

const A = 'r-01m938pv509xrv7ncvg1z1ayva';
const B = 'r-01m938pv509xrv7ncvg1z1ayvb';
const GONE = 'r-01m938pv509xrv7ncvg1z1ayvc';

async function boardWithRuns(ids: string[], writtenAt: number): Promise<string> {
  const root = await fs.mkdtemp(path.join(tmpdir(), 'wb-settle-'));
  for (const id of ids) {
    await fs.mkdir(path.join(root, 'runs', id), { recursive: true });
    const file = path.join(root, 'runs', id, 'RUN.md');
    await fs.writeFile(file, 'x');
    utimesSync(file, writtenAt / 1000, writtenAt / 1000);
  }
  return root;
}

describe('EditSettle', () => {
  it('holds a run back until its folder has been quiet for the settle time, and says how long to wait', async () => {
    const t0 = Date.parse('2026-12-05T12:00:00Z');
    let wall = t0;
    const root = await boardWithRuns([A, B], t0 - 10_000);
    const settle = new EditSettle(new Listing(root), 500, () => wall);
    settle.heard(A);
    wall = t0 + 200;
    // A was heard 200 ms ago: 300 ms to go. B's files were written 10 s ago and nothing was heard: quiet.
    expect(settle.split([A, B])).toEqual({ quiet: [B], waitMs: 300 });
    wall = t0 + 499;
    expect(settle.split([A])).toEqual({ quiet: [], waitMs: 1 });
    wall = t0 + 500;
    expect(settle.split([A])).toEqual({ quiet: [A], waitMs: null });
  });

  it('counts a file written after the last report heard: a loaded process may plan before its watch reports', async () => {
    const t0 = Date.parse('2026-12-05T12:00:00Z');
    let wall = t0;
    const root = await boardWithRuns([A], t0 + 1000);
    const settle = new EditSettle(new Listing(root), 500, () => wall);
    settle.heard(A);
    wall = t0 + 1450;
    expect(settle.split([A])).toEqual({ quiet: [], waitMs: 50 });
    wall = t0 + 1500;
    expect(settle.split([A])).toEqual({ quiet: [A], waitMs: null });
  });

  it('a run whose folder is gone is not held back', async () => {
    const root = await boardWithRuns([], 0);
    const settle = new EditSettle(new Listing(root), 500, () => Date.parse('2026-12-05T12:00:00Z'));
    expect(settle.split([GONE])).toEqual({ quiet: [GONE], waitMs: null });
  });
});

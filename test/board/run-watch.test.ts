/**
 * The daemon's run watcher on real folders: it reports edits in the runs it
 * follows and nothing from runs it let go, a run folder added to runs/, and
 * a commit appended to the change log.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANGES_FILE } from '../../src/board/layout.js';
import { RunWatch, type RunWatchEvent } from '../../src/board/run-watch.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';
import { until } from '../support/until.js';

afterAll(cleanupTmp);

const A = 'r-01jaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'r-01jbbbbbbbbbbbbbbbbbbbbbbb';

/** Wait until `pred` holds for what was seen (the OS delivers watch events asynchronously). */
function seen(events: RunWatchEvent[], pred: (e: RunWatchEvent) => boolean): Promise<true> {
  return until(() => (events.some(pred) ? true : undefined), 10_000, 10);
}

describe('RunWatch', () => {
  it('follows exactly the runs it is given, and sees runs/ and the change log', async () => {
    const root = await tmpDir();
    for (const id of [A, B]) await fs.mkdir(path.join(root, 'runs', id), { recursive: true });
    await fs.mkdir(path.join(root, '.work'), { recursive: true });
    const events: RunWatchEvent[] = [];
    const w = new RunWatch(root, CHANGES_FILE, (e) => events.push(e));
    w.start();
    try {
      expect(w.follow([A, B]).sort()).toEqual([A, B]);
      expect(w.follow([A, B])).toEqual([]);
      await fs.writeFile(path.join(root, 'runs', A, 'RUN.md'), 'edited in place');
      expect(await seen(events, (e) => e.kind === 'run' && e.runId === A)).toBe(true);

      // B ended: let go of it. Its edits are no longer reported; A's still are. One inotify queue
      // delivers in order, so once A's later edit is seen, an edit of B would have been too.
      expect(w.follow([A])).toEqual([]);
      expect(w.watching).toBe(1);
      events.length = 0;
      await fs.writeFile(path.join(root, 'runs', B, 'RUN.md'), 'edited');
      await fs.writeFile(path.join(root, 'runs', A, 'draft.md'), 'edited');
      expect(await seen(events, (e) => e.kind === 'run' && e.runId === A)).toBe(true);
      expect(events.some((e) => e.kind === 'run' && e.runId === B)).toBe(false);

      // Temp files of a commit in flight are not edits, nor is another file in .work/. The commit
      // appended after them is the barrier: when it is seen, anything they caused was seen before it.
      events.length = 0;
      await fs.writeFile(path.join(root, 'runs', A, 'RUN.md.tmp-host-1-abcdef01'), 'temp');
      await fs.writeFile(path.join(root, '.work', 'other'), 'x');
      await fs.appendFile(path.join(root, CHANGES_FILE), `run ${A}\n`);
      expect(await seen(events, (e) => e.kind === 'commit')).toBe(true);
      expect(events.filter((e) => e.kind === 'run')).toEqual([]);

      await fs.mkdir(path.join(root, 'runs', 'r-01jccccccccccccccccccccccc'));
      expect(await seen(events, (e) => e.kind === 'runs')).toBe(true);
    } finally {
      w.close();
    }
    expect(w.watching).toBe(0);
  });

  it('says which runs it watches: not one it let go, nor one whose folder could not be watched', async () => {
    const root = await tmpDir();
    await fs.mkdir(path.join(root, 'runs', A), { recursive: true });
    await fs.mkdir(path.join(root, '.work'), { recursive: true });
    const w = new RunWatch(root, CHANGES_FILE, () => undefined);
    w.start();
    try {
      // B has no folder: its watch cannot begin, so a reader must keep looking at its files itself.
      w.follow([A, B]);
      expect(w.watches(A)).toBe(true);
      expect(w.watches(B)).toBe(false);
      w.follow([B]);
      expect(w.watches(A)).toBe(false);
    } finally {
      w.close();
    }
    expect(w.watches(B)).toBe(false);
  });

  it('lets go of a run whose folder was moved away, and watches the folder put in its place when told again', async () => {
    const root = await tmpDir();
    await fs.mkdir(path.join(root, 'runs', A), { recursive: true });
    await fs.mkdir(path.join(root, '.work'), { recursive: true });
    const events: RunWatchEvent[] = [];
    const w = new RunWatch(root, CHANGES_FILE, (e) => events.push(e));
    w.start();
    try {
      w.follow([A]);
      // As git replaces a folder whole: the old one moved away, a new one made in its place.
      await fs.rename(path.join(root, 'runs', A), path.join(root, 'away'));
      await fs.mkdir(path.join(root, 'runs', A));
      expect(await seen(events, (e) => e.kind === 'run' && e.runId === A)).toBe(true);
      expect(w.watches(A)).toBe(false);
      expect(w.follow([A])).toEqual([A]);
      expect(w.watches(A)).toBe(true);
      events.length = 0;
      await fs.writeFile(path.join(root, 'runs', A, 'RUN.md'), 'in the new folder');
      expect(await seen(events, (e) => e.kind === 'run' && e.runId === A)).toBe(true);
    } finally {
      w.close();
    }
  });
});

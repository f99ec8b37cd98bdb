/**
 * The run index under several coordinators: what one commits, another sees
 * through the change log; runs added or removed by hand or by git are seen
 * through the runs/ listing; a rotated log and an old full scan mean a full
 * check of every RUN.md; a fresh process starts from `.work/index/` and
 * catches up. Real files, real services on one board.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Board } from '../../src/board/board.js';
import { CHANGES_FILE } from '../../src/board/layout.js';
import { LIST_EVERY_MS, RESCAN_MS, RunIndex } from '../../src/service/run-index.js';
import { Service } from '../../src/service/service.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

describe('the run index across coordinators', () => {
  let h: Harness;
  let other: Service;
  const person = () => h.as(CAST.ann);
  const ids = async (svc: Service) => ((await svc.call('list_runs', { limit: 100 }, person())) as { ok: true; data: { items: { id: string; state: string }[] } }).data.items;
  const listedByOther = async () => (await ids(other)).map((r) => r.id);
  /** A run started and seen by the other coordinator, then its folder moved out of runs/ with no commit: only runs/ changes. Returns where it went. */
  const startedThenMovedAway = async (amount: number) => {
    const r = await h.start('claim-review', { claimant: CAST.bob, amount });
    await ids(other);
    const away = `${h.root}-away-${r.run.id}`;
    await fs.rename(path.join(h.root, 'runs', r.run.id), away);
    expect(await listedByOther()).not.toContain(r.run.id);
    return { id: r.run.id as string, away };
  };

  beforeAll(async () => {
    h = await Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });
    other = await Service.open(await Board.open(h.root));
  });

  it('a run another coordinator starts or ends is seen at once, through the change log', async () => {
    expect(await ids(other)).toEqual([]);
    const a = await h.start('claim-review', { claimant: CAST.ann, amount: 1 });
    expect((await ids(other)).map((r) => r.id)).toEqual([a.run.id]);
    await h.ok('cancel', { runId: a.run.id, reason: 'Test.' }, CAST.operator);
    expect((await ids(other)).find((r) => r.id === a.run.id)?.state).toBe('cancelled');
    const log = await fs.readFile(path.join(h.root, CHANGES_FILE), 'utf8');
    expect(log.split('\n').filter((l) => l === `run ${a.run.id}`).length).toBeGreaterThanOrEqual(2);
  });

  it('a run folder copied in or removed by hand (as git does) is seen through the runs/ listing', async () => {
    const b = await startedThenMovedAway(2);
    await fs.rename(b.away, path.join(h.root, 'runs', b.id));
    expect(await listedByOther()).toContain(b.id);
  });

  it('a run folder that holds no RUN.md yet (its files still coming, as git writes them) is indexed once they come and runs/ changes again', async () => {
    const d = await startedThenMovedAway(5);
    // The folder arrives first, empty; the listing finds it and indexes nothing.
    await fs.mkdir(path.join(h.root, 'runs', d.id));
    expect(await listedByOther()).not.toContain(d.id);
    // Its files come (no commit, so no change-log line), then another run is started beside it.
    for (const name of await fs.readdir(d.away)) await fs.rename(path.join(d.away, name), path.join(h.root, 'runs', d.id, name));
    await fs.rmdir(d.away);
    const e = await h.start('claim-review', { claimant: CAST.bob, amount: 6 });
    expect(await listedByOther()).toEqual(expect.arrayContaining([d.id, e.run.id]));
  });

  it('a fresh coordinator starts from .work/index/ and reads only what changed since', async () => {
    const x = await h.start('claim-review', { claimant: CAST.cat, amount: 3 });
    // A full scan writes .work/index/ with the log's end as its cursor.
    await fs.rm(path.join(h.root, '.work/index'), { recursive: true, force: true });
    expect((await new RunIndex(await Board.open(h.root)).summaries()).map((r) => r.id)).toContain(x.run.id);
    // x's RUN.md edited in place (no log line), then a new run c (a log line).
    const file = path.join(h.root, 'runs', x.run.id, 'RUN.md');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('amount: 3', 'amount: 33'));
    const c = await h.start('claim-review', { claimant: CAST.cat, amount: 4 });
    const fresh = await new RunIndex(await Board.open(h.root)).summaries();
    expect(fresh.map((r) => r.id)).toContain(c.run.id);
    // Only what the log named was read again: the in-place edit of x is not seen (a full scan would see it).
    expect(fresh.find((r) => r.id === x.run.id)?.inputs).toEqual({ claimant: CAST.cat, amount: 3 });
  });

  it('a cold start that wants only the open runs lets the ended ones go to disk, and every run is still listed after', async () => {
    const open = await h.start('claim-review', { claimant: CAST.cat, amount: 7 });
    const ended = await h.start('claim-review', { claimant: CAST.cat, amount: 8 });
    await h.ok('cancel', { runId: ended.run.id, reason: 'Test.' }, CAST.operator);
    await fs.rm(path.join(h.root, '.work/index'), { recursive: true, force: true });
    const cold = new RunIndex(await Board.open(h.root));
    const openIds = (await cold.openSummaries()).map((r) => r.id);
    expect(openIds).toContain(open.run.id);
    expect(openIds).not.toContain(ended.run.id);
    // A run ending after the scan is listed among the ended ones too.
    await h.ok('cancel', { runId: open.run.id, reason: 'Test.' }, CAST.operator);
    expect((await cold.openSummaries()).map((r) => r.id)).not.toContain(open.run.id);
    const all = await cold.summaries();
    expect(all.find((r) => r.id === ended.run.id)?.state).toBe('cancelled');
    expect(all.find((r) => r.id === open.run.id)?.state).toBe('cancelled');
    expect(all.map((r) => r.id)).toEqual((await ids(other)).map((r) => r.id).sort());
  });

  it('an edit outside workboard to a run already indexed shows after the rescan interval; a rotated log rescans at once', async () => {
    const d = await h.start('claim-review', { claimant: CAST.ann, amount: 4 });
    let now = Date.now();
    const index = new RunIndex(await Board.open(h.root), undefined, () => now);
    expect((await index.summaries()).find((r) => r.id === d.run.id)?.inputs).toEqual({ claimant: CAST.ann, amount: 4 });
    const file = path.join(h.root, 'runs', d.run.id, 'RUN.md');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('amount: 4', 'amount: 44'));
    expect((await index.summaries()).find((r) => r.id === d.run.id)?.inputs).toEqual({ claimant: CAST.ann, amount: 4 });
    now += RESCAN_MS;
    expect((await index.summaries()).find((r) => r.id === d.run.id)?.inputs).toEqual({ claimant: CAST.ann, amount: 44 });
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('amount: 44', 'amount: 45'));
    await fs.rename(path.join(h.root, CHANGES_FILE), path.join(h.root, `${CHANGES_FILE}.old`));
    await fs.writeFile(path.join(h.root, CHANGES_FILE), '');
    expect((await index.summaries()).find((r) => r.id === d.run.id)?.inputs).toEqual({ claimant: CAST.ann, amount: 45 });
  });

  it("a run this coordinator is starting costs no listing of runs/ while its folder waits for the change log; another's does", async () => {
    const board = await Board.open(h.root);
    const index = new RunIndex(board);
    await index.summaries();
    const listings = vi.spyOn(board.listing, 'typedNames');
    const listedRuns = () => listings.mock.calls.filter(([dir]) => dir === 'runs').length;
    // A start in flight: its folder holds its first commit's temp file, and the log does not name it yet.
    const ours = 'r-01jzzzzzzzzzzzzzzzzzzzzzza';
    await fs.mkdir(path.join(h.root, 'runs', ours));
    await fs.writeFile(path.join(h.root, 'runs', ours, 'RUN.md.tmp-host-1-abcdef01'), 'temp');
    const done = index.starting(ours);
    await index.summaries();
    expect(listedRuns()).toBe(0);
    // Another coordinator's start in flight: only a listing can tell its folder from a hand-made run.
    const theirs = 'r-01jzzzzzzzzzzzzzzzzzzzzzzb';
    await fs.mkdir(path.join(h.root, 'runs', theirs));
    await index.summaries();
    expect(listedRuns()).toBe(1);
    done();
    await fs.rm(path.join(h.root, 'runs', ours), { recursive: true });
    await fs.rm(path.join(h.root, 'runs', theirs), { recursive: true });
    listings.mockRestore();
  });

  it('where runs/ does not count its subfolders (ext4 past 65,000, btrfs), it is listed at most every LIST_EVERY_MS, and a folder swapped for another is seen', async () => {
    const board = await Board.open(h.root);
    // The file system's answer for runs/ as ext4 gives it past 65,000 subfolders: a link count of 1.
    const stat = board.listing.stat.bind(board.listing);
    vi.spyOn(board.listing, 'stat').mockImplementation((rel) => {
      const s = stat(rel);
      return rel === 'runs' && s ? { ...s, links: 1 } : s;
    });
    let now = Date.now();
    const index = new RunIndex(board, undefined, () => now);
    const open = async () => (await index.openSummaries()).map((r) => r.id);
    const b = await h.start('claim-review', { claimant: CAST.bob, amount: 7 });
    const c = await h.start('claim-review', { claimant: CAST.bob, amount: 8 });
    expect(await open()).toEqual(expect.arrayContaining([b.run.id, c.run.id]));
    // Taken out by hand: the first look after a change lists runs/.
    const away = (id: string) => `${h.root}-away-${id}`;
    await fs.rename(path.join(h.root, 'runs', b.run.id), away(b.run.id));
    await fs.rename(path.join(h.root, 'runs', c.run.id), away(c.run.id));
    now += LIST_EVERY_MS;
    const taken = await open();
    expect(taken).not.toContain(b.run.id);
    expect(taken).not.toContain(c.run.id);
    // Put back by hand: not listed again within the interval, so not seen yet; a run the change log names is seen at once.
    await fs.rename(away(b.run.id), path.join(h.root, 'runs', b.run.id));
    const e = await h.start('claim-review', { claimant: CAST.cat, amount: 9 });
    const within = await open();
    expect(within).toContain(e.run.id);
    expect(within).not.toContain(b.run.id);
    now += LIST_EVERY_MS;
    expect(await open()).toContain(b.run.id);
    // One folder swapped for another: as many runs as before, other ids; the ids' sum tells them apart.
    await fs.rename(path.join(h.root, 'runs', b.run.id), away(b.run.id));
    await fs.rename(away(c.run.id), path.join(h.root, 'runs', c.run.id));
    now += LIST_EVERY_MS;
    const swapped = await open();
    expect(swapped).toContain(c.run.id);
    expect(swapped).not.toContain(b.run.id);
    // And a fresh process, from the index on disk, lists what the files hold.
    await fs.rename(away(b.run.id), path.join(h.root, 'runs', b.run.id));
    await fs.rename(path.join(h.root, 'runs', c.run.id), away(c.run.id));
    const fresh = new RunIndex(board, undefined, () => now);
    const listedFresh = (await fresh.openSummaries()).map((r) => r.id);
    expect(listedFresh).toContain(b.run.id);
    expect(listedFresh).not.toContain(c.run.id);
    await fs.rename(away(c.run.id), path.join(h.root, 'runs', c.run.id));
  });

  it('keeps the open runs in id order, as a fresh index lists them, as runs start out of order and end, without changing a list already given', async () => {
    const index = new RunIndex(await Board.open(h.root));
    /** The open runs as each RUN.md says, in id order: read with a regular expression, not through an index. */
    const openOnDisk = async () => {
      const out: string[] = [];
      for (const id of (await fs.readdir(path.join(h.root, 'runs'))).sort()) {
        const text = await fs.readFile(path.join(h.root, 'runs', id, 'RUN.md'), 'utf8').catch(() => '');
        if (/^state: (active|waiting)$/m.test(text)) out.push(id);
      }
      return out;
    };
    const listed = async () => (await index.openSummaries()).map((r) => r.id);
    expect(await listed()).toEqual(await openOnDisk());
    const started: string[] = [];
    // Each start's time moves back and forth, so its id falls among the others, not after them.
    for (const [i, shift] of [-50_000, 20_000, -5_000, 40_000, -30_000, 1_000].entries()) {
      h.advance(shift);
      started.push((await h.start('claim-review', { claimant: CAST.bob, amount: 40 + i })).run.id);
      const given = await index.openSummaries();
      const givenIds = given.map((r) => r.id);
      expect(givenIds).toEqual(await openOnDisk());
      if (i % 2 === 1) {
        await h.ok('cancel', { runId: started[i - 1]!, reason: 'Test.' }, CAST.operator);
        expect(await listed()).toEqual(await openOnDisk());
        // The list given before the change is as it was.
        expect(given.map((r) => r.id)).toEqual(givenIds);
      }
    }
    expect(started.slice().sort()).not.toEqual(started);
    expect(await listed()).toEqual((await new RunIndex(await Board.open(h.root)).openSummaries()).map((r) => r.id));
  });
});

/**
 * The run index's copy on disk (`.work/index/open` and `ended`, two
 * append-only files): a fresh process starts from it, from none, from a torn
 * or garbled one, and after a `git pull` changed runs, and lists exactly the
 * runs the board's files hold. What the files hold is read here with a
 * regular expression per RUN.md, not through the index. Real files, real git.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Board } from '../../src/board/board.js';
import type { Actor } from '../../src/engine/types.js';
import { resolveActor } from '../../src/service/identity.js';
import { RESCAN_MS, RunIndex } from '../../src/service/run-index.js';
import { IndexEntries } from '../../src/service/run-index-file.js';
import { scanRunSummary } from '../../src/service/run-summary-scan.js';
import { Service } from '../../src/service/service.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { git, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

afterAll(cleanupHarnesses);

const OPEN = '.work/index/open';
const ENDED = '.work/index/ended';

/** Each run's id and state as its RUN.md says, oldest id first. */
async function onDisk(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const id of (await fs.readdir(path.join(root, 'runs'))).sort()) {
    const text = await fs.readFile(path.join(root, 'runs', id, 'RUN.md'), 'utf8').catch(() => null);
    if (text !== null) out.push(`${id} ${/^state: (\S+)$/m.exec(text)![1]}`);
  }
  return out;
}

const listed = async (index: RunIndex) => (await index.summaries()).map((r) => `${r.id} ${r.state}`);
/** Every run as a fresh process lists it, checking that it read no RUN.md (the copy on disk was whole). */
async function listedReadingNoRun(root: string): Promise<string[]> {
  const board = await Board.open(root);
  const reads = vi.spyOn(board.store, 'readBytes');
  const scans = vi.spyOn(board.listing, 'readStamped');
  const out = await listed(new RunIndex(board));
  expect([...reads.mock.calls, ...scans.mock.calls].filter(([rel]) => rel.endsWith('/RUN.md'))).toEqual([]);
  return out;
}
const listedOpen = async (index: RunIndex) => (await index.openSummaries()).map((r) => `${r.id} ${r.state}`);
const isOpen = (line: string) => line.endsWith(' active') || line.endsWith(' waiting');

describe('the run index on disk', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });
    for (let i = 0; i < 8; i++) {
      const r = await h.start('claim-review', { claimant: CAST.ann, amount: i + 1 });
      if (i % 2 === 0) await h.ok('cancel', { runId: r.run.id, reason: 'Test.' }, CAST.operator);
    }
    await fs.rm(path.join(h.root, '.work/index'), { recursive: true, force: true });
  });

  it('is written by a cold start and read by the next process, which reads no RUN.md and, for the open runs alone, not the ended file', async () => {
    const truth = await onDisk(h.root);
    expect(truth.filter(isOpen)).toHaveLength(4);
    expect(await listed(new RunIndex(await Board.open(h.root)))).toEqual(truth);
    for (const f of [OPEN, ENDED]) expect((await fs.stat(path.join(h.root, f))).size).toBeGreaterThan(0);

    const board = await Board.open(h.root);
    const reads = vi.spyOn(board.store, 'readBytes');
    expect(await listed(new RunIndex(board))).toEqual(truth);
    expect(reads.mock.calls.filter(([rel]) => rel.endsWith('/RUN.md'))).toEqual([]);

    const fresh = await Board.open(h.root);
    const stateReads = vi.spyOn(fresh.state, 'readTextNow');
    expect(await listedOpen(new RunIndex(fresh))).toEqual(truth.filter(isOpen));
    expect(stateReads.mock.calls.map(([rel]) => rel)).not.toContain(ENDED);
  });

  it('a cold start for the open runs writes the ended entries to the file as it reads them, and the next process lists every run from it, reading no RUN.md', async () => {
    await fs.rm(path.join(h.root, '.work/index'), { recursive: true, force: true });
    const truth = await onDisk(h.root);
    expect(await listedOpen(new RunIndex(await Board.open(h.root)))).toEqual(truth.filter(isOpen));
    // The file holds each ended run once, and nothing half made is left beside it.
    const endedLines = (await fs.readFile(path.join(h.root, ENDED), 'utf8')).split('\n').filter(Boolean);
    const idsIn = endedLines.map((l) => /^[0-9a-f]{8} \["(r-[0-9a-z]+)"/.exec(l)?.[1]);
    expect(idsIn.sort()).toEqual(truth.filter((l) => !isOpen(l)).map((l) => l.split(' ')[0]));
    expect((await fs.readdir(path.join(h.root, '.work/index'))).sort()).toEqual(['ended', 'open']);

    expect(await listedReadingNoRun(h.root)).toEqual(truth);
  });

  it('a cold start whose save cannot be made (another process holds the index) keeps every run in memory, and leaves no file half made', async () => {
    await fs.rm(path.join(h.root, '.work/index'), { recursive: true, force: true });
    const truth = await onDisk(h.root);
    const holder = await Board.open(h.root);
    const cold = new RunIndex(await Board.open(h.root));
    await holder.state.locked('run-index', async () => {
      expect(await listedOpen(cold)).toEqual(truth.filter(isOpen));
    });
    expect(await fs.readdir(path.join(h.root, '.work/index')).catch(() => [])).toEqual([]);
    expect(await listed(cold)).toEqual(truth);

    // The same when the file cannot be put in place (a folder where it belongs): the save fails, nothing is lost.
    await fs.rm(path.join(h.root, '.work/index'), { recursive: true, force: true });
    await fs.mkdir(path.join(h.root, ENDED), { recursive: true });
    await fs.writeFile(path.join(h.root, ENDED, 'in-the-way'), '');
    const blocked = new RunIndex(await Board.open(h.root));
    expect(await listedOpen(blocked)).toEqual(truth.filter(isOpen));
    expect(await listed(blocked)).toEqual(truth);
    expect((await fs.readdir(path.join(h.root, '.work/index'))).filter((n) => n.includes('.tmp-'))).toEqual([]);
    await fs.rm(path.join(h.root, ENDED), { recursive: true });
    // The next process saves its own; the one after it reads every run from that.
    expect(await listed(new RunIndex(await Board.open(h.root)))).toEqual(truth);
    expect(await listedReadingNoRun(h.root)).toEqual(truth);
  });

  it('a warm process whose open run ends after a newer run was saved as ended does not read the ended entries back', async () => {
    // A cold start writes both files and its cursor before it answers: the warm process below catches up from there.
    await fs.rm(path.join(h.root, '.work/index'), { recursive: true, force: true });
    await listedOpen(new RunIndex(await Board.open(h.root)));
    const board = await Board.open(h.root);
    // Each look at the clock is 10 s later, so every catch-up also saves (SAVE_EVERY_MS).
    let now = Date.now();
    const index = new RunIndex(board, undefined, () => (now += 10_000));
    // A run's id begins with its start time: these two come after every run before them, in this order.
    h.advance(60_000);
    const older = await h.start('claim-review', { claimant: CAST.bob, amount: 50 });
    h.advance(1_000);
    const newer = await h.start('claim-review', { claimant: CAST.bob, amount: 60 });
    expect(older.run.id < newer.run.id).toBe(true);
    const reads = vi.spyOn(board.state, 'readTextNow');
    expect(await listedOpen(index)).toEqual((await onDisk(h.root)).filter(isOpen));
    await h.ok('cancel', { runId: newer.run.id, reason: 'Test.' }, CAST.operator);
    await listedOpen(index);
    // The newer run's end is on disk: the greatest ended id there is now above the older run's.
    await until(async () => ((await fs.readFile(path.join(h.root, ENDED), 'utf8')).includes(newer.run.id) ? true : undefined), 10_000, 20);
    await h.ok('cancel', { runId: older.run.id, reason: 'Test.' }, CAST.operator);
    expect(await listedOpen(index)).toEqual((await onDisk(h.root)).filter(isOpen));
    expect(reads.mock.calls.map(([rel]) => rel)).not.toContain(ENDED);
    // And what it saved lists every run as the files say, in this process and the next.
    expect(await listed(index)).toEqual(await onDisk(h.root));
    await until(async () => ((await fs.readFile(path.join(h.root, ENDED), 'utf8')).includes(older.run.id) ? true : undefined), 10_000, 20);
    expect(await listedReadingNoRun(h.root)).toEqual(await onDisk(h.root));
  });

  it('keeps an ended run by its id alone once saved, and a run below the greatest ended id reads no ended entry back', async () => {
    await fs.rm(path.join(h.root, '.work/index'), { recursive: true, force: true });
    await listedOpen(new RunIndex(await Board.open(h.root)));
    const truth = await onDisk(h.root);
    const ended = truth.filter((l) => !isOpen(l)).map((l) => l.split(' ')[0]!);
    const fresh = async () => {
      const entries = new IndexEntries();
      const cursor = entries.load((await Board.open(h.root)).state);
      expect(cursor).not.toBeNull();
      return { entries, cursor };
    };
    const { entries, cursor } = await fresh();
    // Each ended run is known to be one, with no entry held for it.
    for (const id of ended) {
      expect(entries.has(id)).toBe(true);
      expect(entries.stampOf(id)).toBeUndefined();
    }
    // Ids below every other, as runs a clone whose clock is behind started and git brought.
    const low = (n: number) => `r-${String(n).padStart(26, '0')}`;
    const text = await fs.readFile(path.join(h.root, 'runs', ended[0]!, 'RUN.md'), 'utf8');
    const summary = scanRunSummary(text)!;
    entries.set(low(1), { stamp: 'one', summary: { ...summary, id: low(1) } });
    entries.set(low(2), { stamp: 'two', summary: { ...summary, id: low(2), state: 'active', outcome: null } });
    expect([entries.has(low(1)), entries.openSummary(low(1)), entries.stampOf(low(1))]).toEqual([true, undefined, 'one']);
    expect([entries.has(low(2)), entries.openSummary(low(2))?.state, entries.stampOf(low(2))]).toEqual([true, 'active', 'two']);
    expect(entries.has(low(3))).toBe(false);
    for (const id of ended) expect(entries.stampOf(id)).toBeUndefined();
    // Saved: the ended run's entry is in the file, and only its id in memory.
    await entries.save(cursor);
    expect([entries.has(low(1)), entries.stampOf(low(1))]).toEqual([true, undefined]);
    expect(entries.stampOf(low(2))).toBe('two');
    const after = await fresh();
    const listedThere = after.entries.values().map((e) => `${e.summary.id} ${e.summary.state}`);
    expect(listedThere.sort()).toEqual([...truth, `${low(1)} ${summary.state}`, `${low(2)} active`].sort());
    // Gone again: from memory and, after a save, from the file.
    expect(entries.delete(low(1))).toBe(true);
    expect(entries.delete(low(2))).toBe(true);
    expect([entries.has(low(1)), entries.has(low(2))]).toEqual([false, false]);
    await entries.save(cursor);
    expect(
      (await fresh()).entries
        .values()
        .map((e) => `${e.summary.id} ${e.summary.state}`)
        .sort(),
    ).toEqual(truth);
  });

  it('is appended to, not rewritten, when runs start and end', async () => {
    await listed(new RunIndex(await Board.open(h.root)));
    const before = await Promise.all([OPEN, ENDED].map(async (f) => ({ ino: (await fs.stat(path.join(h.root, f))).ino, bytes: await fs.readFile(path.join(h.root, f)) })));
    const r = await h.start('claim-review', { claimant: CAST.bob, amount: 40 });
    await h.ok('cancel', { runId: r.run.id, reason: 'Test.' }, CAST.operator);
    const index = new RunIndex(await Board.open(h.root));
    expect(await listed(index)).toEqual(await onDisk(h.root));
    // The save is in the background: wait until the ended file names the new run.
    await until(async () => ((await fs.readFile(path.join(h.root, ENDED), 'utf8')).includes(r.run.id) ? true : undefined), 10_000, 20);
    await until(async () => ((await fs.stat(path.join(h.root, OPEN))).size > before[0]!.bytes.length ? true : undefined), 10_000, 20);
    for (const [i, f] of [OPEN, ENDED].entries()) {
      const now = await fs.readFile(path.join(h.root, f));
      expect((await fs.stat(path.join(h.root, f))).ino).toBe(before[i]!.ino);
      expect(now.subarray(0, before[i]!.bytes.length).equals(before[i]!.bytes)).toBe(true);
    }
    expect(await listed(new RunIndex(await Board.open(h.root)))).toEqual(await onDisk(h.root));
  });

  it('torn, garbled or missing, still gives the runs the files hold', async () => {
    await listed(new RunIndex(await Board.open(h.root)));
    const saved = Object.fromEntries(await Promise.all([OPEN, ENDED].map(async (f) => [f, await fs.readFile(path.join(h.root, f))] as const)));
    // What changed since the copy was saved: one open run cancelled, one run started (the log names both).
    const open = (await onDisk(h.root)).find(isOpen)!.split(' ')[0]!;
    await h.ok('cancel', { runId: open, reason: 'Test.' }, CAST.operator);
    await h.start('claim-review', { claimant: CAST.cat, amount: 50 });
    const truth = await onDisk(h.root);
    const damages: [string, (b: Buffer) => Buffer | null][] = [];
    for (const f of [OPEN, ENDED]) {
      const n = saved[f]!.length;
      for (const cut of [0, 1, Math.floor(n / 3), Math.floor(n / 2), n - 1]) damages.push([`${f} cut to ${cut} bytes`, (b) => b.subarray(0, cut)]);
      for (const at of [0, 9, Math.floor(n / 2), n - 3]) {
        damages.push([
          `${f} byte ${at} changed`,
          (b) => {
            const c = Buffer.from(b);
            c[at] = c[at] === 0x30 ? 0x31 : 0x30;
            return c;
          },
        ]);
      }
      damages.push([`${f} removed`, () => null]);
      damages.push([`${f} with a line of garbage after it`, (b) => Buffer.concat([b, Buffer.from('00000000 ["s","r-x"]\n')])]);
    }
    for (const [what, damage] of damages) {
      for (const f of [OPEN, ENDED]) await fs.writeFile(path.join(h.root, f), saved[f]!);
      const target = what.startsWith(OPEN) ? OPEN : ENDED;
      const bytes = damage(saved[target]!);
      if (bytes === null) await fs.rm(path.join(h.root, target));
      else await fs.writeFile(path.join(h.root, target), bytes);
      expect(await listed(new RunIndex(await Board.open(h.root))), what).toEqual(truth);
      // Restored again: the ended file's inode moved with the rewrite, so the copy is not trusted and rebuilt.
      for (const f of [OPEN, ENDED]) await fs.writeFile(path.join(h.root, f), saved[f]!);
      expect(await listedOpen(new RunIndex(await Board.open(h.root))), what).toEqual(truth.filter(isOpen));
    }
  });
});

describe('the run index on disk after a git pull', () => {
  it('a plain git pull that brought runs and ended one: a fresh process lists what the files hold', async () => {
    const { a, b, run } = await twoClones();
    // a's index is written before the pull.
    expect((await wb(a, 'runs', '--as', 'ana@example.com')).code).toBe(0);
    expect((await fs.stat(path.join(a, OPEN))).size).toBeGreaterThan(0);
    const added: string[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await wb(b, '--as', 'writer-b', 'start', 'hello', '--input', `topic=Trains ${i}`, '--input', 'words=60');
      expect(s.code, s.stderr).toBe(0);
      added.push(s.stdout.trim());
    }
    expect((await wb(b, '--as', 'ana@example.com', 'cancel', run, '--reason', 'Not needed.')).code).toBe(0);
    expect((await wb(b, '--as', 'ana@example.com', 'cancel', added[0]!, '--reason', 'Not needed.')).code).toBe(0);
    const pushed = await wb(b, 'sync');
    expect(pushed.code, pushed.stderr).toBe(0);
    git(a, 'pull', '-q');
    const truth = await onDisk(a);
    expect(truth).toEqual(expect.arrayContaining([`${run} cancelled`, `${added[0]} cancelled`, `${added[1]} active`]));
    // What list_runs answers is the files' (an open run is read afresh); the runs git added are in the index at once.
    const board = await Board.open(a);
    const svc = await Service.open(board);
    const rows = await svc.call('list_runs', { limit: 100 }, (resolveActor(board.manifest, 'ana@example.com') as { actor: Actor }).actor);
    if (!rows.ok) throw new Error(JSON.stringify(rows.error));
    expect(rows.data.items.map((r) => `${r.id} ${r.state}`).sort()).toEqual(truth);
    expect((await listedOpen(new RunIndex(await Board.open(a)))).map((l) => l.split(' ')[0])).toEqual(expect.arrayContaining(added.slice(1)));
    // The index's own summary of a run git changed in place is caught up by the check of every RUN.md (docs/architecture.md "The change log").
    let now = Date.now();
    const index = new RunIndex(await Board.open(a), undefined, () => now);
    await index.summaries();
    now += RESCAN_MS;
    expect(await listed(index)).toEqual(truth);
  }, 600_000);
});

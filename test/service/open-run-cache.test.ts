/**
 * The CLI's cache of open runs' states between processes
 * (src/service/open-run-cache.ts): a state is reused only while every file of
 * its run and leases is exactly as it was, never for files younger than the
 * racy window, and it never hides a change: an edit in place (same size), a
 * claim by another process, a run that ended. Real files and real CLI
 * processes; file ages are set with utimes, not waited for.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { OpenRunCache } from '../../src/service/open-run-cache.js';
import { ensureBuilt } from '../support/cli-run.js';

/** The stamp of every file of the run that the cache compares and records. */
const filesStamp = (c: OpenRunCache, runId: string) => c.stamps(runId)?.files ?? null;

const BIN = fileURLToPath(new URL('../../bin/workboard.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/board', import.meta.url));

function board(): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'wb-kept-')), 'b');
  cpSync(EXAMPLE, dir, { recursive: true });
  return dir;
}

function wb(dir: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, '--board', dir, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(dir: string, ...args: string[]): any {
  const r = wb(dir, '--json', ...args);
  expect(r.stderr).not.toMatch(/internal/i);
  return JSON.parse(r.stdout);
}

/** Set the mtime of every file of the run (and its leases): a minute ago by default, as if written long ago. */
function age(dir: string, runId: string, ms = -60_000): void {
  const old = new Date(Date.now() + ms);
  for (const d of [`runs/${runId}`, `.work/leases/${runId}`]) {
    let names: string[] = [];
    try {
      names = readdirSync(path.join(dir, d));
    } catch {
      continue;
    }
    for (const n of names) utimesSync(path.join(dir, d, n), old, old);
  }
}

function startRun(dir: string): string {
  const r = json(dir, '--as', 'mira@example.com', 'start', 'expense-approval', '--input', 'claimant=mira@example.com', '--input', 'amount=120', '--input', 'receiptUrl=https://example.com/r');
  expect(r.ok).toBe(true);
  return r.data.run.id as string;
}

const kept = (dir: string): string[] => {
  try {
    return (JSON.parse(readFileSync(path.join(dir, '.work/open-runs.json'), 'utf8')).entries as [string, unknown][]).map(([id]) => id);
  } catch {
    return [];
  }
};

beforeAll(ensureBuilt, 180_000);

describe('open runs kept between CLI processes', () => {
  it('keeps an open run read from old files, and not one whose files are young', () => {
    const dir = board();
    const young = startRun(dir);
    const old = startRun(dir);
    age(dir, old);
    age(dir, young, 60_000); // stamped a minute ahead: younger than any racy window when read
    expect(young).not.toBe(old);
    expect(json(dir, '--as', 'reviewer', 'inbox').ok).toBe(true);
    expect(kept(dir)).toEqual([old]);
  });

  it('an edit in place of the same size is seen by the next process', () => {
    const dir = board();
    const id = startRun(dir);
    age(dir, id);
    expect(json(dir, 'show', id).data.data.inputs.amount).toBe(120);
    expect(kept(dir)).toEqual([id]);
    const file = path.join(dir, 'runs', id, 'RUN.md');
    const before = statSync(file);
    writeFileSync(file, readFileSync(file, 'utf8').replace('amount: 120', 'amount: 121'));
    expect(statSync(file).size).toBe(before.size);
    expect(statSync(file).ino).toBe(before.ino);
    expect(json(dir, 'show', id).data.data.inputs.amount).toBe(121);
  });

  it('a claim made by another process, and a run ended since, are seen', () => {
    const dir = board();
    const id = startRun(dir);
    age(dir, id);
    const listed = json(dir, '--as', 'reviewer', 'inbox');
    expect(listed.data.items.map((i: { runId: string }) => i.runId)).toContain(id);
    expect(kept(dir)).toEqual([id]);
    expect(json(dir, '--as', 'reviewer', 'claim', id, 'review_claim').ok).toBe(true);
    age(dir, id);
    expect(json(dir, '--as', 'reviewer', 'inbox').data.items.map((i: { runId: string }) => i.runId)).not.toContain(id);
    const shown = json(dir, 'show', id).data;
    expect(shown.steps.find((s: { id: string }) => s.id === 'review_claim').state).toBe('claimed');
    expect(json(dir, '--as', 'mira@example.com', 'cancel', id, '--reason', 'not needed').ok).toBe(true);
    expect(json(dir, 'show', id).data.run.state).toBe('cancelled');
    expect(json(dir, '--as', 'reviewer', 'inbox').ok).toBe(true);
    expect(kept(dir)).toEqual([]);
  });

  it('a damaged cache file is ignored and rebuilt', () => {
    const dir = board();
    const id = startRun(dir);
    age(dir, id);
    writeFileSync(path.join(dir, '.work/open-runs.json'), '{"version":1,"entries":[["' + id + '",');
    expect(json(dir, 'show', id).data.run.id).toBe(id);
    expect(kept(dir)).toEqual([id]);
  });

  it("a folder's names are taken from the cache only as the cache file should hold them", async () => {
    const dir = board();
    const id = startRun(dir);
    const b = await Board.open(dir);
    const expected = filesStamp(new OpenRunCache(b), id);
    expect(expected).not.toBeNull();
    // An entry whose run folder's stamp is today's, with names no listing gives: a path out of the folder, a number.
    const st = statSync(path.join(dir, 'runs', id), { bigint: true });
    const own = `${st.ino}:${st.mtimeNs}:${st.ctimeNs}`;
    for (const names of [['../../outside'], [7], 'RUN.md']) {
      writeFileSync(path.join(dir, '.work/open-runs.json'), JSON.stringify({ version: 2, entries: [[id, { stamp: 'x', state: {}, folders: [[own, names]] }]] }));
      expect(filesStamp(new OpenRunCache(b), id)).toBe(expected);
    }
  });

  it('get and put compare every file of the run and of its leases', async () => {
    const dir = board();
    const id = startRun(dir);
    const b = await Board.open(dir);
    // A second before the run's files were written (read from them: on a busy machine the start may be long past).
    const written = Math.max(...readdirSync(path.join(dir, 'runs', id)).map((n) => statSync(path.join(dir, 'runs', id, n)).mtimeMs));
    let now = written - 1000;
    const cache = new OpenRunCache(b, () => now);
    const state = { run: { id } } as never;
    const stamp = filesStamp(cache, id);
    cache.put(id, stamp, state);
    expect(cache.get(id, filesStamp(cache, id))).toBeNull(); // files too young to trust
    now += 10_000;
    cache.put(id, stamp, state);
    expect(cache.get(id, filesStamp(cache, id))).toBe(state);
    // Whole-second mtimes (a coarse file system): two seconds must pass, not 100 ms.
    const whole = new Date(Math.floor(Date.now() / 1000) * 1000);
    for (const n of readdirSync(path.join(dir, 'runs', id))) utimesSync(path.join(dir, 'runs', id, n), whole, whole);
    const coarse = new OpenRunCache(b, () => whole.getTime() + 500);
    coarse.put(id, filesStamp(coarse, id), state);
    expect(coarse.get(id, filesStamp(coarse, id))).toBeNull();
    const later = new OpenRunCache(b, () => whole.getTime() + 2500);
    later.put(id, filesStamp(later, id), state);
    expect(later.get(id, filesStamp(later, id))).toBe(state);
    // The entry kept before those mtimes changed no longer matches; nor after a file is added.
    expect(cache.get(id, filesStamp(cache, id))).toBeNull();
    writeFileSync(path.join(dir, 'runs', id, 'review_claim.md.note'), 'x');
    expect(later.get(id, filesStamp(later, id))).toBeNull();
    expect(filesStamp(cache, 'r-00000000000000000000000000')).toBeNull();
  });
});

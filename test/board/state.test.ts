/**
 * board.state, the one way to `.work/` records: it refuses paths outside
 * `.work/`, creates a record once, makes folders as records need them, and
 * its named lock keeps a read-modify-write whole across real OS processes.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkState } from '../../src/board/state.js';
import { ensureBuilt, ROOT } from '../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

beforeAll(ensureBuilt, 300_000);
afterAll(cleanupTmp);

const options = { lockStaleMs: 30_000, lockTimeoutMs: 30_000 };

describe('board.state', () => {
  it('refuses every path that is not under .work/, before touching anything', async () => {
    const root = await tmpDir();
    const state = new WorkState(root, options);
    for (const rel of ['WORK.md', 'runs/r-1/RUN.md', '.work', '.work/../WORK.md', '/etc/passwd', '']) {
      await expect(state.replace(rel, 'x')).rejects.toThrow(/not a path under \.work\//);
      expect(() => state.list(rel)).toThrow(/not a path under \.work\//);
    }
    expect(await fs.readdir(root)).toEqual([]);
  });

  it('writes, lists, appends and removes records, making their folders; create makes a record once', async () => {
    const root = await tmpDir();
    const state = new WorkState(root, options);
    expect(state.list('.work/notes')).toEqual([]);
    expect(state.stamp('.work/notes/b.json')).toBe('');
    await state.replace('.work/notes/b.json', '{"b":1}\n');
    await state.replace('.work/notes/a.json', '{"a":1}\n');
    expect(state.list('.work/notes')).toEqual(['a.json', 'b.json']);
    expect(await state.readText('.work/notes/b.json')).toBe('{"b":1}\n');
    expect(state.stamp('.work/notes/b.json')).not.toBe('');
    state.append('.work/logs/incidents.jsonl', '{"n":1}');
    state.append('.work/logs/incidents.jsonl', '{"n":2}\n');
    expect(await fs.readFile(path.join(root, '.work/logs/incidents.jsonl'), 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    expect(await state.create('.work/keys/secret', 'first')).toBe(true);
    expect(await state.create('.work/keys/secret', 'second')).toBe(false);
    expect(await state.readText('.work/keys/secret')).toBe('first');
    expect(await state.remove('.work/notes/a.json')).toBe(true);
    expect(await state.remove('.work/notes/a.json')).toBe(false);
    expect(state.list('.work/notes')).toEqual(['b.json']);
  });

  it('replaces a record from pieces: the bytes are the pieces joined, its folder is made, and a failure leaves the old record and no temp file', async () => {
    const root = await tmpDir();
    const state = new WorkState(root, options);
    // Over a megabyte, with characters of two and four bytes, so pieces meet the writes' boundaries mid-character.
    const pieces = Array.from({ length: 3000 }, (_, i) => `${i} Zoë 🚆 ${'x'.repeat(400)}\n`);
    const len = state.replaceInPieces('.work/index/big', pieces);
    const want = pieces.join('');
    expect(len).toBe(Buffer.byteLength(want));
    expect(await state.readText('.work/index/big')).toBe(want);
    function* failing() {
      yield 'half of a new record';
      throw new Error('the pieces ran out');
    }
    expect(() => state.replaceInPieces('.work/index/big', failing())).toThrow('the pieces ran out');
    expect(await state.readText('.work/index/big')).toBe(want);
    expect(await fs.readdir(path.join(root, '.work/index'))).toEqual(['big']);
  });

  it('two OS processes incrementing one record under its named lock lose no increment', async () => {
    const root = await tmpDir();
    const rounds = 100;
    // Each round reads, yields to the event loop, then writes: without the lock the two processes would overwrite each other.
    const script = `
      const { WorkState } = await import(${JSON.stringify(path.join(ROOT, 'dist/board/state.js'))});
      const state = new WorkState(${JSON.stringify(root)}, { lockStaleMs: 30000, lockTimeoutMs: 30000 });
      for (let i = 0; i < ${rounds}; i++) {
        await state.locked('counter', async () => {
          const n = Number((await state.readText('.work/counter')) ?? '0');
          await new Promise((r) => setImmediate(r));
          await state.replace('.work/counter', String(n + 1));
        });
      }`;
    const run = () =>
      new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('error', reject);
        child.on('exit', resolve);
      });
    expect(await Promise.all([run(), run()])).toEqual([0, 0]);
    expect(await fs.readFile(path.join(root, '.work/counter'), 'utf8')).toBe(String(2 * rounds));
    // Released every time: nothing is left holding the lock.
    expect(await fs.readdir(path.join(root, '.work/locks'))).toEqual([]);
  }, 120_000);
});

/**
 * Reads without a transaction (src/board/listing.ts) on real files: names of
 * a folder (null when absent), stats and stamps that move when a file is
 * replaced, bytes read never through a symbolic link, and no path that could
 * leave the board.
 */
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Listing } from '../../src/board/listing.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

afterAll(cleanupTmp);

describe('Listing', () => {
  it('lists, stats and stamps what is there now, and reads no link', async () => {
    const root = await tmpDir();
    const outside = await tmpDir();
    mkdirSync(path.join(root, 'runs', 'b'), { recursive: true });
    mkdirSync(path.join(root, 'runs', 'a'));
    writeFileSync(path.join(root, 'runs', 'a', 'RUN.md'), 'one');
    writeFileSync(path.join(outside, 'secret'), 'not the board’s');
    symlinkSync(path.join(outside, 'secret'), path.join(root, 'runs', 'a', 'audit.jsonl'));
    const l = new Listing(root);

    expect(l.names('runs')).toEqual(['a', 'b']);
    expect(l.names('runs/missing')).toBeNull();
    expect(l.names('runs/a/RUN.md')).toBeNull();
    expect(l.stat('runs')?.isFile).toBe(false);
    expect(l.stat('runs/a/RUN.md')?.size).toBe(3n);
    expect(l.stat('runs/none')).toBeNull();
    expect(l.stamp('runs/none')).toBe('');

    const before = l.stamp('runs/a/RUN.md');
    writeFileSync(path.join(root, 'runs', 'a', 'RUN.md.tmp'), 'two');
    renameSync(path.join(root, 'runs', 'a', 'RUN.md.tmp'), path.join(root, 'runs', 'a', 'RUN.md'));
    expect(l.stamp('runs/a/RUN.md')).not.toBe(before);
    expect(l.readNow('runs/a/RUN.md')?.toString()).toBe('two');
    expect(l.readNow('runs/a/audit.jsonl')).toBeNull();
    expect(l.readNow('runs/a/none')).toBeNull();
  });

  it('refuses a path that could leave the board, naming it', async () => {
    const l = new Listing(await tmpDir());
    for (const bad of ['../x', 'runs/../../x', '/etc/passwd', 'runs//a', 'runs/', '', '.', 'a\\b', 'a\0b']) {
      expect(() => l.stat(bad), bad).toThrow(`not a path inside the board: ${JSON.stringify(bad)}`);
    }
  });
});

/**
 * The change log's one reader (src/board/changes.ts) on real files: lines
 * appended in pieces are read whole, a torn last line waits for its end, a
 * reader bounded by `until` stops there, and a log renamed away and started
 * afresh (or cut short) is read from its start and said to be a restart. The
 * log is written by hand, byte for byte, as a coordinator in another process
 * appends to it.
 */
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChangeLog } from '../../src/board/changes.js';
import { CHANGES_FILE } from '../../src/board/layout.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

afterAll(cleanupTmp);

const A = 'r-01jaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'r-01jbbbbbbbbbbbbbbbbbbbbbbb';

async function logIn(): Promise<{ log: ChangeLog; file: string }> {
  const root = await tmpDir();
  mkdirSync(path.join(root, '.work'), { recursive: true });
  return { log: new ChangeLog(root), file: path.join(root, CHANGES_FILE) };
}

describe('ChangeLog', () => {
  it('reads whole lines appended in pieces; a torn last line waits for its end', async () => {
    const { log, file } = await logIn();
    const none = log.end();
    expect(none).toEqual({ log: '', offset: 0 });
    expect(log.read(none)).toEqual({ lines: [], cursor: none, restarted: false });

    // The log made after a cursor taken with none is read from its start: it holds only what came after.
    appendFileSync(file, `run ${A}\nboa`);
    const first = log.read(none);
    expect(first.lines).toEqual([`run ${A}`]);
    expect(first.restarted).toBe(false);
    expect(first.cursor.offset).toBe(`run ${A}\n`.length);
    expect(first.cursor.log).not.toBe('');

    // Nothing whole yet: the cursor stays where it was.
    expect(log.read(first.cursor)).toEqual({ lines: [], cursor: first.cursor, restarted: false });
    appendFileSync(file, `rd\nrun ${B}`);
    const second = log.read(first.cursor);
    expect(second.lines).toEqual(['board']);
    appendFileSync(file, '\n');
    const third = log.read(second.cursor);
    expect(third.lines).toEqual([`run ${B}`]);
    expect(third.cursor).toEqual(log.end());
  });

  it('stops at `until`, at the last whole line before it', async () => {
    const { log, file } = await logIn();
    writeFileSync(file, `run ${A}\nboard\nrun ${B}\n`);
    const start = { log: log.end().log, offset: 0 };
    // `until` falls inside the second line: only the first is read.
    const upTo = log.read(start, `run ${A}\nbo`.length);
    expect(upTo.lines).toEqual([`run ${A}`]);
    expect(log.read(upTo.cursor).lines).toEqual(['board', `run ${B}`]);
    expect(log.read(start, 0).lines).toEqual([]);
  });

  it('a log renamed away and started afresh, cut short, or removed starts over and says so', async () => {
    const { log, file } = await logIn();
    writeFileSync(file, `run ${A}\nrun ${A}\n`);
    const before = log.end();
    renameSync(file, `${file}.old`);
    writeFileSync(file, `run ${B}\n`);
    const rotated = log.read(before);
    expect(rotated.restarted).toBe(true);
    expect(rotated.lines).toEqual([`run ${B}`]);
    expect(rotated.cursor).toEqual(log.end());
    expect(rotated.cursor.log).not.toBe(before.log);

    // The same file, shorter than the cursor: rewritten in place.
    writeFileSync(file, 'board\n');
    const short = log.read({ ...rotated.cursor, offset: 1000 });
    expect(short).toEqual({ lines: ['board'], cursor: log.end(), restarted: true });

    renameSync(file, `${file}.old`);
    expect(log.read(short.cursor)).toEqual({ lines: [], cursor: { log: '', offset: 0 }, restarted: true });
  });
});

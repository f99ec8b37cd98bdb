/**
 * The commit log writes its records over zeros made ahead of them
 * (commit-log.ts): every record reads back in order however often the room
 * grows, each append is one flush, the zeros after the last record never
 * read as a record, a record torn in its flush ends the log, and a
 * checkpoint's cut leaves nothing of before it to be read after it.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitLog } from '../../src/board/commit-log.js';
import { readFrames, readLog } from '../../src/board/log-files.js';
import { fsyncCount } from '../../src/board/fsutil.js';

const root = mkdtempSync(path.join(tmpdir(), 'wb-log-room-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const record = (n: number) => ({ n, text: `record ${n} `.repeat(800) }); // about 10 KB each

describe('the commit log written in place', () => {
  const log = CommitLog.of(root);
  const file = () => path.join(root, log.file!);
  const append = async (n: number) => {
    await log.append(record(n));
    log.applied([]);
  };

  it('reads back every record in order while its room grows, one flush each, and the zeros ahead read as nothing', async () => {
    await append(0);
    const opened = statSync(file()).size;
    const before = fsyncCount();
    for (let n = 1; n < 40; n++) await append(n);
    expect(fsyncCount() - before).toBe(39);
    const { header, records } = readLog(file());
    expect(header).toMatchObject({ log: 1, pid: process.pid });
    expect(records).toEqual(Array.from({ length: 40 }, (_, n) => record(n)));
    // 400 KB of records outgrew the first room several times, and room is left past the last record.
    const bytes = readFileSync(file());
    const { end } = readFrames(bytes);
    expect(bytes.length).toBeGreaterThan(opened);
    expect(bytes.length).toBeGreaterThan(end);
    expect(bytes.subarray(end).every((b) => b === 0)).toBe(true);
  });

  it('a record whose flush reached the disk only in part ends the log; the ones before it stand', () => {
    const bytes = readFileSync(file());
    const { end } = readFrames(bytes);
    const torn = Buffer.from(bytes).fill(0, end - 40, end);
    const copy = path.join(root, 'torn.log');
    writeFileSync(copy, torn);
    expect(readLog(copy).records).toEqual(Array.from({ length: 39 }, (_, n) => record(n)));
  });

  it('after a checkpoint the log holds only what came after it', async () => {
    await log.checkpoint();
    expect(readLog(file()).records).toEqual([]);
    await append(100);
    expect(readLog(file()).records).toEqual([record(100)]);
  });
});

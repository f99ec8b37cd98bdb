/**
 * What one CLI transition asks the disk (docs/performance.md "Flushes per
 * transition"): a `workboard start` flushes its commit-log record and that
 * log's folder entry, side by side, and nothing else: the run index is a
 * cache and is never flushed, and a new log's header rides on its first
 * record's flush. A read flushes nothing. Counted by strace on the real
 * binary; skipped, saying so, where strace is absent.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT } from '../support/cli-run.js';

const strace = spawnSync('strace', ['-V']).status === 0;
const base = mkdtempSync(path.join(os.tmpdir(), 'wb-cli-flushes-'));
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Flushes (fsync, fdatasync, syncfs, sync_file_range) the command's process and threads asked for. */
function flushesOf(board: string, args: string[]): number {
  const out = path.join(base, `strace-${Math.random().toString(16).slice(2)}`);
  execFileSync('strace', ['-f', '-qq', '-e', 'trace=fsync,fdatasync,syncfs,sync_file_range', '-o', out, process.execPath, BIN, '--board', board, '--as', 'mira@example.com', ...args], {
    stdio: 'ignore',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => /\b(fsync|fdatasync|syncfs|sync_file_range)\(/.test(l) && !/resumed>/.test(l)).length;
}

describe.skipIf(!strace)(strace ? 'flushes on the CLI path' : 'flushes on the CLI path (skipped: strace is not installed; apt-get install strace)', () => {
  it("a start takes two flushes (its record, its log's folder entry) and a read none", () => {
    const board = path.join(base, 'board');
    cpSync(path.join(ROOT, 'examples', 'board'), board, { recursive: true });
    const start = ['start', 'expense-approval', '--input', 'claimant=mira@example.com', '--input', 'amount=120', '--input', 'receiptUrl=https://receipts.example/r/1'];
    // The first command may recover and make the board's state; the ones after it are the steady path.
    flushesOf(board, start);
    for (let i = 0; i < 3; i++) expect(flushesOf(board, start)).toBe(2);
    expect(flushesOf(board, ['inbox'])).toBe(0);
    expect(flushesOf(board, ['runs'])).toBe(0);
  }, 120_000);
});

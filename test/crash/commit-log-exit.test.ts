/**
 * A CLI command that commits ends without flushing the file system: its log
 * stays behind as a dead process's log, holding its record (what recovery
 * replays after a power loss), until 16 logs wait, when the exiting command
 * flushes and removes them all. Real `workboard` processes on a real board.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFrames } from '../../src/board/log-files.js';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

beforeAll(ensureBuilt, 300_000);
afterAll(cleanupTmp);

const logsOf = async (root: string) => (await fs.readdir(path.join(root, '.work', 'log')).catch(() => [] as string[])).filter((n) => n.endsWith('.log')).sort();

describe('a CLI command and its commit log', () => {
  it('leaves its log with its record at exit, and the sixteenth log makes the exiting command flush and remove them all', async () => {
    const root = await tmpDir();
    const init = await workboard(['init'], { cwd: root });
    expect(init.code, init.stderr).toBe(0);
    // init itself commits once: its log is the first.
    const counts: number[] = [(await logsOf(root)).length];
    for (let i = 1; counts.length < 17; i++) {
      const r = await workboard(['person', 'add', `p${i}@example.com`], { cwd: root });
      expect(r.code, r.stderr).toBe(0);
      counts.push((await logsOf(root)).length);
      if (i === 1) {
        // The command's own log holds its commit: a header frame, then a record naming WORK.md.
        const mine = (await logsOf(root)).at(-1)!;
        const { values } = readFrames(await fs.readFile(path.join(root, '.work', 'log', mine)));
        expect(values.length).toBeGreaterThanOrEqual(2);
        expect(JSON.stringify(values.slice(1))).toContain('WORK.md');
      }
    }
    // One more log per command up to 15, then the sixteenth clears the folder.
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1]);
    const doctor = await workboard(['doctor'], { cwd: root });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const verify = await workboard(['audit', 'verify'], { cwd: root });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 180_000);
});

/**
 * Issue 41, item 1: timers happen once per board, not once per clone. Three
 * clones each run a real `serve --git-sync`; approvals on three runs fall due
 * a minute after they are opened. Before, every clone's coordinator wrote
 * each overdue mark under its own key, and each became N−1 superseded
 * branches after the syncs. Now one clone holds the board's clock
 * (audit/clock.json, a lease carried by the syncs): the test SIGKILLs the
 * first holder, another clone takes the clock once its lease runs out, runs
 * are opened with approvals due a minute later, and each run ends with
 * exactly one overdue mark and no branch set aside.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { addClone, boardFiles, submitAs, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';
import { TEST_CLOCK_AHEAD_VAR } from '../../src/daemon/clock.js';

const RUNS = 3;

async function readOr(file: string): Promise<string | null> {
  return fs.readFile(file, 'utf8').catch(() => null);
}

describe('the board clock: timers once per board', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('three clones with serve --git-sync: one holds the clock, it moves when that clone dies, and each overdue mark is written once', async () => {
    const { root, remote, a, b } = await twoClones();
    const c = await addClone(root, remote, 'c', 'c@example.com');
    const processFile = path.join(a, 'processes/hello/PROCESS.md');
    await fs.writeFile(processFile, (await fs.readFile(processFile, 'utf8')).replace('due: 2d', 'due: 1m'));
    expect((await wb(a, 'publish', 'processes/hello', '--role', 'approver=approvers')).code).toBe(0);
    for (const dir of [a, b, c]) expect((await wb(dir, 'sync')).code).toBe(0);

    const serves = new Map<string, { child: ChildProcess; out: string }>();
    const startServe = (dir: string) => {
      // Every serve's clock a minute ahead (the test-only seam, docs/architecture.md "Test-only seams"): approvals fall due as soon as a clone holding the clock sees them.
      const child = spawn(process.execPath, [BIN, 'serve', '--git-sync', '1', '--git-clock', '10'], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, [TEST_CLOCK_AHEAD_VAR]: '60000' },
      });
      const s = { child, out: '' };
      child.stdout.on('data', (d: Buffer) => (s.out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (s.out += d.toString()));
      serves.set(dir, s);
    };
    const stop = async (dir: string, signal: NodeJS.Signals) => {
      const s = serves.get(dir)!;
      if (s.child.exitCode !== null || s.child.signalCode !== null) return;
      const closed = new Promise((r) => s.child.once('close', r));
      s.child.kill(signal);
      await closed;
    };
    const holds = (dir: string) => (serves.get(dir)!.out.match(/holds the board's clock/g) ?? []).length;
    const runs: string[] = [];
    try {
      for (const dir of [a, b, c]) startServe(dir);
      const first = await until(() => [a, b, c].find((d) => holds(d) > 0), 180_000, 200);
      // The first holder dies; another clone must take the clock over once its lease runs out.
      await stop(first, 'SIGKILL');
      const rest = [a, b, c].filter((d) => d !== first);
      const second = await until(() => rest.find((d) => holds(d) > 0), 180_000, 200);
      // Then approvals open on a living clone (its serve running), due a minute later.
      for (let i = 0; i < RUNS; i++) {
        const started = await wb(second, '--as', 'writer-a', 'start', 'hello', '--input', `topic=Ferries ${i}`, '--input', 'words=60');
        expect(started.code, started.stderr).toBe(0);
        const run = started.stdout.trim();
        await submitAs(second, run, 'writer-a', 'Text.');
        runs.push(run);
      }
      const opened = Date.now();
      // Every living clone sees every overdue mark, written once.
      await until(
        async () => {
          for (const dir of rest) for (const run of runs) if (!((await readOr(path.join(dir, 'runs', run, 'audit.jsonl'))) ?? '').includes('"step.overdue"')) return undefined;
          return true;
        },
        240_000,
        500,
      );
      console.log(
        `clock: first held by ${path.basename(first)}, then by ${path.basename(second)}; overdue marks on every living clone ${Math.round((Date.now() - opened) / 1000)} s after the approvals opened (due after 60 s, with serve's clock 60 s ahead)`,
      );
      // A few more syncs, so anything written twice would have met.
      await new Promise((r) => setTimeout(r, 8000));
    } finally {
      for (const dir of [a, b, c]) await stop(dir, 'SIGTERM');
    }
    for (const dir of [a, b, c, a, b, c]) {
      const r = await wb(dir, 'sync');
      expect(r.code, r.stderr).toBe(0);
    }
    const files = await boardFiles(a);
    expect(await boardFiles(b)).toEqual(files);
    expect(await boardFiles(c)).toEqual(files);
    for (const run of runs) {
      const chain = files[`runs/${run}/audit.jsonl`]!.trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { actor: string; action: string });
      expect(
        chain.filter((e) => e.action === 'step.overdue'),
        `overdue marks of ${run}`,
      ).toHaveLength(1);
      expect(files[`runs/${run}/superseded.jsonl`], `branches set aside on ${run}`).toBeUndefined();
    }
    expect(JSON.parse(files['audit/clock.json']!)).toMatchObject({ holder: expect.stringMatching(/^[abc]@example\.com$/) });
    for (const dir of [a, b, c]) {
      const verify = await wb(dir, 'audit', 'verify', '--git');
      expect(verify.code, verify.stdout).toBe(0);
    }
  }, 600_000);
});

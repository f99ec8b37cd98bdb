/**
 * Issue 41, item 2: a person's act is never undone by another clone's timer.
 * Clone A cancels six runs whose approvals fall due in a minute; clone B,
 * which has not seen the cancels, runs a real `serve` (its clock set a minute
 * ahead, so the approvals are due to it at once) that marks each approval
 * overdue. Each side then holds one transition and one rev per run, so the old
 * rule left the choice to the hash of the last line (4 of 6 runs waiting again
 * in the report). After the syncs every run is cancelled on both
 * clones, and every overdue mark is kept beside it as superseded, not lost.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { boardFiles, submitAs, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';
import { TEST_CLOCK_AHEAD_VAR } from '../../src/daemon/clock.js';

const RUNS = 6;

describe("a person's act outranks another clone's timer in the merge", () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('six cancels on one clone against six overdue marks on another: all six stay cancelled everywhere', async () => {
    const { a, b } = await twoClones();
    // Approvals due a minute after the draft is submitted.
    const processFile = path.join(a, 'processes/hello/PROCESS.md');
    await fs.writeFile(processFile, (await fs.readFile(processFile, 'utf8')).replace('due: 2d', 'due: 1m'));
    expect((await wb(a, 'publish', 'processes/hello', '--role', 'approver=approvers')).code).toBe(0);
    const runs: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = await wb(a, '--as', 'writer-a', 'start', 'hello', '--input', `topic=Trains ${i}`, '--input', 'words=60');
      expect(started.code, started.stderr).toBe(0);
      const run = started.stdout.trim();
      await submitAs(a, run, 'writer-a', 'Text.');
      runs.push(run);
    }
    for (const dir of [a, b]) expect((await wb(dir, 'sync')).code).toBe(0);

    // B's coordinator keeps the clock of what it knows; A's operator cancels every run before the approvals fall due.
    // Its clock a minute ahead (the test-only seam, docs/architecture.md "Test-only seams"): the approvals are already due to it.
    const serve = spawn(process.execPath, [BIN, 'serve'], { cwd: b, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, [TEST_CLOCK_AHEAD_VAR]: '60000' } });
    let out = '';
    serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      for (const run of runs) {
        const r = await wb(a, '--as', 'ana@example.com', 'cancel', run, '--reason', 'Not needed after all.');
        expect(r.code, r.stderr).toBe(0);
      }
      const overdueOnB = async () => {
        let n = 0;
        for (const run of runs) if ((await fs.readFile(path.join(b, 'runs', run, 'audit.jsonl'), 'utf8')).includes('"step.overdue"')) n++;
        return n === RUNS ? n : undefined;
      };
      await until(overdueOnB, 150_000, 500);
    } finally {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('close', r));
    }
    for (const dir of [a, b, a]) {
      const r = await wb(dir, 'sync');
      expect(r.code, r.stderr).toBe(0);
    }
    expect(await boardFiles(a)).toEqual(await boardFiles(b));
    const files = await boardFiles(a);
    const waitingAgain = runs.filter((run) => !/^state: cancelled$/m.test(files[`runs/${run}/RUN.md`]!));
    expect(waitingAgain, 'runs a person cancelled that the merge made wait again').toEqual([]);
    for (const run of runs) {
      const aside = files[`runs/${run}/superseded.jsonl`]!.trim()
        .split('\n')
        .flatMap((l) => (JSON.parse(l) as { lines: { actor: string; action: string }[] }).lines);
      expect(aside.map((l) => [l.actor, l.action])).toEqual([['server', 'step.overdue']]);
    }
    for (const dir of [a, b]) {
      const verify = await wb(dir, 'audit', 'verify', '--git');
      expect(verify.code, verify.stdout).toBe(0);
    }
  }, 600_000);
});

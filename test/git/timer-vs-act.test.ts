/**
 * Issue 41: a timer the board's clock holder wrote, met by a person's act on
 * another clone that came before the timer's deadline (the case the
 * four-clone simulation, test/git/sync-simulation.test.ts, met twice). Clone
 * a's serve holds the timers (its clock set ahead, docs/architecture.md
 * "Test-only seams") and ends a run's `wait`; clone b's operator had
 * cancelled the run before the wait's deadline, not yet synced. After the
 * syncs the cancel is kept (an act outranks server lines, docs/git.md "The
 * merge rule"), the wait's end is set aside with the engine's reason, no line
 * is lost, both clones hold the same bytes, and the simulation's verdict
 * sorts the timer as moot, not lost.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { boardFiles, twoClones, wb } from '../support/git-clones.js';
import { chainLines, setAside, type ChainLine } from '../support/sim-board.js';
import { cli } from '../support/sim-team.js';
import { isTimer, timerFate } from '../support/sim-verdict.js';
import { until } from '../support/until.js';
import { TEST_CLOCK_AHEAD_VAR } from '../../src/daemon/clock.js';

const TIMED = `---
name: timed
description: A pause, then a go-ahead awaited.
inputs:
  topic: string
steps:
  - id: settle
    wait: 1m
    next: signal
  - id: signal
    wait_for: go-ahead
    timeout: 1h
    next: done
  - id: done
    finish: done
---
A run that waits.
`;

const TEAM = {
  setup: [
    ['person', 'add', 'ana@example.com', '--name', 'Ana Lind'],
    ['operator', 'add', 'ana@example.com'],
    ['agent', 'add', 'writer-a'],
  ],
  process: { name: 'timed', source: TIMED, roles: [] },
  start: ['writer-a', 'timed', '--input', 'topic=Night trains'],
  gitUsers: [
    ['a@example.com', 'Clone A'],
    ['b@example.com', 'Clone B'],
  ] as [[string, string], [string, string]],
};

describe('a timer met by an earlier act on another clone', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it("the cancel made first is kept; the holder's wait end is set aside with the engine's reason; the verdict calls it moot", async () => {
    const { a, b, run } = await twoClones(TEAM);
    expect((await cli(['sync'], b)).code).toBe(0);
    // b's operator cancels while the wait still runs (its deadline is a minute after the start).
    const cancelled = await wb(b, '--as', 'ana@example.com', 'cancel', run, '--reason', 'Not needed.');
    expect(cancelled.code, cancelled.stderr).toBe(0);
    // a's serve, its clock two minutes ahead, ends the wait: written under a's key, as the clock holder would.
    const serve = spawn(process.execPath, [BIN, 'serve'], { cwd: a, stdio: 'ignore', env: { ...process.env, [TEST_CLOCK_AHEAD_VAR]: '120000' } });
    const chainOf = async (dir: string) => chainLines((await boardFiles(dir))[`runs/${run}/audit.jsonl`] ?? null);
    try {
      await until(async () => ((await wbChain(a, run)).some(isTimer) ? true : undefined), 180_000, 250);
    } finally {
      const closed = new Promise((r) => serve.once('close', r));
      serve.kill('SIGTERM');
      await closed;
    }
    for (const dir of [a, b, a]) {
      // The sim's runner: a sync under a loaded machine may take longer than wb's 30 s.
      const r = await cli(['sync'], dir);
      expect(r.code, r.stderr).toBe(0);
    }
    const files = await boardFiles(a);
    expect(await boardFiles(b)).toEqual(files);
    const chain = await chainOf(a);
    const cancel = chain.find((l) => l.action === 'run.cancelled');
    expect(cancel?.actor, 'the cancel is kept').toBe('ana@example.com');
    expect(chain.filter(isTimer), 'no wait end in the kept chain').toEqual([]);
    const branches = setAside(files[`runs/${run}/superseded.jsonl`] ?? null) as { fork: { seq: number }; lines: ChainLine[]; outcomes?: { line: string; reason?: string }[] }[];
    expect(branches).toHaveLength(1);
    const branch = branches[0]!;
    expect(branch.lines.every((l) => l.actor === 'server')).toBe(true);
    const timer = branch.lines.find(isTimer)!;
    expect(timer.action).toBe('step.completed');
    expect(branch.outcomes?.find((o) => o.line === timer.hash)?.reason).toMatch(/run has ended/);
    const shared = chain.filter((l) => l.seq <= branch.fork.seq);
    const keptAfter = chain.filter((l) => l.seq > branch.fork.seq);
    // The cancel came before the wait's deadline, though after the line a's serve wrote (its clock ran ahead).
    expect(timerFate(timer, [...shared, ...branch.lines.slice(0, branch.lines.indexOf(timer))], keptAfter)).toBe('moot');
    for (const dir of [a, b]) {
      const v = await cli(['audit', 'verify', '--git'], dir);
      expect(v.code, v.stdout + v.stderr).toBe(0);
    }
  }, 600_000);
});

async function wbChain(dir: string, run: string): Promise<ChainLine[]> {
  const { promises: fs } = await import('node:fs');
  return chainLines(await fs.readFile(path.join(dir, 'runs', run, 'audit.jsonl'), 'utf8').catch(() => null));
}

/**
 * Crash suite, scenario 1: SIGKILL during start_run (issue 13, items 1 and 5;
 * the existing SIGKILL test in test/board/concurrency.test.ts only kills
 * commits of runs that already exist).
 *
 * Three kinds of real processes start runs with distinct requestIds and are
 * killed with SIGKILL at random moments:
 *   - coordinators (test/crash/crash-worker.mjs, the service from dist/), three
 *     at a time, each killed 0–50 ms after it is ready: 6 rounds (18 kills) in
 *     `npm test`, 20 (60 kills) under `npm run test:soak`;
 *   - stdio MCP servers (`workboard mcp --as reviewer`) with 12 start_run calls
 *     in flight, killed 0–50 ms after the calls were sent (5 kills; 8 in the soak);
 *   - CLI invocations (`workboard start`), killed at a random point of their
 *     measured lifetime (8 kills; 12 in the soak).
 * Then a first `workboard doctor` (a coordinator touching the board recovers
 * what dead writers left), and: `audit verify` exit 0, `doctor` exit 0; no run
 * folder without a RUN.md and an audit chain (none holding only audit.jsonl or
 * nothing); no `*.tmp-*` file anywhere, board or `.work/`; no lock file, break
 * guard or journal left; every acknowledged start exists, with its inputs and
 * its chain, and answers get_run. Each start killed in flight, retried with the
 * SAME requestId (half of them at once, on the board exactly as the dead
 * writers left it, before any recovery; the rest after), yields exactly one run; an acknowledged start repeated with
 * its requestId returns the same run and creates none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rounds } from '../support/soak.js';
import {
  AGENT,
  brief,
  built,
  cleanup,
  cli,
  freshBoard,
  healthProblems,
  leftovers,
  Mcp,
  recoverAndCheck,
  RELEASE_DATE,
  PROCESS,
  runFolders,
  runsByTag,
  said,
  sleep,
  spawnCli,
  spawnNode,
  startArgs,
  tmp,
  WORKER,
  type Health,
  type ToolResult,
} from './crash-support.js';

const WORKER_ROUNDS = rounds(6, 20);
const WORKERS_PER_ROUND = 3;
const MCP_ROUNDS = rounds(5, 8);
const MCP_CALLS = 12;
const CLI_KILLS = rounds(8, 12);

let root: string;
/** requestId → runId, for every start that answered ok. */
const acked = new Map<string, string>();
/** requestIds whose start was under way when its process was killed. */
const inFlight = new Set<string>();
/** Anything a start answered other than ok, or a process that did not die by our SIGKILL. */
const unexpected: string[] = [];
let kills = 0;
/** Killed starts retried with their requestId before any recovery ran, and what they answered. */
const earlyRetries = new Map<string, ToolResult>();
/** What the kills left before anyone recovered (to show they landed inside writes). */
let beforeRecovery: Awaited<ReturnType<typeof leftovers>>;
let health: { first: Awaited<ReturnType<typeof cli>> } & Health;

const rand = (lo: number, hi: number) => lo + Math.random() * (hi - lo);

async function workerRound(round: number): Promise<void> {
  await Promise.all(
    Array.from({ length: WORKERS_PER_ROUND }, async (_, w) => {
      const prefix = `w${round}x${w}`;
      const p = spawnNode([WORKER, 'start', root, AGENT, prefix, '400']);
      await new Promise<void>((resolve) => {
        const tick = () => (p.stdout().includes('ready\n') ? resolve() : undefined);
        p.child.stdout!.on('data', tick);
        void p.done.then(() => resolve());
      });
      await sleep(rand(0, 50));
      p.child.kill('SIGKILL');
      const r = await p.done;
      kills++;
      if (r.signal !== 'SIGKILL') unexpected.push(`worker ${prefix} was not killed by us: ${said(r)}`);
      if (r.stderr.trim()) unexpected.push(`worker ${prefix} wrote to stderr: ${r.stderr.slice(0, 500)}`);
      let open: string | null = null;
      for (const line of r.stdout.split('\n')) {
        const [kind, rid, rest] = line.split(' ');
        if (kind === 'begin') open = rid!;
        else if (kind === 'ack') {
          acked.set(rid!, rest!);
          open = null;
        } else if (kind === 'fail') {
          unexpected.push(`worker start ${rid} answered ${line.slice(line.indexOf(' ', 5) + 1)}`);
          open = null;
        }
      }
      if (open) inFlight.add(open);
    }),
  );
}

async function mcpRound(round: number): Promise<void> {
  const m = await Mcp.start(root);
  // One whole start first, so the kill lands in starts and not in the server warming up.
  const warm = await m.call('start_run', startArgs(`m${round}warm`));
  if (warm.ok) acked.set(`m${round}warm`, warm.data.run.id);
  else unexpected.push(`mcp start m${round}warm answered ${brief(warm)}`);
  const rids = Array.from({ length: MCP_CALLS }, (_, i) => `m${round}x${i}`);
  const calls = rids.map((rid) =>
    m.call('start_run', startArgs(rid), 30_000).then(
      (r) => {
        if (r.ok) acked.set(rid, r.data.run.id);
        else unexpected.push(`mcp start ${rid} answered ${brief(r)}`);
      },
      () => inFlight.add(rid), // killed before it answered
    ),
  );
  await sleep(rand(0, 50));
  m.kill();
  await m.exited;
  kills++;
  await Promise.all(calls);
}

async function cliKills(): Promise<void> {
  // How long a whole `workboard start` lives here, so the kills spread over its lifetime.
  const lifetimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const rid = `calib${i}`;
    const r = await cli(root, ['start', PROCESS, '--input', `version=${rid}`, '--input', `releaseDate=${RELEASE_DATE}`, '--request-id', rid], { as: AGENT });
    if (r.code !== 0 || !r.json?.ok) unexpected.push(`cli start ${rid}: ${said(r)}`);
    else acked.set(rid, r.json.data.run.id);
    lifetimes.push(r.ms);
  }
  const life = lifetimes.sort((a, b) => a - b)[1]!;
  for (let i = 0; i < CLI_KILLS; i++) {
    const rid = `c${i}`;
    const p = spawnCli(root, ['start', PROCESS, '--input', `version=${rid}`, '--input', `releaseDate=${RELEASE_DATE}`, '--request-id', rid], { as: AGENT });
    await sleep(rand(0.45, 1.05) * life);
    p.child.kill('SIGKILL');
    const r = await p.done;
    kills++;
    if (r.code === 0) {
      const j = JSON.parse(r.stdout);
      if (j.ok) acked.set(rid, j.data.run.id);
      else unexpected.push(`cli start ${rid} answered ${brief(j)}`);
    } else if (r.signal === 'SIGKILL') inFlight.add(rid);
    else unexpected.push(`cli start ${rid}: ${said(r)}`);
  }
}

beforeAll(async () => {
  await built();
  root = await freshBoard(await tmp('wb-crash-kill-'));
  for (let round = 0; round < WORKER_ROUNDS; round++) await workerRound(round);
  for (let round = 0; round < MCP_ROUNDS; round++) await mcpRound(round);
  await cliKills();
  beforeRecovery = await leftovers(root);
  // Half the killed starts are retried at once, on the board as the dead writers left it
  // (their locks, journals and temp files still there); the rest after recovery, below.
  const m = await Mcp.start(root);
  try {
    for (const [i, rid] of [...inFlight].entries()) if (i % 2 === 0) earlyRetries.set(rid, await m.call('start_run', startArgs(rid)));
  } finally {
    await m.close();
  }
  health = await recoverAndCheck(root);
}, 170_000);

afterAll(cleanup);

describe('SIGKILL during start_run', () => {
  it(`${WORKER_ROUNDS * WORKERS_PER_ROUND + MCP_ROUNDS + CLI_KILLS} kills landed inside starts, and every start that answered said ok`, () => {
    expect(unexpected).toEqual([]);
    expect(kills).toBe(WORKER_ROUNDS * WORKERS_PER_ROUND + MCP_ROUNDS + CLI_KILLS);
    // Starts enough to check beyond the 8 that always answer (each MCP server's warm-up, the CLI's timing calls):
    // 59–95 in quiet runs of npm test's counts, fewer when the machine is busy and more are killed in flight.
    expect(acked.size).toBeGreaterThan(20);
    expect(inFlight.size).toBeGreaterThan(WORKER_ROUNDS);
    // Killed holding a run's lock at least once, or the kills prove little.
    expect(beforeRecovery.locks.length + beforeRecovery.journals.length + beforeRecovery.temps.length).toBeGreaterThan(0);
  });

  it('after recovery: audit verify exits 0, doctor exits 0, and nothing is left behind (no partial run folder, temp file, lock, guard or journal)', () => {
    expect(health.first.code, `the first doctor (it recovers) crashed: ${said(health.first)}`).not.toBe(70);
    expect(healthProblems(health)).toEqual([]);
  });

  it('every acknowledged start exists: its folder is whole, its RUN.md has its inputs, its chain verifies, and get_run answers it', async () => {
    const folders = new Map((await runFolders(root)).map((f) => [f.id, f]));
    const missing: string[] = [];
    for (const [rid, runId] of acked) {
      const f = folders.get(runId);
      if (!f || f.run?.inputs?.version !== rid || !f.entries.includes('audit.jsonl') || !f.entries.includes('draft.md')) missing.push(`${rid} → ${runId}: ${f ? f.entries.join(',') : 'no folder'}`);
    }
    expect(missing).toEqual([]);
    const sample = [...acked.values()].sort(() => Math.random() - 0.5).slice(0, 6);
    for (const runId of sample) {
      const r = await cli(root, ['show', runId], { as: AGENT });
      expect(r.json?.ok, said(r)).toBe(true);
      expect(r.json?.data.run.id).toBe(runId);
    }
  });

  it('no requestId has two runs; each start killed in flight, retried with the same requestId (half before recovery, half after), yields exactly one run', async () => {
    const before = await runsByTag(root);
    expect([...before].filter(([, ids]) => ids.length > 1)).toEqual([]);
    const m = await Mcp.start(root);
    const wrong: string[] = [];
    for (const [rid, e] of earlyRetries) if (!e.ok) wrong.push(`${rid}: retried before recovery, it answered ${brief(e)}`);
    try {
      for (const rid of inFlight) {
        const r = await m.call('start_run', startArgs(rid));
        if (!r.ok) {
          wrong.push(`${rid}: retry answered ${brief(r)}`);
          continue;
        }
        const had = before.get(rid) ?? [];
        // Committed before the kill (or by the early retry): the retry must return that very run.
        if (had.length === 1 && had[0] !== r.data.run.id) wrong.push(`${rid}: on disk ${had[0]}, the retry answered ${r.data.run.id}`);
        const e = earlyRetries.get(rid);
        if (e?.ok && e.data.run.id !== r.data.run.id) wrong.push(`${rid}: retried before recovery it answered ${e.data.run.id}, after recovery ${r.data.run.id}`);
      }
    } finally {
      await m.close();
    }
    const after = await runsByTag(root);
    for (const rid of inFlight) {
      const ids = after.get(rid) ?? [];
      if (ids.length !== 1) wrong.push(`${rid}: ${ids.length} runs after the retry (${ids.join(', ')})`);
    }
    expect(wrong).toEqual([]);
    expect([...after].filter(([, ids]) => ids.length > 1)).toEqual([]);
  });

  it('an acknowledged start repeated with its requestId (CLI and MCP) returns the same run and creates none', async () => {
    const countBefore = (await runFolders(root)).length;
    const sample = [...acked].sort(() => Math.random() - 0.5).slice(0, 8);
    const m = await Mcp.start(root);
    try {
      for (const [i, [rid, runId]] of sample.entries()) {
        if (i % 2 === 0) {
          const r = await cli(root, ['start', PROCESS, '--input', `version=${rid}`, '--input', `releaseDate=${RELEASE_DATE}`, '--request-id', rid], { as: AGENT });
          expect(r.json?.ok, said(r)).toBe(true);
          expect(r.json?.data.run.id, rid).toBe(runId);
        } else {
          const r = await m.call('start_run', startArgs(rid));
          expect(r.ok, brief(r)).toBe(true);
          expect(r.data.run.id, rid).toBe(runId);
        }
      }
    } finally {
      await m.close();
    }
    expect((await runFolders(root)).length).toBe(countBefore);
  });

  it('after the retries: audit verify and doctor are still clean, nothing left behind', async () => {
    const h = await recoverAndCheck(root);
    expect(healthProblems(h)).toEqual([]);
  });
});

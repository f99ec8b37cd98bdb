/**
 * Crash suite, scenario 4: a concurrent requestId storm (issue 13, item 1).
 *
 * Eight processes of the same agent call the same tool with the SAME
 * requestId and the same arguments at once: five long-lived stdio MCP servers
 * (`workboard mcp --as reviewer`) and three CLI invocations (`workboard
 * start|claim --request-id`), the MCP calls sent when the CLI processes are
 * about to reach the board (their lifetime is measured as the trials go).
 * 6 trials of start_run, then 6 of claim on one step (40 of each under
 * `npm run test:soak`). Each trial: exactly one
 * run is created (counted on disk by its inputs), or exactly one claim is
 * recorded (one `step.claimed` line in the run's chain, one lease); all eight
 * get ok with the identical result (same runId, same token). Then `audit
 * verify` and `doctor` are clean and nothing is left behind.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT,
  brief,
  built,
  cleanup,
  freshBoard,
  healthProblems,
  Mcp,
  PROCESS,
  recoverAndCheck,
  RELEASE_DATE,
  runsByTag,
  said,
  sleep,
  spawnCli,
  startArgs,
  tmp,
  type Exit,
  type ToolResult,
} from './crash-support.js';
import { rounds } from '../support/soak.js';

/** Trials of each tool: every one is a fresh race of eight processes; the soak runs four times as many. */
const TRIALS = rounds(6, 40);
const SERVERS = 5;
const CLIS = 3;

let root: string;
let servers: Mcp[] = [];
/** Lifetimes of CLI invocations seen so far (ms), to aim the MCP calls at the moment they reach the board. */
const lifetimes: number[] = [];

const rand = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Eight calls at once: CLI processes spawned first, the MCP calls sent as the CLIs are about to call. */
async function storm(cliArgs: string[], tool: string, args: Record<string, unknown>): Promise<{ results: ToolResult[]; failures: string[] }> {
  const clis = Array.from({ length: CLIS }, () => spawnCli(root, cliArgs, { as: AGENT }));
  await sleep(rand(0.6, 0.97) * median(lifetimes));
  const viaMcp = await Promise.all(servers.map((s) => s.call(tool, args).catch((e: Error) => ({ ok: false, error: { code: 'transport', message: e.message } }))));
  const viaCli: Exit[] = await Promise.all(clis.map((c) => c.done));
  for (const r of viaCli) lifetimes.push(r.ms);
  const failures: string[] = [];
  const results: ToolResult[] = [...viaMcp];
  for (const r of viaCli) {
    try {
      results.push(JSON.parse(r.stdout) as ToolResult);
    } catch {
      failures.push(`a CLI call printed no result: ${said(r)}`);
    }
  }
  for (const [i, r] of results.entries()) if (!r.ok) failures.push(`${i < SERVERS ? `mcp ${i}` : `cli ${i - SERVERS}`} answered ${brief(r)}`);
  return { results, failures };
}

beforeAll(async () => {
  await built();
  root = await freshBoard(await tmp('wb-crash-storm-'));
  servers = await Promise.all(Array.from({ length: SERVERS }, () => Mcp.start(root)));
  // Warm every server (modules, schemas, caches) and measure a CLI invocation's lifetime under the same load.
  await Promise.all(servers.map((s, i) => s.call('start_run', startArgs(`warm-${i}`))));
  for (let i = 0; i < 2; i++) {
    const clis = Array.from({ length: CLIS }, (_, k) =>
      spawnCli(root, ['start', PROCESS, '--input', `version=calib-${i}-${k}`, '--input', `releaseDate=${RELEASE_DATE}`, '--request-id', `calib-${i}-${k}`], { as: AGENT }),
    );
    for (const c of clis) lifetimes.push((await c.done).ms);
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await cleanup();
});

describe('a concurrent requestId storm', () => {
  it(
    `start_run: ${SERVERS} stdio MCP servers and ${CLIS} CLI calls with one requestId, ${TRIALS} trials: exactly one run each time, and all eight get the same runId`,
    async () => {
      const wrong: string[] = [];
      for (let t = 0; t < TRIALS; t++) {
        const rid = `storm-start-${t}`;
        const { results, failures } = await storm(['start', PROCESS, '--input', `version=${rid}`, '--input', `releaseDate=${RELEASE_DATE}`, '--request-id', rid], 'start_run', startArgs(rid));
        for (const f of failures) wrong.push(`trial ${t}: ${f}`);
        const onDisk = (await runsByTag(root)).get(rid) ?? [];
        if (onDisk.length !== 1) wrong.push(`trial ${t}: ${onDisk.length} runs created (${onDisk.join(', ')})`);
        const ids = [...new Set(results.filter((r) => r.ok).map((r) => r.data.run.id as string))];
        if (ids.length > 1) wrong.push(`trial ${t}: the eight calls answered ${ids.length} different runIds`);
        const oks = results.filter((r) => r.ok);
        if (oks.some((r) => JSON.stringify(r.data) !== JSON.stringify(oks[0]!.data))) wrong.push(`trial ${t}: the answers are not identical`);
      }
      expect(wrong).toEqual([]);
    },
    60_000 + TRIALS * 20_000,
  );

  it(
    `claim on one step: ${SERVERS} stdio MCP servers and ${CLIS} CLI calls with one requestId, ${TRIALS} trials: exactly one claim recorded, and all eight get the same token`,
    async () => {
      const wrong: string[] = [];
      for (let t = 0; t < TRIALS; t++) {
        const started = await servers[t % SERVERS]!.call('start_run', startArgs(`claim-target-${t}`));
        expect(started.ok, brief(started)).toBe(true);
        const runId = started.data.run.id as string;
        const rid = `storm-claim-${t}`;
        const { results, failures } = await storm(['claim', runId, 'draft', '--request-id', rid], 'claim', { runId, stepId: 'draft', requestId: rid });
        for (const f of failures) wrong.push(`trial ${t}: ${f}`);
        const tokens = [...new Set(results.filter((r) => r.ok).map((r) => r.data.token as string))];
        if (tokens.length > 1) wrong.push(`trial ${t}: the eight calls answered ${tokens.length} different tokens`);
        const chain = (await fs.readFile(path.join(root, 'runs', runId, 'audit.jsonl'), 'utf8'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { action: string });
        const claimed = chain.filter((e) => e.action === 'step.claimed').length;
        if (claimed !== 1) wrong.push(`trial ${t}: ${claimed} step.claimed events in the chain`);
        const leases = await fs.readdir(path.join(root, '.work', 'leases', runId)).catch(() => []);
        if (leases.length !== 1) wrong.push(`trial ${t}: leases [${leases.join(', ')}]`);
      }
      expect(wrong).toEqual([]);
    },
    60_000 + TRIALS * 20_000,
  );

  it('afterwards: audit verify exits 0, doctor exits 0, no requestId has two runs, nothing left behind', async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
    expect([...(await runsByTag(root))].filter(([, ids]) => ids.length > 1)).toEqual([]);
    const h = await recoverAndCheck(root);
    expect(h.first.code, said(h.first)).not.toBe(70);
    expect(healthProblems(h)).toEqual([]);
  }, 180_000);
});

/**
 * Crash suite, scenario 2: a full disk (issue 13, items 4 and 5).
 *
 * As root, the board lives on a 4 MiB tmpfs mounted for this test, next to a
 * filler file that is grown or shrunk before every call so the disk has
 * 0–32 KiB free. Fifteen "lanes" each walk start_run → claim → submit: twelve
 * through one long-lived stdio MCP server, three through the CLI (start and
 * claim; `workboard submit` takes no requestId, so their submit goes through
 * MCP). A lane whose call fails calls again with the same requestId, as the
 * contract says; reads (get_run, list_runs, `workboard show`) go in between.
 *
 * Every failing call must answer `retry` (MCP, and the CLI's --json result)
 * naming the full disk, and the CLI must exit with a code that is neither 0
 * nor 70 (nor 1, "refused or invalid": a full disk is neither), saying the
 * disk is full; no call may hang; no read may serve a state without an
 * acknowledged write. Then the space is freed and a first `doctor` runs; the
 * board must then be exactly as if each failed call never happened, or as if
 * it fully succeeded: `audit verify` and `doctor` clean, no run folder that is
 * empty or not whole, no journal pending, no lock file or `.lock.break` guard,
 * no temp file; a failed start whose run is on disk must have left its replay
 * record (a retry with its requestId returns that run). Finally every lane
 * completes with its own requestIds, one run per lane, and the board is clean.
 *
 * Not root (or no tmpfs can be mounted): skipped, with the reason in the test's name.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT,
  brief,
  built,
  cleanup,
  cli,
  DISK_FULL_EXIT,
  EXIT,
  freshBoard,
  healthProblems,
  Mcp,
  PROCESS,
  recoverAndCheck,
  RELEASE_DATE,
  runsByTag,
  said,
  saidShort,
  startArgs,
  submitArgs,
  tmp,
  tmpfsProbe,
  unmount,
  type CliResult,
  type Health,
  type ToolResult,
} from './crash-support.js';

const CAN = tmpfsProbe();

const MCP_LANES = 12;
const CLI_LANES = 3;
const ROUNDS = 8;
const MAX_FREE = 32 * 1024;
const CALL_TIMEOUT_MS = 20_000;
/** What a message about a full disk says. */
const DISK_FULL = /disk.{0,20}full|full disk|no space left|ENOSPC/i;

type Stage = 'start' | 'claim' | 'submit' | 'done';
interface Lane {
  tag: string;
  via: 'mcp' | 'cli';
  stage: Stage;
  runId?: string;
  token?: string;
  /** Calls of this lane that failed on the full disk, by stage. */
  failed: Partial<Record<Stage, number>>;
}

let mnt: string;
let mounted = false;
let root: string;
let filler: string;
let mcp: Mcp;
const lanes: Lane[] = [];
/** Answers that break the contract (a wrong code or exit code, a hang, a lost acknowledged write). */
const violations: string[] = [];
let calls = 0;
let failures = 0;
let afterFree: { first: CliResult } & Health;
/** Failed starts whose run was on disk once the space came back, and what a retry with their requestId answered. */
const committedFailedStarts: { tag: string; onDisk: string[]; retried: ToolResult | null }[] = [];

const rand = (lo: number, hi: number) => Math.floor(lo + Math.random() * (hi - lo));

/** Grow the filler until the disk is full, then give back `target` bytes. */
async function setFree(target: number): Promise<void> {
  const fh = await fs.open(filler, 'a');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) {
      try {
        const { bytesWritten } = await fh.write(chunk);
        if (bytesWritten < chunk.length) break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw e;
      }
    }
  } finally {
    await fh.close();
  }
  const { size } = await fs.stat(filler);
  await fs.truncate(filler, Math.max(0, size - target));
}

async function freeBytes(): Promise<number> {
  const s = await fs.statfs(mnt);
  return s.bavail * s.bsize;
}

function mcpArgs(l: Lane, stage: Stage): [string, Record<string, unknown>] {
  if (stage === 'start') return ['start_run', startArgs(l.tag, `${l.tag}-start`)];
  if (stage === 'claim') return ['claim', { runId: l.runId, stepId: 'draft', requestId: `${l.tag}-claim` }];
  return ['submit', submitArgs(l.token!, `${l.tag}-submit`)];
}

function cliArgs(l: Lane, stage: Stage): string[] {
  if (stage === 'start') return ['start', PROCESS, '--input', `version=${l.tag}`, '--input', `releaseDate=${RELEASE_DATE}`, '--request-id', `${l.tag}-start`];
  return ['claim', l.runId!, 'draft', '--request-id', `${l.tag}-claim`];
}

async function mcpCall(tool: string, args: Record<string, unknown>): Promise<ToolResult | null> {
  try {
    return await mcp.call(tool, args, CALL_TIMEOUT_MS);
  } catch (e) {
    violations.push(`mcp ${tool}: ${(e as Error).message.slice(0, 300)}`);
    if (mcp.child.exitCode !== null || mcp.child.signalCode !== null) mcp = await Mcp.start(root); // it died: go on with a new one
    return null;
  }
}

/** A failed MCP answer on a full disk: `retry`, naming the full disk. */
function checkMcpFailure(what: string, r: ToolResult): void {
  failures++;
  if (r.error?.code !== 'retry' || !DISK_FULL.test(`${r.error.message} ${(r.error.issues ?? []).join(' ')}`)) violations.push(`mcp ${what} on a full disk answered ${brief(r)}`);
}

/** A failed CLI call on a full disk: the documented exit code, a disk-full message, and `retry` in its --json result. */
function checkCliFailure(what: string, r: CliResult, json: boolean): void {
  failures++;
  const text = `${r.stdout}\n${r.stderr}`;
  const codeOk = DISK_FULL_EXIT !== null ? r.code === DISK_FULL_EXIT : r.code !== null && ![EXIT.ok, EXIT.refused, EXIT.internal].includes(r.code as 0 | 1 | 70);
  if (!codeOk || !DISK_FULL.test(text) || (json && r.json?.error?.code !== 'retry')) violations.push(`cli ${what} on a full disk: ${saidShort(r)}`);
}

/** The next call of a lane; advances it on ok. */
async function step(l: Lane): Promise<void> {
  await setFree(rand(0, MAX_FREE + 1));
  calls++;
  const stage = l.stage;
  if (l.via === 'cli' && stage !== 'submit') {
    const r = await cli(root, cliArgs(l, stage), { as: AGENT, timeoutMs: CALL_TIMEOUT_MS });
    if (r.code === 0 && r.json?.ok) return advance(l, stage, r.json);
    l.failed[stage] = (l.failed[stage] ?? 0) + 1;
    return checkCliFailure(`${stage} (${l.tag})`, r, true);
  }
  const [tool, args] = mcpArgs(l, stage);
  const r = await mcpCall(tool, args);
  if (!r) return;
  if (r.ok) return advance(l, stage, r);
  l.failed[stage] = (l.failed[stage] ?? 0) + 1;
  checkMcpFailure(`${tool} (${l.tag})`, r);
}

function advance(l: Lane, stage: Stage, r: ToolResult): void {
  if (stage === 'start') {
    if (l.runId && l.runId !== r.data.run.id) violations.push(`${l.tag}: start answered ${r.data.run.id}, earlier ${l.runId}`);
    l.runId = r.data.run.id;
    l.stage = 'claim';
  } else if (stage === 'claim') {
    l.token = r.data.token;
    l.stage = 'submit';
  } else l.stage = 'done';
}

/** What a lane's acknowledged calls require of its run as read. */
function checkView(l: Lane, view: ToolResult, label: string): void {
  if (!view.ok) return;
  const draft = (view.data.steps as { id: string; state: string | null }[]).find((s) => s.id === 'draft')?.state;
  const want = l.stage === 'done' ? ['done'] : l.stage === 'submit' ? ['claimed', 'done'] : ['ready', 'claimed', 'done'];
  if (!want.includes(String(draft))) violations.push(`${label} ${l.tag}: draft is ${draft} although the lane's acknowledged calls need ${want.join('|')}`);
}

/** Reads between the writes: they may fail (retry, disk full) but never serve a state without an acknowledged write. */
async function reads(round: number): Promise<void> {
  const known = lanes.filter((l) => l.runId);
  for (const l of known.sort(() => Math.random() - 0.5).slice(0, 3)) {
    await setFree(rand(0, MAX_FREE + 1));
    calls++;
    const r = await mcpCall('get_run', { runId: l.runId });
    if (!r) continue;
    if (!r.ok) checkMcpFailure(`get_run (${l.tag})`, r);
    else checkView(l, r, 'mcp get_run');
  }
  await setFree(rand(0, MAX_FREE + 1));
  calls++;
  const list = await mcpCall('list_runs', { limit: 100 });
  if (list && !list.ok) checkMcpFailure('list_runs', list);
  const l = known[round % Math.max(1, known.length)];
  if (l) {
    await setFree(rand(0, MAX_FREE + 1));
    calls++;
    const r = await cli(root, ['show', l.runId!], { as: AGENT, timeoutMs: CALL_TIMEOUT_MS });
    if (r.code === 0 && r.json?.ok) checkView(l, r.json, 'cli show');
    else checkCliFailure(`show (${l.tag})`, r, true);
    await setFree(rand(0, MAX_FREE + 1));
    calls++;
    const h = await cli(root, ['show', l.runId!], { as: AGENT, json: false, timeoutMs: CALL_TIMEOUT_MS });
    if (h.code !== 0) checkCliFailure(`show, no --json (${l.tag})`, h, false);
  }
}

describe.skipIf(!CAN.ok)('a full disk: the board on a 4 MiB tmpfs with 0–32 KiB free before every call', () => {
  beforeAll(async () => {
    await built();
    const base = await tmp('wb-crash-disk-');
    mnt = path.join(base, 'mnt');
    await fs.mkdir(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]);
    mounted = true;
    root = await freshBoard(mnt);
    filler = path.join(mnt, 'filler');
    mcp = await Mcp.start(root);
    // Warm the server while there is room (modules, schemas, the run index).
    const warm = await mcp.call('start_run', startArgs('warm'));
    expect(warm.ok, brief(warm)).toBe(true);
    for (let i = 0; i < MCP_LANES + CLI_LANES; i++) lanes.push({ tag: `lane${i}`, via: i < MCP_LANES ? 'mcp' : 'cli', stage: 'start', failed: {} });

    for (let round = 0; round < ROUNDS; round++) {
      for (const l of lanes) if (l.stage !== 'done') await step(l);
      await reads(round);
    }
    expect(await freeBytes()).toBeLessThanOrEqual(MAX_FREE + 64 * 1024);

    // Space comes back; the first coordinator to touch the board recovers.
    await fs.rm(filler);
    afterFree = await recoverAndCheck(root);
    // A failed start whose run is on disk passed its commit point: it must have left its replay record.
    const onDisk = await runsByTag(root);
    for (const l of lanes) {
      if (!l.failed.start || l.runId) continue;
      const ids = onDisk.get(l.tag) ?? [];
      if (ids.length === 0) continue;
      const retried = await mcp.call(...mcpArgs({ ...l, via: 'mcp' }, 'start'));
      committedFailedStarts.push({ tag: l.tag, onDisk: ids, retried });
    }
  }, 150_000);

  afterAll(async () => {
    await mcp?.close();
    if (mounted) unmount(mnt);
    await cleanup();
  });

  it('reports what the full disk did (calls, failures by stage, where each lane got to)', () => {
    const failedBy = lanes.reduce<Record<string, number>>((acc, l) => {
      for (const [k, v] of Object.entries(l.failed)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {});
    process.stdout.write(
      `full disk: ${calls} calls, ${failures} failed (writes by stage ${JSON.stringify(failedBy)}); ${committedFailedStarts.length} failed starts had their run on disk; lanes at ${JSON.stringify(lanes.map((l) => l.stage))}\n`,
    );
    // What it reports holds together: the full disk failed writes (not only reads), within the calls made.
    const writeFailures = Object.values(failedBy).reduce((a, b) => a + b, 0);
    expect(writeFailures).toBeGreaterThan(0);
    expect(writeFailures).toBeLessThanOrEqual(failures);
    expect(failures).toBeLessThanOrEqual(calls);
    expect(committedFailedStarts.length).toBeLessThanOrEqual(failedBy.start ?? 0);
    for (const c of committedFailedStarts) expect(c.onDisk.length, c.tag).toBeGreaterThan(0);
    // Each lane got where its acknowledged calls took it: a run once past start, failures only at stages it reached.
    const order: Stage[] = ['start', 'claim', 'submit', 'done'];
    for (const l of lanes) {
      expect(l.runId !== undefined, `${l.tag} at ${l.stage}`).toBe(l.stage !== 'start');
      expect(l.token !== undefined, `${l.tag} at ${l.stage}`).toBe(order.indexOf(l.stage) >= order.indexOf('submit'));
      for (const failedAt of Object.keys(l.failed) as Stage[]) expect(order.indexOf(failedAt), `${l.tag} failed at ${failedAt}, now at ${l.stage}`).toBeLessThanOrEqual(order.indexOf(l.stage));
    }
  });

  it('every call on the full disk answered ok, or retry naming the full disk (the CLI: a disk-full exit code, neither 0, 1 nor 70, and a message); none hung; no read lost an acknowledged write', () => {
    expect(violations).toEqual([]);
    // Enough of both, or the disk was not full enough (or too full) to show anything.
    expect(failures).toBeGreaterThan(calls / 10);
    expect(lanes.filter((l) => l.stage !== 'start').length).toBeGreaterThan(0);
  });

  it('once space is back and a coordinator ran: audit verify exits 0, doctor exits 0; no empty or partial run folder, no pending journal, no lock file or .lock.break guard, no temp file', () => {
    expect(afterFree.first.code, said(afterFree.first)).not.toBe(70);
    expect(healthProblems(afterFree)).toEqual([]);
  });

  it('a failed start whose run is on disk counts as having fully succeeded: one run, and a retry with its requestId returns it', () => {
    const wrong = committedFailedStarts
      .filter((c) => c.onDisk.length !== 1 || !c.retried?.ok || c.retried.data.run.id !== c.onDisk[0])
      .map((c) => `${c.tag}: on disk ${c.onDisk.join(', ')}; the retry answered ${c.retried?.ok ? c.retried.data.run.id : brief(c.retried)}`);
    expect(wrong).toEqual([]);
  });

  it('every lane completes with its own requestIds once there is room: exactly one run per lane, its draft done, every acknowledged call kept', async () => {
    const wrong: string[] = [];
    for (let attempt = 0; attempt < 4 && lanes.some((l) => l.stage !== 'done'); attempt++) {
      for (const l of lanes) {
        while (l.stage !== 'done') {
          const stage = l.stage;
          if (l.via === 'cli' && stage !== 'submit') {
            const r = await cli(root, cliArgs(l, stage), { as: AGENT });
            if (r.code === 0 && r.json?.ok) advance(l, stage, r.json);
            else {
              wrong.push(`${l.tag} ${stage} with space free: ${said(r)}`);
              break;
            }
          } else {
            const r = await mcp.call(...mcpArgs(l, stage));
            if (r.ok) advance(l, stage, r);
            else {
              wrong.push(`${l.tag} ${stage} with space free: ${brief(r)}`);
              break;
            }
          }
        }
      }
    }
    const byTag = await runsByTag(root);
    for (const l of lanes) {
      const ids = byTag.get(l.tag) ?? [];
      if (ids.length !== 1 || ids[0] !== l.runId) wrong.push(`${l.tag}: runs on disk [${ids.join(', ')}], acknowledged ${l.runId}`);
      const v = await mcp.call('get_run', { runId: l.runId });
      const draft = v.ok ? (v.data.steps as { id: string; state: string }[]).find((s) => s.id === 'draft')?.state : brief(v);
      if (draft !== 'done') wrong.push(`${l.tag}: draft is ${draft}`);
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  it('at the end: audit verify and doctor clean, nothing left behind', async () => {
    await mcp.close();
    const h = await recoverAndCheck(root);
    expect(healthProblems(h)).toEqual([]);
  }, 60_000);
});

if (!CAN.ok) it.skip(`a full disk: SKIPPED because ${CAN.reason} (the scenario mounts a 4 MiB tmpfs, which needs root)`, () => undefined);

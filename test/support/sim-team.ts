/**
 * The team the sync simulation (test/git/sync-simulation.test.ts) works
 * with: a bare remote and clones of one board repository, each set up as a
 * team member would (git-setup, its own git identity), each with its own
 * long-lived processes: a `serve --git-sync` (the board's clock, timers,
 * syncs on a timer) and one stdio MCP server per agent (`workboard mcp`), so
 * an agent's call costs a JSON-RPC line, not a CLI start. People act through
 * the CLI. Every process may be SIGKILLed at a random moment and started
 * again.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { Mcp } from '../crash/crash-support.js';
import { BIN, workboardBatch, type CliResult } from './cli-run.js';
import { chainLines, git, GIT_ENV, readOr } from './sim-board.js';
import { TEST_CLOCK_AHEAD_VAR } from '../../src/daemon/clock.js';

export const PEOPLE = ['ana@example.com', 'bob@example.com'];
export const OPERATOR = 'ana@example.com';
export const AGENTS = Array.from({ length: 8 }, (_, i) => `bot${i + 1}`);

/**
 * A process with every kind of timer: a `wait`, a `wait_for` with a timeout
 * (an event ends it first, or the timeout does), and an approval with a `due`.
 */
const TIMED = `---
name: timed
description: A pause, then a go-ahead awaited with a timeout, then an approval due soon.
inputs:
  topic: string
steps:
  - id: settle
    wait: 1m
    next: signal
  - id: signal
    wait_for: go-ahead
    timeout: 1m
    on_timeout: review
    next: review
  - id: review
    person: approver
    approve: Approve the topic once it has settled.
    due: 1m
    on_reject: signal
    next: done
  - id: done
    finish: done
---
A run that waits, listens and is approved: its timers fall due as the simulation goes.
`;

/** How the serves run: sync interval and clock lease (seconds), and how far their clock runs ahead (ms). */
export const SERVE = { sync: 5, clock: 30, aheadMs: 50_000 };

export interface Clone {
  i: number;
  name: string;
  dir: string;
  agents: string[];
  person: string;
  /** The fingerprint of this clone's signing key: the `signer` of every line it writes. */
  signer: string;
  serve: ChildProcess | null;
  /** The serve's output so far, for a failure message. */
  serveLog: string;
  mcp: Map<string, Mcp>;
}

interface Call {
  round: number;
  clone: string;
  args: string[];
  code: number;
  stderr: string;
  ms: number;
}

/** `workboard <args>` in `cwd`, SIGKILLed after `killAfterMs` unless it ended first (code -1 when killed or out of time). */
export function cli(args: string[], cwd: string, killAfterMs = 300_000): Promise<CliResult> {
  const env: Record<string, string> = { NO_COLOR: '1', ...GIT_ENV };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKBOARD_')) env[k] = v;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env, timeout: killAfterMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const c = (err as { code?: unknown } | null)?.code;
      resolve({ code: err ? (typeof c === 'number' ? c : -1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Every call of a test (CLI and MCP), for the failure message and the time each kind took. */
export class Trace {
  calls: Call[] = [];
  round = 0;
  constructor(readonly seed: number) {}
  async cli(c: { name: string; dir: string }, args: string[], killAfterMs?: number): Promise<CliResult> {
    const t0 = performance.now();
    const r = await cli(args, c.dir, killAfterMs);
    this.note(c.name, args, r.code, r.stderr, performance.now() - t0);
    return r;
  }
  note(clone: string, args: string[], code: number, stderr: string, ms: number): void {
    this.calls.push({ round: this.round, clone, args, code, stderr: stderr.trim().split('\n').slice(-2).join(' | '), ms });
  }
  tail(n = 40): string {
    return this.calls
      .slice(-n)
      .map((c) => `  round ${c.round} ${c.clone}: ${c.args.map((a) => (a.length > 40 ? `${a.slice(0, 37)}...` : a)).join(' ')} -> ${c.code}${c.code !== 0 ? ` (${c.stderr})` : ''}`)
      .join('\n');
  }
  /** Where the time went: calls and seconds by kind (the first word, `sync`, `mcp claim`, …). */
  spent(): string {
    const by = new Map<string, { n: number; ms: number }>();
    for (const c of this.calls) {
      const k = c.args[0] === 'mcp' ? `mcp ${c.args[1]}` : c.args[0]!;
      const e = by.get(k) ?? by.set(k, { n: 0, ms: 0 }).get(k)!;
      e.n++;
      e.ms += c.ms;
    }
    return [...by]
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(([k, v]) => `${k} ${v.n}× ${(v.ms / 1000).toFixed(1)} s`)
      .join(', ');
  }
  where(): string {
    return `seed ${this.seed}, round ${this.round} (replay: WB_SIM_SEED=${this.seed} npx vitest run test/git/sync-simulation.test.ts)`;
  }
}

/**
 * A board repository pushed to a new bare remote: WORK.md with the agents and
 * people, `hello` (an agent drafts, a group of people approves) and `timed`
 * published; then clones of it, each set up as a team member would. Each
 * clone writes one line first (a person added) so its signing key is known.
 */
export async function team(trace: Trace, root: string, cloneCount: number): Promise<{ remote: string; clones: Clone[] }> {
  const remote = path.join(root, 'remote.git');
  await git(root, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed = { name: 'seed', dir: path.join(root, 'seed') };
  const ok = async (c: { name: string; dir: string }, args: string[]) => {
    const r = await trace.cli(c, args);
    expect(r.code, `workboard ${args.join(' ')} in ${c.name}: ${r.stderr}`).toBe(0);
    return r;
  };
  // The board's set-up is a fixture: each batch runs in one process (workboardBatch). From the first sync on, every call is traced.
  const setUp = (cwd: string, commands: string[][]) =>
    workboardBatch(
      commands.map((args) => ({ cwd, args })),
      GIT_ENV,
    );
  await setUp(root, [['init', 'seed', '--name', 'team', '--git']]);
  await git(seed.dir, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  await git(seed.dir, 'config', 'user.email', 'seed@example.com');
  await git(seed.dir, 'config', 'user.name', 'Seed');
  await fs.mkdir(path.join(seed.dir, 'processes', 'timed'), { recursive: true });
  await fs.writeFile(path.join(seed.dir, 'processes', 'timed', 'PROCESS.md'), TIMED);
  await setUp(seed.dir, [
    ...PEOPLE.map((p) => ['person', 'add', p]),
    ['group', 'add', 'approvers', ...PEOPLE],
    ['operator', 'add', OPERATOR],
    ...AGENTS.map((a) => ['agent', 'add', a]),
    ['new', 'hello'],
    ['publish', 'processes/hello', '--role', 'approver=approvers'],
    ['publish', 'processes/timed', '--role', 'approver=approvers'],
  ]);
  await git(seed.dir, 'remote', 'add', 'origin', remote);
  await ok(seed, ['sync', '--as', PEOPLE[0]!]);
  const clones: Clone[] = [];
  for (let i = 0; i < cloneCount; i++) {
    const name = String.fromCharCode(65 + i);
    const dir = path.join(root, name);
    await git(root, 'clone', '-q', remote, name);
    await git(dir, 'config', 'user.email', `clone-${name.toLowerCase()}@example.com`);
    await git(dir, 'config', 'user.name', `Clone ${name}`);
    const c: Clone = { i, name, dir, agents: [AGENTS[(2 * i) % 8]!, AGENTS[(2 * i + 1) % 8]!], person: PEOPLE[i % 2]!, signer: '', serve: null, serveLog: '', mcp: new Map() };
    await setUp(dir, [['git-setup'], ['person', 'add', `member-${name.toLowerCase()}@example.com`, '--as', OPERATOR]]);
    c.signer = chainLines(await readOr(path.join(dir, 'audit', 'board.jsonl'))).pop()?.signer ?? '';
    expect(c.signer, `the signer of ${name}'s first line`).toMatch(/^[0-9a-f]+$/);
    clones.push(c);
  }
  for (const c of clones) await ok(c, ['sync', '--as', c.person]);
  return { remote, clones };
}

/** Start the clone's `serve --git-sync`, its clock set ahead so timers fall due within the rounds (docs/architecture.md "Test-only seams"). */
export function startServe(c: Clone): void {
  const env: Record<string, string> = { NO_COLOR: '1', ...GIT_ENV, [TEST_CLOCK_AHEAD_VAR]: String(SERVE.aheadMs) };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKBOARD_')) env[k] ??= v;
  const child = spawn(process.execPath, [BIN, 'serve', '--git-sync', String(SERVE.sync), '--git-clock', String(SERVE.clock), '--log-level', 'warn'], {
    cwd: c.dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  const keep = (d: Buffer) => (c.serveLog = (c.serveLog + d.toString()).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  c.serve = child;
}

/** Stop the clone's serve with `signal` and wait until it is gone. */
export async function stopServe(c: Clone, signal: NodeJS.Signals): Promise<void> {
  const child = c.serve;
  c.serve = null;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((r) => child.once('close', r));
  child.kill(signal);
  await closed;
}

/**
 * The git processes working in `dir`, from /proc. A command SIGKILLed while
 * it fetched or pushed leaves that git running (it leads a process group of
 * its own) until it ends or the next sync stops it.
 */
export async function gitWorkingIn(dir: string): Promise<number[]> {
  const pids = (await fs.readdir('/proc')).filter((n) => /^\d+$/.test(n));
  const found: number[] = [];
  for (const pid of pids) {
    const [cwd, comm] = await Promise.all([fs.readlink(`/proc/${pid}/cwd`).catch(() => ''), fs.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')]);
    if (cwd === dir && comm.startsWith('git')) found.push(Number(pid));
  }
  return found;
}

/** The agent's stdio MCP server on its clone, started when first needed or after it was killed. */
export async function mcpOf(c: Clone, agent: string): Promise<Mcp> {
  const m = c.mcp.get(agent);
  if (m && m.child.exitCode === null && m.child.signalCode === null) return m;
  const fresh = await Mcp.start(c.dir, agent);
  c.mcp.set(agent, fresh);
  return fresh;
}

/** Every long-lived process of every clone, ended. */
export async function stopAll(clones: Clone[]): Promise<void> {
  for (const c of clones) {
    await stopServe(c, 'SIGTERM');
    for (const m of c.mcp.values()) await m.close().catch(() => undefined);
    c.mcp.clear();
  }
}

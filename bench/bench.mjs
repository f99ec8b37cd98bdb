// npm run bench [-- --quick] [--only=transitions,concurrency,scale,backlog,reminders,load,metrics,soak,sync,maps,insights,flow,peers] [--peers] [--scale-dir=<dir>] [--soak-seconds=<s>] [--flow-runs=<n>]:
// transition latency through the service on a real board, against the floor of the bare file
// operations each transition cannot avoid on this disk, measured in the same run;
// then concurrency (bench/concurrency.mjs: several agent processes on one board),
// scale (bench/scale.mjs: boards of 1k–50k runs), backlog (bench/backlog.mjs: get_work on 2k and 10k open runs), reminders (bench/reminders.mjs: serve's daemon pass with a reminder ladder on 2k and 10k waiting runs) and load (bench/load.mjs: 8 HTTP
// clients against a real `workboard serve --http` for 60 s), metrics (the same load with serve's metrics on and off,
// 3 alternated runs of 30 s each, 1 of 10 s with --quick: serve's CPU per transition), soak (the same load for
// --soak-seconds, 300 by default and 45 with --quick, with serve's RSS at start, 1 min, 5 min
// and peak; --soak=<minutes> says the same in minutes), sync (bench/sync.mjs: `workboard sync`
// between two clones of a 10k-run board through a bare remote on local disk), maps (bench/maps.mjs:
// drawing the largest process's map), insights (bench/insights.mjs: `workboard stats` and the Insights
// page on a 10k-run board, cold and warm), flow (bench/flow.mjs: get_work, My work and runs --view on a
// 10k-run board where a third of the runs are blocked, against a board without flow-1); with --peers also peers
// (bench/peers.mjs: the same operations in Backlog.md, installed from npm). Ends with
// the goals table (bench/goals.mjs). Prints markdown tables and writes the same
// figures to bench/results/<date>.json. Not a test.
import { promises as fs, constants, mkdtempSync, cpSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir, cpus, totalmem, loadavg } from 'node:os';
import { fork, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Board } from '../dist/board/board.js';
import { fsyncCount } from '../dist/board/fsutil.js';
import { Service } from '../dist/service/service.js';
import { resolveActor } from '../dist/service/identity.js';
import { concurrencySection } from './concurrency.mjs';
import { scaleSection } from './scale.mjs';
import { backlogSection } from './backlog.mjs';
import { remindersSection } from './reminders.mjs';
import { loadSection, metricsSection, soakSection } from './load.mjs';
import { syncSection } from './sync.mjs';
import { mapsSection } from './maps.mjs';
import { insightsSection } from './insights.mjs';
import { peersSection } from './peers.mjs';
import { flowSection } from './flow.mjs';
import { goalsTable } from './goals.mjs';
import { median, pct } from './stats.mjs';
import { REVIEWED } from './expense-acts.mjs';

const quick = process.argv.includes('--quick');
const SECTIONS = ['transitions', 'concurrency', 'scale', 'backlog', 'reminders', 'load', 'metrics', 'soak', 'sync', 'maps', 'insights', 'flow', 'peers'];
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
// peers installs a package from npm, so it runs only when asked for.
const only = new Set(onlyArg ? onlyArg.slice('--only='.length).split(',') : SECTIONS.filter((s) => s !== 'peers'));
if (process.argv.includes('--peers')) only.add('peers');
for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`--only: no section ${s} (${SECTIONS.join(', ')})`);
// Where the scale section grows its board (default: the OS temp folder).
const scaleDir = process.argv.find((a) => a.startsWith('--scale-dir='))?.slice('--scale-dir='.length) ?? tmpdir();
// How long the soak section runs: --soak-seconds=<s>, or --soak=<minutes>; 300 s (45 s with --quick).
const soakArg = process.argv.find((a) => a.startsWith('--soak-seconds=') || a.startsWith('--soak='));
const soakSeconds = soakArg === undefined ? (quick ? 45 : 300) : soakArg.startsWith('--soak=') ? Number(soakArg.slice('--soak='.length)) * 60 : Number(soakArg.slice('--soak-seconds='.length));
if (!(Number.isInteger(soakSeconds) && soakSeconds >= 10)) throw new Error(`${soakArg}: expected a whole number of seconds (or minutes), at least 10 s`);
// How many runs the flow section's boards hold: --flow-runs=<n> (10k by default, 1k with --quick).
const flowRuns = Number(process.argv.find((a) => a.startsWith('--flow-runs='))?.slice('--flow-runs='.length) ?? 0);
const N = quick ? 40 : 200;
const ROUNDS = quick ? 3 : 5;
const here = path.dirname(fileURLToPath(import.meta.url));

/** The floor: write `files` files with temp + fsync + rename, fsync their directory, append one fsync'd line. */
async function floorOnce(dir, files) {
  const t = performance.now();
  for (let i = 0; i < files; i++) {
    const f = path.join(dir, `f${i}.md`);
    const tmp = `${f}.tmp`;
    const fh = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o644);
    await fh.writeFile('---\nid: x\nrev: 1\n---\n');
    await fh.sync();
    await fh.close();
    await fs.rename(tmp, f);
  }
  const d = await fs.open(dir, 'r');
  await d.sync();
  await d.close();
  const a = await fs.open(path.join(dir, 'audit.jsonl'), 'a');
  await a.write('{"seq":0}\n');
  await a.sync();
  await a.close();
  return performance.now() - t;
}

async function setup() {
  const dir = mkdtempSync(path.join(tmpdir(), 'wb-bench-'));
  cpSync(path.join(here, '../examples/board'), dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  const board = await Board.open(dir);
  const svc = await Service.open(board);
  const A = (n) => resolveActor(board.manifest, n).actor;
  return { dir, board, svc, agent: A('reviewer'), mira: A('mira@example.com') };
}

/** One call: its time, its answer, and the fsyncs this process asked for meanwhile (alone, all of them are the call's). */
async function timed(fn) {
  const f = fsyncCount();
  const t = performance.now();
  const r = await fn();
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return { ms: performance.now() - t, data: r.data, fsyncs: fsyncCount() - f };
}

let rid = 0;
const req = () => `bench-${process.pid}-${++rid}`;

const SUBMIT = REVIEWED;
const startArgs = (i) => ({ process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 1 + i, receiptUrl: 'https://example.com/r' }, requestId: req() });

/** One client, one call at a time: each call's time, and each transition's fsyncs (`fsyncs`, by tool). */
async function transitions() {
  const { dir, svc, agent, mira } = await setup();
  const t = { start_run: [], claim: [], renew: [], submit: [], decide: [], get_work: [], get_run: [] };
  const fsyncs = { start_run: [], claim: [], renew: [], submit: [], decide: [] };
  const note = (tool, x) => {
    t[tool].push(x.ms);
    fsyncs[tool]?.push(x.fsyncs);
    return x;
  };
  for (let i = 0; i < N; i++) {
    const s = note('start_run', await timed(() => svc.call('start_run', startArgs(i), mira)));
    const runId = s.data.run.id;
    note('get_work', await timed(() => svc.call('get_work', { limit: 5 }, agent)));
    const c = note('claim', await timed(() => svc.call('claim', { runId, stepId: 'review_claim', requestId: req() }, agent)));
    const r = note('renew', await timed(() => svc.call('renew', { token: c.data.token, progress: 'reading', requestId: req() }, agent)));
    note('submit', await timed(() => svc.call('submit', { token: r.data.token, ...SUBMIT, requestId: req() }, agent)));
    const v = note('get_run', await timed(() => svc.call('get_run', { runId }, mira)));
    const wi = v.data.workItems[0];
    note('decide', await timed(() => svc.call('decide', { runId, workItemId: wi.id, snapshot: wi.snapshot, decision: 'approved', requestId: req() }, mira)));
  }
  await fs.rm(dir, { recursive: true, force: true });
  return { t, fsyncs };
}

/**
 * Eight clients in one process, each moving runs of its own (start_run → claim → submit) at
 * once: the fsyncs the process asked for, per transition. Transitions ready at the same moment
 * can share a flush only if the write path lets them.
 */
async function concurrentFsyncs(clients = 8) {
  const { dir, svc, agent, mira } = await setup();
  const ok = (r) => {
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.data;
  };
  const cycles = Math.max(5, Math.round(N / clients));
  const before = fsyncCount();
  const cpu = process.cpuUsage();
  const t = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      for (let i = 0; i < cycles; i++) {
        const s = ok(await svc.call('start_run', startArgs(k * 1000 + i), mira));
        const c = ok(await svc.call('claim', { runId: s.run.id, stepId: 'review_claim', requestId: req() }, agent));
        ok(await svc.call('submit', { token: c.token, ...SUBMIT, requestId: req() }, agent));
      }
    }),
  );
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const transitions = clients * cycles * 3;
  await fs.rm(dir, { recursive: true, force: true });
  return { clients, transitions, fsyncsPerTransition: (fsyncCount() - before) / transitions, perSec: (transitions / ms) * 1000, cpuMsPerTransition: (used.user + used.system) / 1000 / transitions };
}

/** MCP's own cost per call, measured in a fresh process of its own (bench/mcp-overhead.mjs). */
function overMcp() {
  return new Promise((resolve, reject) => {
    const c = fork(path.join(here, 'mcp-overhead.mjs'), [String(N)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let out = null;
    c.on('message', (m) => (out = m));
    c.on('exit', (code) => (out ? resolve(out) : reject(new Error(`mcp-overhead exited with ${code}`))));
  });
}

// Files each transition commits (committed + state + request record), for its floor.
const FILES = { start_run: 3, claim: 3, renew: 2, submit: 4, decide: 5 };

async function transitionsSection() {
  const floorDir = mkdtempSync(path.join(tmpdir(), 'wb-floor-'));
  const floors = {};
  for (const [k, n] of Object.entries(FILES)) {
    const xs = [];
    for (let i = 0; i < N; i++) xs.push(await floorOnce(floorDir, n));
    floors[k] = xs;
  }
  await fs.rm(floorDir, { recursive: true, force: true });

  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await transitions());
  const rows = [];
  for (const k of Object.keys(rounds[0].t)) {
    const p50s = rounds.map(({ t }) => median(t[k]));
    const p99s = rounds.map(({ t }) => pct(t[k], 99));
    const floor = floors[k] ? median(floors[k]) : null;
    const fs1 = rounds[0].fsyncs[k] ? rounds.flatMap((r) => r.fsyncs[k]) : null;
    const fsyncs = fs1 ? fs1.reduce((a, b) => a + b, 0) / fs1.length : null;
    rows.push({ op: k, p50: median(p50s), p50min: Math.min(...p50s), p50max: Math.max(...p50s), p99: median(p99s), floor, ratio: floor ? median(p50s) / floor : null, fsyncs });
  }
  const eight = await concurrentFsyncs(8);
  const mcp = await overMcp();
  for (const op of ['describe', 'get_work', 'claim', 'submit']) {
    const m = median(mcp[`mcp ${op}`]);
    const d = median(mcp[`direct ${op}`]);
    rows.push({
      op: `${op} over MCP stdio (direct ${d.toFixed(2)}; MCP adds ${(m - d).toFixed(2)})`,
      tool: op,
      mcpAdds: m - d,
      p50: m,
      p50min: m,
      p50max: m,
      p99: pct(mcp[`mcp ${op}`], 99),
      floor: null,
      ratio: null,
      fsyncs: null,
    });
  }
  const f = (x) => (x === null ? '–' : x.toFixed(2));
  const lines = [
    `| operation | p50 ms (min–max of ${ROUNDS} rounds) | p99 ms | floor p50 ms | ours / floor | fsyncs |`,
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.op} | ${f(r.p50)} (${f(r.p50min)}–${f(r.p50max)}) | ${f(r.p99)} | ${f(r.floor)} | ${r.ratio === null ? '–' : r.ratio.toFixed(2)} | ${r.fsyncs === null ? '–' : r.fsyncs.toFixed(1)} |`,
    ),
    '',
    `${eight.clients} clients in one process on runs of their own (start_run, claim, submit): ${f(eight.fsyncsPerTransition)} fsyncs per transition, ${eight.perSec.toFixed(0)} transitions/s, ${f(eight.cpuMsPerTransition)} ms CPU per transition (${eight.transitions} transitions).`,
  ];
  return { lines, rows, eight };
}

/**
 * The file system the boards are made on (the OS temp folder: set TMPDIR to measure another), from
 * /proc/mounts: its type and options. ext4 without a journal and ext4 with one cost very different
 * amounts of kernel time per created file and per flush (docs/performance.md).
 */
function boardsFileSystem() {
  const dir = realpathSync(tmpdir());
  let best = null;
  try {
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [device, at, type, options] = line.split(' ');
      if (!at || !(dir === at || dir.startsWith(at === '/' ? '/' : `${at}/`))) continue;
      if (!best || at.length >= best.at.length) best = { device, at, type, options };
    }
  } catch {
    // no /proc: say only where
  }
  if (!best) return { dir };
  // An ext3/ext4 with a journal has a jbd2 entry named after its device.
  let journal;
  if (/^ext[34]$/.test(best.type)) {
    try {
      journal = readdirSync('/proc/fs/jbd2').some((n) => n.startsWith(`${path.basename(best.device)}-`));
    } catch {
      journal = false;
    }
  }
  return { dir, ...best, ...(journal === undefined ? {} : { journal }) };
}

async function main() {
  const began = performance.now();
  const loadBefore = loadavg();
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  // The code measured: dist/ is built from src/ at this commit, plus any uncommitted change to src/.
  const git = (args) => spawnSync('git', args, { cwd: path.join(here, '..'), encoding: 'utf8' }).stdout?.trimEnd() ?? '';
  const code = {
    commit: git(['rev-parse', '--short', 'HEAD']),
    srcChanged: git(['status', '--porcelain', '--', 'src'])
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(3)),
  };
  const fileSystem = boardsFileSystem();
  const out = { quick, N, ROUNDS, machine, code, fileSystem };
  console.log(`code: ${code.commit}${code.srcChanged.length > 0 ? ` + uncommitted changes to ${code.srcChanged.join(', ')}` : ''}`);
  const journal = fileSystem.journal === undefined ? '' : fileSystem.journal ? ' with a journal' : ' without a journal';
  console.log(`boards in ${fileSystem.dir}${fileSystem.type ? `, on ${fileSystem.type}${journal} mounted at ${fileSystem.at} (${fileSystem.options})` : ''}`);
  const took = {};
  const lap = (name, t0) => (took[name] = Math.round((performance.now() - t0) / 1000));
  if (only.has('transitions')) {
    const t0 = performance.now();
    const t = await transitionsSection();
    lap('transitions', t0);
    console.log(`${N} runs per round, ${ROUNDS} rounds, ${machine}\n`);
    console.log(t.lines.join('\n'));
    out.rows = t.rows;
    out.eight = t.eight;
  } else console.log(machine);
  /** A section that returns {lines, json}: run when chosen, timed, printed, its figures kept under `key`. */
  const section = async (key, run) => {
    if (!only.has(key)) return;
    const t0 = performance.now();
    const r = await run();
    lap(key, t0);
    console.log(`\n${r.lines.join('\n')}`);
    out[key] = r.json;
  };
  await section('concurrency', () => concurrencySection({ quick }));
  await section('scale', () => scaleSection({ quick, base: scaleDir }));
  await section('backlog', () => backlogSection({ quick }));
  await section('reminders', () => remindersSection({ quick }));
  await section('load', () => loadSection({ seconds: quick ? 10 : 60, soak: false }));
  await section('metrics', () => metricsSection({ seconds: quick ? 10 : 30, rounds: quick ? 1 : 3 }));
  await section('soak', () => soakSection({ seconds: soakSeconds }));
  await section('sync', () => syncSection({ quick, base: scaleDir }));
  await section('maps', () => mapsSection({ quick }));
  await section('insights', () => insightsSection({ quick, base: scaleDir }));
  await section('flow', () => flowSection({ quick, ...(flowRuns ? { runs: flowRuns } : {}) }));
  await section('peers', () => peersSection({ quick, base: scaleDir }));
  const goals = goalsTable(out);
  console.log(`\n${goals.lines.join('\n')}`);
  out.goals = goals.rows;
  out.seconds = (performance.now() - began) / 1000;
  out.sectionSeconds = took;
  out.loadavg = { before: loadBefore, after: loadavg() };
  const la = (l) => l.map((x) => x.toFixed(2)).join(' ');
  console.log(
    `\n(bench took ${out.seconds.toFixed(0)} s: ${Object.entries(took)
      .map(([k, v]) => `${k} ${v} s`)
      .join(', ')}; load average before ${la(loadBefore)}, after ${la(out.loadavg.after)})`,
  );
  await fs.mkdir(path.join(here, 'results'), { recursive: true });
  await fs.writeFile(path.join(here, 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(out, null, 2));
}

await main();

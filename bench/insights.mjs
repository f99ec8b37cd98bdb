// The insights section of `npm run bench` (--only=insights): `workboard stats --json` and the
// Insights page on a board of 10k runs (1k with --quick), made by gen-board.mjs as the scale
// section makes its boards.
//
//   stats, cold   the first `workboard stats --json` after the board was written: a fresh CLI
//                 process that reads and parses every run's audit chain (and keeps the facts in
//                 .work/insights.json)
//   stats, warm   the same command again (each is a new process: it stats every chain and unpacks
//                 the kept facts of those unchanged that the filter selects)
//   page, cold    the first GET /insights of a fresh `workboard serve --http` with no facts kept (it
//                 reads every chain); then, after a restart, the first from the facts that server kept
//   page, warm    GET /insights again: chains unchanged since are not read again
//   parts         in this process, a warm `stats`'s work part by part (reading the kept facts, the
//                 first list of runs, a second list: the stats alone, the figures), as CPU time
//   figures, CPU  in this process, with every chain's facts in memory: the stat of every chain
//                 and the figures, as CPU time (what the warm paths cost whatever the machine's load)
//
// Goals: ≤ 300 ms warm and ≤ 1.5 s cold for both.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Board } from '../dist/board/board.js';
import { redeemCode, createLoginLink } from '../dist/web/sessions.js';
import { RunHistory } from '../dist/service/run-history.js';
import { insights, selecting } from '../dist/insights/figures.js';
import { generateBoard } from './gen-board.mjs';
import { median } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '../bin/workboard.js');
const run = promisify(execFile);
export const INSIGHTS_GOALS = { warmMs: 300, coldMs: 1500 };

/** CPU time of this process's waited-for children so far, in ms (Linux's /proc; null elsewhere): a loaded machine stretches wall times, not these. */
function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // cutime + cstime, in USER_HZ ticks (100 a second)
  } catch {
    return null;
  }
}

async function statsOnce(dir) {
  const cpu = childrenCpuMs();
  const t = performance.now();
  const { stdout } = await run(process.execPath, [BIN, '--board', dir, 'stats', '--json'], { maxBuffer: 64 << 20 });
  const ms = performance.now() - t;
  const after = childrenCpuMs();
  return { ms, cpuMs: cpu === null || after === null ? null : after - cpu, data: JSON.parse(stdout).data };
}

async function serve(dir) {
  const server = spawn(process.execPath, [BIN, '--board', dir, 'serve', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const base = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (c) => {
      out += c.toString();
      const m = /MCP over HTTP at (http:\/\/[^/\s]+)\/mcp/.exec(out);
      if (m) resolve(m[1]);
    });
    server.stderr.on('data', (c) => (out += c.toString()));
    server.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  return { server, base };
}

async function pageOnce(base, cookie) {
  const t = performance.now();
  const res = await fetch(`${base}/insights`, { headers: { cookie } });
  const html = await res.text();
  const ms = performance.now() - t;
  if (res.status !== 200 || !html.includes('<svg')) throw new Error(`GET /insights: ${res.status}`);
  return ms;
}

export async function insightsSection({ quick, base }) {
  const runs = quick ? 1000 : 10_000;
  const reps = quick ? 3 : 7;
  const dir = path.join(mkdtempSync(path.join(base, 'wb-bench-insights-')), 'board');
  try {
    await generateBoard(dir, runs);
    const cold = await statsOnce(dir);
    const warm = [];
    const warmCpu = [];
    for (let i = 0; i < reps; i++) {
      const w = await statsOnce(dir);
      warm.push(w.ms);
      warmCpu.push(w.cpuMs);
    }
    const history = new RunHistory(await Board.open(dir));
    history.runs();
    const cpu = [];
    for (let i = 0; i < reps; i++) {
      const c = process.cpuUsage();
      const facts = history.runs();
      insights(facts, await history.versionsOf(facts), { modes: ['live'] }, new Date().toISOString());
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
    }
    // What a warm `stats` spends on the board's 10k runs, part by part, each from a fresh history on the kept facts.
    const cpuOf = async (f) => {
      const c = process.cpuUsage();
      const r = await f();
      const used = process.cpuUsage(c);
      return [r, (used.user + used.system) / 1000];
    };
    const parts = { keptMs: [], firstMs: [], statMs: [], figuresMs: [] };
    const filter = { modes: ['live'] };
    for (let i = 0; i < reps; i++) {
      const h = new RunHistory(await Board.open(dir));
      parts.keptMs.push((await cpuOf(() => h.loadKept()))[1]);
      const [facts, first] = await cpuOf(() => h.runs(selecting(filter)));
      parts.firstMs.push(first);
      parts.statMs.push((await cpuOf(() => h.runs(selecting(filter))))[1]);
      const versions = await h.versionsOf(facts);
      parts.figuresMs.push((await cpuOf(() => insights(facts, versions, filter, new Date().toISOString())))[1]);
    }
    const warmParts = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, median(v)]));
    // The page cold with nothing kept (every chain read), then after a restart, from what that server kept.
    rmSync(path.join(dir, '.work', 'insights.json'), { force: true });
    const board = await Board.open(dir);
    const code = new URL(await createLoginLink(board, 'mira@example.com', 'http://127.0.0.1')).searchParams.get('code');
    const cookie = `wb_session=${(await redeemCode(board, code)).token}`;
    const page = {};
    for (const start of ['coldMs', 'restartMs']) {
      const { server, base: url } = await serve(dir);
      try {
        page[start] = await pageOnce(url, cookie);
        if (start === 'coldMs') {
          const pageWarm = [];
          for (let i = 0; i < reps; i++) pageWarm.push(await pageOnce(url, cookie));
          page.warmMs = median(pageWarm);
          // The server keeps its facts a second after a page, off the page's time: let it.
          await new Promise((resolve) => setTimeout(resolve, 1500));
        }
      } finally {
        server.kill('SIGTERM');
        await new Promise((resolve) => server.once('exit', resolve));
      }
    }
    const json = {
      runs,
      started: cold.data.runs.started,
      stats: { coldMs: cold.ms, warmMs: median(warm), coldCpuMs: cold.cpuMs, warmCpuMs: warmCpu.includes(null) ? null : median(warmCpu) },
      page,
      figuresCpuMs: median(cpu),
      warmParts,
      goals: INSIGHTS_GOALS,
    };
    const f = (ms) => `${Math.round(ms)} ms`;
    const ok = (ms, goal) => (ms <= goal ? 'met' : 'NOT met');
    return {
      json,
      lines: [
        `### Insights: stats and the page on ${runs.toLocaleString('en')} runs`,
        '',
        '| | cold | warm (median of ' + reps + ') | goal |',
        '|---|---|---|---|',
        `| \`workboard stats --json\` (a CLI process) | ${f(json.stats.coldMs)} | ${f(json.stats.warmMs)} | warm ≤ ${INSIGHTS_GOALS.warmMs} ms: ${ok(json.stats.warmMs, INSIGHTS_GOALS.warmMs)}; cold ≤ ${INSIGHTS_GOALS.coldMs} ms: ${ok(json.stats.coldMs, INSIGHTS_GOALS.coldMs)} |`,
        `| GET /insights (serve) | ${f(page.coldMs)} (after a restart: ${f(page.restartMs)}) | ${f(page.warmMs)} | warm ≤ ${INSIGHTS_GOALS.warmMs} ms: ${ok(page.warmMs, INSIGHTS_GOALS.warmMs)}; cold ≤ ${INSIGHTS_GOALS.coldMs} ms: ${ok(page.coldMs, INSIGHTS_GOALS.coldMs)} |`,
        '',
        `CPU of the \`stats\` processes: cold ${json.stats.coldCpuMs === null ? 'not measured' : f(json.stats.coldCpuMs)}, warm ${json.stats.warmCpuMs === null ? 'not measured' : f(json.stats.warmCpuMs)} (median; from /proc, to 10 ms).`,
        `A warm \`stats\`'s parts, CPU in one process (median of ${reps}): reading the kept facts ${f(warmParts.keptMs)}; the first list of runs (a stat of every chain, unpacking those selected) ${f(warmParts.firstMs)}, of which the stats ${f(warmParts.statMs)} (a second list); the figures ${f(warmParts.figuresMs)}.`,
        `Figures in one process, facts in memory (a stat of every chain, then the figures): ${f(json.figuresCpuMs)} of CPU (median of ${reps}); load average ${loadavg()
          .map((x) => x.toFixed(1))
          .join(' ')}.`,
      ],
    };
  } finally {
    rmSync(path.dirname(dir), { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await insightsSection({ quick: process.argv.includes('--quick'), base: (await import('node:os')).tmpdir() });
  console.log(r.lines.join('\n'));
}

// Load section of `npm run bench`: a real `workboard serve --http 127.0.0.1:0` on a generated
// board (bench/gen-board.mjs), driven over loopback by 8 clients at once. Each client is an agent
// of its own (load-1 … load-8, one bearer token each) and uses mira's token for what a person
// does; every call is a plain fetch of JSON-RPC tools/call. One cycle, four transitions:
//   start_run (mira) → get_work → claim → submit (the agent) → decide (mira)
// Reports transitions/s, p50/p99 per tool, serve's RSS (VmRSS in /proc/<pid>/status)
// sampled every 2 s, and how fast /healthz and /readyz answer under the load (asked every second). The soak section (`--only=soak`, `--soak-seconds=<s>`: 300 s, 45 s with --quick)
// runs the same load that long on a board of its own and reports serve's RSS at the start, at 1 and
// 5 minutes, at its peak and at the end, per minute with its slope after warm-up and the live heap
// after each of serve's full collections (serve runs with --trace-gc: what is live, apart from how
// much V8 lets its heap grow) and node's memory outside V8's heap (`external`, from /metrics), and
// the RSS of a cold serve started afterwards on the board the soak grew (what the runs added need by
// themselves).
// Serve is killed at the end.
// WB_SERVE_PROF=<dir> starts serve with --cpu-prof into that folder, to see where its time goes.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Board } from '../dist/board/board.js';
import { addAgent } from '../dist/board/people.js';
import { verifyBoard } from '../dist/board/verify.js';
import { createToken } from '../dist/service/credentials.js';
import { generateBoard } from './gen-board.mjs';
import { pct } from './stats.mjs';
import { REVIEWED } from './expense-acts.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '../bin/workboard.js');
const CLIENTS = 8;
const GENERATED_RUNS = 1000;
const SAMPLE_MS = 2000;
const WARM_UP_S = 120; // the soak's slope is taken from the end of minute 2 on
const FLAT_DRIFT = 0.05; // flat: the fitted drift over that span is under 5% of its mean RSS
const CALL_TIMEOUT_MS = 30_000; // a call that hangs fails the bench instead of stalling it
const PROBE_MS = 1000; // how often the load asks /healthz and /readyz, as a supervisor would
const TOOLS = ['start_run', 'get_work', 'claim', 'submit', 'decide'];

/** serve's resident set in MB, or null where there is no /proc. */
function rssMb(pid) {
  try {
    const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    return kb / 1024;
  } catch {
    return null;
  }
}

/** A board of generated runs with the load agents declared, and a token for each agent and for mira. */
async function setupBoard() {
  const base = mkdtempSync(path.join(tmpdir(), 'wb-bench-load-'));
  const dir = path.join(base, 'board');
  await generateBoard(dir, GENERATED_RUNS);
  const board = await Board.open(dir);
  const agents = [];
  for (let i = 1; i <= CLIENTS; i++) {
    await addAgent(board, 'mira@example.com', `load-${i}`, 'load bench agent');
    agents.push((await createToken(board.store, `load-${i}`, new Date())).token);
  }
  const mira = (await createToken(board.store, 'mira@example.com', new Date())).token;
  return { base, dir, agents, mira };
}

/** A process's CPU time so far in ms (user + system, from /proc/<pid>/stat), or null where there is no /proc. */
function cpuMs(pid) {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th of them, in clock ticks (100 a second on Linux).
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().split(' ');
    return (Number(rest[11]) + Number(rest[12])) * 10;
  } catch {
    return null;
  }
}

/** One full collection in `--trace-gc`'s words: the heap V8 held before and after it, and what was live after it (MB). */
const MARK_COMPACT = /Mark-Compact [\d.]+ \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/;

/**
 * `workboard serve --http 127.0.0.1:0` on the board: its process and the URL it printed. `gcs`: with
 * `traceGc`, each full collection as it is printed (when, live heap after it, heap V8 held), for the soak.
 */
async function startServe(dir, extra = [], traceGc = false) {
  const prof = process.env.WB_SERVE_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.WB_SERVE_PROF] : [];
  // WB_SERVE_HEAP=<dir>: serve writes a heap snapshot into <dir> on each SIGUSR2 (its pid is printed).
  const heap = process.env.WB_SERVE_HEAP ? ['--heapsnapshot-signal=SIGUSR2', '--diagnostic-dir=' + process.env.WB_SERVE_HEAP] : [];
  // WB_SERVE_TRACE_GC=<file>: serve runs with --trace-gc, its output appended to <file> (the live heap after each full GC).
  const gc = process.env.WB_SERVE_TRACE_GC || traceGc ? ['--trace-gc'] : [];
  const child = spawn(process.execPath, [...prof, ...heap, ...gc, BIN, '--board', dir, 'serve', '--http', '127.0.0.1:0', '--ops', '127.0.0.1:0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  if (process.env.WB_SERVE_TRACE_GC) child.stdout.on('data', (d) => appendFileSync(process.env.WB_SERVE_TRACE_GC, d));
  const gcs = [];
  let partial = '';
  if (traceGc) {
    child.stdout.on('data', (d) => {
      const text = partial + d;
      const cut = text.lastIndexOf('\n');
      partial = text.slice(cut + 1);
      for (const l of text.slice(0, cut + 1).split('\n')) {
        const m = MARK_COMPACT.exec(l);
        if (m) gcs.push({ at: performance.now(), live: Number(m[2]), held: Math.max(Number(m[1]), Number(m[3])) });
      }
    });
  }
  child.stderr.on('data', (d) => (out = (out + d).slice(-4000)));
  let said = '';
  const { url, ops } = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-4000);
      said = (said + d).slice(-8000);
      const m = /MCP over HTTP at (http:\S+)/.exec(said);
      const o = /also at (http:\S+), answered by a thread/.exec(said);
      if (m && o) resolve({ url: m[1], ops: o[1] });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  const exited = new Promise((r) => child.once('exit', r));
  if (heap.length > 0) console.error(`serve pid ${child.pid}: kill -USR2 ${child.pid} writes a heap snapshot into ${process.env.WB_SERVE_HEAP}`);
  return { child, url, ops, exited, gcs };
}

async function stopServe({ child, exited }) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

/** One HTTP MCP client: a loop of cycles until `stop()` says so; latencies of ok calls, refusals by tool and code. */
function client(url, agent, mira, tag, stats) {
  let n = 0;
  const req = () => `load-${tag}-${++n}`;
  const call = async (token, name, args) => {
    const t = performance.now();
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name, arguments: args } }),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      const text = await res.text();
      const ms = performance.now() - t;
      if (res.status !== 200) return stats.refuse(name, `HTTP ${res.status}`);
      const r = JSON.parse(text).result.structuredContent;
      if (!r.ok) return stats.refuse(name, r.error.code);
      stats.ok(name, ms);
      return r.data;
    } catch (e) {
      if (e.name === 'TimeoutError') throw new Error(`${name} took over ${CALL_TIMEOUT_MS} ms`);
      return stats.refuse(name, e.cause?.code ?? e.message);
    }
  };
  const cycle = async () => {
    const s = await call(mira, 'start_run', { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 1 + n, receiptUrl: 'https://example.com/r' }, requestId: req() });
    if (!s) return;
    stats.transition();
    await call(agent, 'get_work', { process: 'expense-approval', limit: 5 });
    const c = await call(agent, 'claim', { runId: s.run.id, stepId: 'review_claim', requestId: req() });
    if (!c) return;
    stats.transition();
    const sub = await call(agent, 'submit', {
      token: c.token,
      ...REVIEWED,
      requestId: req(),
    });
    if (!sub) return;
    stats.transition();
    const wi = sub.workItems[0];
    if (await call(mira, 'decide', { runId: s.run.id, workItemId: wi.id, snapshot: wi.snapshot, decision: 'approved', requestId: req() })) stats.transition();
  };
  return { cycle };
}

function newStats() {
  const lat = Object.fromEntries(TOOLS.map((t) => [t, []]));
  const refused = {};
  let transitions = 0;
  return {
    lat,
    refused,
    get transitions() {
      return transitions;
    },
    ok: (name, ms) => lat[name].push(ms),
    refuse: (name, why) => {
      refused[`${name} ${why}`] = (refused[`${name} ${why}`] ?? 0) + 1;
      return null;
    },
    transition: () => transitions++,
  };
}

/** Least-squares slope of RSS (MB per minute) over samples with t ≥ from. */
function slope(samples, from) {
  const xs = samples.filter((s) => s.t >= from && s.rss !== null);
  if (xs.length < 2) return { perMin: NaN, mean: NaN, span: 0 };
  const mx = xs.reduce((a, s) => a + s.t, 0) / xs.length;
  const my = xs.reduce((a, s) => a + s.rss, 0) / xs.length;
  const num = xs.reduce((a, s) => a + (s.t - mx) * (s.rss - my), 0);
  const den = xs.reduce((a, s) => a + (s.t - mx) ** 2, 0);
  return { perMin: (num / den) * 60, mean: my, span: xs[xs.length - 1].t - xs[0].t };
}

/** The soak: the load section's load for `seconds`, serve's RSS at fixed points, and a cold serve on the board it grew. */
export function soakSection({ seconds }) {
  return loadSection({ seconds, soak: true });
}

/** RSS of a fresh serve on `dir` once each client has made one cycle (as the load's own warm-up). */
async function coldServeRss(dir, agents, mira) {
  const serve = await startServe(dir);
  try {
    const warm = newStats();
    await Promise.all(agents.map((a, i) => client(serve.url, a, mira, `cold${i}`, warm).cycle()));
    return rssMb(serve.child.pid);
  } finally {
    await stopServe(serve);
  }
}

export async function loadSection({ seconds, soak, serveArgs = [], scrapeMs = 0 }) {
  const { base, dir, agents, mira } = await setupBoard();
  const serve = await startServe(dir, serveArgs, soak);
  const pid = serve.child.pid;
  try {
    const idle = rssMb(pid);
    // Warm up before the clock starts: the first calls compile schemas and load the process.
    const warm = newStats();
    await Promise.all(agents.map((a, i) => client(serve.url, a, mira, `w${i}`, warm).cycle()));
    if (warm.transitions !== 4 * CLIENTS) throw new Error(`warm-up: ${JSON.stringify(warm.refused)}`);
    const warmed = rssMb(pid);

    const stats = newStats();
    const serveCpu0 = cpuMs(pid);
    const clientsCpu0 = process.cpuUsage();
    const t0 = performance.now();
    const until = t0 + seconds * 1000;
    const gcsFrom = serve.gcs.length;
    // The soak also reads serve's memory outside V8's heap (buffers, what native code holds) from /metrics every 30 s.
    const external = [];
    const externalReader = soak
      ? setInterval(
          () =>
            void fetch(new URL('/metrics', serve.url))
              .then((r) => r.text())
              .then((text) => {
                const m = /^nodejs_external_memory_bytes (\S+)$/m.exec(text);
                if (m) external.push({ t: (performance.now() - t0) / 1000, mb: Number(m[1]) / 1024 / 1024 });
              }),
          30_000,
        )
      : null;
    const samples = [];
    const sample = () => samples.push({ t: (performance.now() - t0) / 1000, rss: rssMb(pid), transitions: stats.transitions });
    sample();
    const sampler = setInterval(sample, SAMPLE_MS);
    // As Prometheus would: /metrics read every scrapeMs during the load (its gauges are computed then).
    let scrapes = 0;
    const scraper =
      scrapeMs > 0
        ? setInterval(
            () =>
              void fetch(new URL('/metrics', serve.url))
                .then((r) => r.text())
                .then(() => scrapes++),
            scrapeMs,
          )
        : null;
    // As a supervisor would: /healthz and /readyz every PROBE_MS, on serve's own address and on the
    // ops listener (`--ops`, its own thread), each answer's time and status kept.
    const probes = { healthz: [], readyz: [], opsHealthz: [], opsReadyz: [], failed: 0 };
    const probe = (base, p, into) => {
      const t = performance.now();
      void fetch(new URL(p, base)).then(async (r) => {
        await r.text();
        probes[into].push(performance.now() - t);
        if (r.status !== 200) probes.failed++;
      });
    };
    const prober = setInterval(() => {
      probe(serve.url, '/healthz', 'healthz');
      probe(serve.url, '/readyz', 'readyz');
      probe(serve.ops, '/healthz', 'opsHealthz');
      probe(serve.ops, '/readyz', 'opsReadyz');
    }, PROBE_MS);
    let wallMs;
    try {
      await Promise.all(
        agents.map(async (a, i) => {
          const c = client(serve.url, a, mira, i, stats);
          while (performance.now() < until) await c.cycle();
        }),
      );
      wallMs = performance.now() - t0;
    } finally {
      clearInterval(sampler);
      clearInterval(prober);
      if (scraper) clearInterval(scraper);
      if (externalReader) clearInterval(externalReader);
    }
    const serveCpu = serveCpu0 === null ? null : cpuMs(pid) - serveCpu0;
    const clientsCpu = process.cpuUsage(clientsCpu0);
    sample();
    const report = await verifyBoard(await Board.open(dir));
    const rss = samples.map((s) => s.rss).filter((x) => x !== null);
    let cold = null;
    if (soak) {
      await stopServe(serve);
      cold = { runs: readdirSync(path.join(dir, 'runs')).length, rss: await coldServeRss(dir, agents, mira) };
    }
    const result = {
      clients: CLIENTS,
      generatedRuns: GENERATED_RUNS,
      seconds,
      wallMs,
      transitions: stats.transitions,
      perSec: stats.transitions / (wallMs / 1000),
      tools: Object.fromEntries(TOOLS.map((t) => [t, { calls: stats.lat[t].length, p50: pct(stats.lat[t], 50), p99: pct(stats.lat[t], 99) }])),
      refused: stats.refused,
      // CPU per transition: serve's own, and the clients' (this process: fetch, JSON, the sampler).
      cpuMsPerTransition: { serve: serveCpu === null ? null : serveCpu / stats.transitions, clients: (clientsCpu.user + clientsCpu.system) / 1000 / stats.transitions },
      rssMb: { idle, warmed, min: Math.min(...rss), max: Math.max(...rss), end: rss[rss.length - 1] ?? null },
      samples,
      audit: { ok: report.ok, chains: report.chains.length },
      scrapes,
      probes: {
        ...Object.fromEntries(['healthz', 'readyz', 'opsHealthz', 'opsReadyz'].map((k) => [k, { n: probes[k].length, p50: pct(probes[k], 50), p99: pct(probes[k], 99), max: Math.max(...probes[k]) }])),
        failed: probes.failed,
      },
    };
    // Each full collection of the soak, at its second: what was live after it is the heap's own growth, apart from V8's sizing.
    const gcs = serve.gcs.slice(gcsFrom).map((g) => ({ t: (g.at - t0) / 1000, live: g.live, held: g.held }));
    if (soak) result.soak = { ...soakOf(result, gcs, external), points: pointsOf(result), cold, gcs, external };
    return { lines: lines(result), json: result };
  } finally {
    await stopServe(serve);
    rmSync(base, { recursive: true, force: true });
  }
}

/** How often the metrics section scrapes /metrics: Prometheus's usual interval is 15 s; 5 s makes the gauges' cost show. */
const SCRAPE_MS = 5000;

/**
 * Metrics section (`--only=metrics`): serve's CPU per transition under the load above with
 * metrics on (scraped every SCRAPE_MS) and off (`serve --no-metrics`), alternated over `rounds`
 * so a drift of the machine falls on both; the overhead is the medians' difference.
 */
export async function metricsSection({ seconds, rounds }) {
  const cpu = { on: [], off: [] };
  let scrapes = 0;
  let probeMax = 0;
  let opsProbeMax = 0;
  for (let r = 0; r < rounds; r++) {
    for (const mode of r % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
      const { json } = await loadSection({ seconds, soak: false, serveArgs: mode === 'off' ? ['--no-metrics'] : [], scrapeMs: mode === 'on' ? SCRAPE_MS : 0 });
      if (json.cpuMsPerTransition.serve === null) return { lines: ["Metrics: no /proc here to read serve's CPU; skipped"], json: null };
      cpu[mode].push(json.cpuMsPerTransition.serve);
      if (mode === 'on') scrapes += json.scrapes;
      probeMax = Math.max(probeMax, json.probes.healthz.max, json.probes.readyz.max);
      opsProbeMax = Math.max(opsProbeMax, json.probes.opsHealthz.max, json.probes.opsReadyz.max);
    }
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const on = med(cpu.on);
  const off = med(cpu.off);
  const overhead = (on - off) / off;
  const f = (x) => x.toFixed(3);
  return {
    lines: [
      `Metrics: serve's CPU ms per transition under the load (${CLIENTS} clients, ${seconds} s a run), metrics on (/metrics scraped every ${SCRAPE_MS / 1000} s: ${scrapes} scrapes) and off (--no-metrics), ${rounds} runs each, alternated`,
      '',
      '| metrics | CPU ms per transition, each run | median |',
      '|---|---|---|',
      `| on | ${cpu.on.map(f).join(', ')} | ${f(on)} |`,
      `| off | ${cpu.off.map(f).join(', ')} | ${f(off)} |`,
      '',
      `Overhead of metrics: ${(overhead * 100).toFixed(1)}% (goal: at most 5%)`,
      `Slowest /healthz or /readyz answer in these runs: ${opsProbeMax.toFixed(1)} ms on the ops listener (serve --ops; goal: within 50 ms), ${probeMax.toFixed(1)} ms on serve's own address (behind the calls)`,
    ],
    json: { seconds, rounds, scrapeMs: SCRAPE_MS, cpuMsPerTransition: cpu, median: { on, off }, overhead, probeMaxMs: probeMax, opsProbeMaxMs: opsProbeMax },
  };
}

/** Serve's RSS at the start, at 1 and 5 minutes (the sample nearest each, when the soak lasted that long), at its peak and at the end. */
function pointsOf(r) {
  const xs = r.samples.filter((s) => s.rss !== null);
  if (xs.length === 0) return [];
  const near = (t) => xs.reduce((best, x) => (Math.abs(x.t - t) < Math.abs(best.t - t) ? x : best));
  const peak = xs.reduce((best, x) => (x.rss > best.rss ? x : best));
  const at = (point, s) => ({ point, t: s.t, rss: s.rss, transitions: s.transitions });
  return [at('start', xs[0]), ...[60, 300].filter((t) => t <= r.seconds).map((t) => at(`${t / 60} min`, near(t))), at('peak', peak), at('end', xs.at(-1))];
}

/** Per minute: RSS min, max and at the minute's end, the live heap after its full collections, the most heap V8 held and the most memory outside it (node's `external`), transitions in it; and the slope after warm-up. */
function soakOf(r, gcs, external) {
  const count = Math.round(r.seconds / 60);
  // The first sample is the start; the last, taken once the clients stopped, belongs to the last minute.
  const minuteOf = (s) => Math.min(count, Math.max(1, Math.ceil(s.t / 60)));
  const minutes = [];
  let before = r.samples[0];
  for (let m = 1; m <= count; m++) {
    const xs = r.samples.slice(1).filter((s) => minuteOf(s) === m && s.rss !== null);
    const last = xs.at(-1);
    if (!last) continue;
    const full = gcs.filter((g) => minuteOf(g) === m);
    const live = full.length === 0 ? null : { min: Math.min(...full.map((g) => g.live)), max: Math.max(...full.map((g) => g.live)), held: Math.max(...full.map((g) => g.held)) };
    const outside = external.filter((e) => minuteOf(e) === m).map((e) => e.mb);
    minutes.push({
      minute: m,
      min: Math.min(...xs.map((s) => s.rss)),
      max: Math.max(...xs.map((s) => s.rss)),
      end: last.rss,
      live,
      external: outside.length === 0 ? null : Math.max(...outside),
      transitions: last.transitions - before.transitions,
    });
    before = last;
  }
  const s = slope(r.samples, WARM_UP_S);
  const drift = Number.isFinite(s.perMin) ? (s.perMin * s.span) / 60 : NaN;
  return { minutes, slopeMbPerMin: s.perMin, driftMb: drift, flat: Math.abs(drift) <= FLAT_DRIFT * s.mean };
}

function lines(r) {
  const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');
  const mb = (x) => (x === null ? '–' : f(x, 0));
  const refusals =
    Object.keys(r.refused).length === 0
      ? '0'
      : Object.entries(r.refused)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ');
  const out = [
    `Load: workboard serve --http on a board of ${r.generatedRuns} generated runs, ${r.clients} HTTP clients (fetch of JSON-RPC tools/call), each cycle start_run (person) → get_work → claim → submit (agent) → decide (person), for ${r.seconds} s`,
    '',
    '| tool | calls ok | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...TOOLS.map((t) => `| ${t} | ${r.tools[t].calls} | ${f(r.tools[t].p50)} | ${f(r.tools[t].p99)} |`),
    '',
    '| clients | transitions | wall s | transitions/s | CPU ms per transition: serve / clients | serve RSS MB: idle / warmed up / min / max / end | refused | audit verify |',
    '|---|---|---|---|---|---|---|---|',
    `| ${r.clients} | ${r.transitions} | ${f(r.wallMs / 1000)} | ${f(r.perSec, 1)} | ${r.cpuMsPerTransition.serve === null ? '–' : f(r.cpuMsPerTransition.serve)} / ${f(r.cpuMsPerTransition.clients)} | ${mb(r.rssMb.idle)} / ${mb(r.rssMb.warmed)} / ${mb(r.rssMb.min)} / ${mb(r.rssMb.max)} / ${mb(r.rssMb.end)} | ${refusals} | ${r.audit.ok ? 'ok' : 'FAILED'} (${r.audit.chains} chains) |`,
    '',
    `/healthz and /readyz under the load, every ${PROBE_MS} ms (goal: within 50 ms), p50 / p99 / max ms (answers):`,
    ...[
      ['the ops listener (serve --ops, a thread of its own)', 'opsHealthz', 'opsReadyz'],
      ["serve's own address (behind the calls)", 'healthz', 'readyz'],
    ].map(
      ([where, h, rd]) =>
        `- ${where}: healthz ${f(r.probes[h].p50)} / ${f(r.probes[h].p99)} / ${f(r.probes[h].max)} (${r.probes[h].n}), readyz ${f(r.probes[rd].p50)} / ${f(r.probes[rd].p99)} / ${f(r.probes[rd].max)} (${r.probes[rd].n})`,
    ),
    `not 200: ${r.probes.failed}`,
  ];
  if (!r.soak) {
    // RSS every 10 s (2 s in a short run); every sample is in the JSON.
    const step = r.seconds <= 20 ? 2 : 10;
    const near = (t) => r.samples.reduce((best, x) => (Math.abs(x.t - t) < Math.abs(best.t - t) ? x : best));
    const row = Array.from({ length: Math.floor(r.seconds / step) + 1 }, (_, k) => near(k * step));
    out.push('', `| t s | ${row.map((x) => f(x.t, 0)).join(' | ')} |`, `|---|${row.map(() => '---').join('|')}|`, `| serve RSS MB | ${row.map((x) => mb(x.rss)).join(' | ')} |`);
    return out;
  }
  const s = r.soak;
  out.push(
    '',
    `Soak: serve's RSS over ${f(r.seconds / 60, 1)} minutes of the same load (${r.transitions} transitions), then a cold serve on the board it grew`,
    '',
    '| point | t s | serve RSS MB | transitions so far |',
    '|---|---|---|---|',
    ...s.points.map((p) => `| ${p.point} | ${f(p.t, 0)} | ${mb(p.rss)} | ${p.transitions} |`),
    ...(s.cold ? [`| cold serve on the grown board (${s.cold.runs} runs), after one cycle per client | – | ${mb(s.cold.rss)} | – |`] : []),
    '',
    '| minute | RSS MB min | max | at the end | live heap after full collections, MB | heap V8 held, at most MB | outside V8 heap, at most MB | transitions |',
    '|---|---|---|---|---|---|---|---|',
    ...s.minutes.map(
      (m) =>
        `| ${m.minute} | ${mb(m.min)} | ${mb(m.max)} | ${mb(m.end)} | ${m.live ? `${f(m.live.min, 1)}–${f(m.live.max, 1)}` : '–'} | ${m.live ? f(m.live.held, 1) : '–'} | ${m.external === null ? '–' : f(m.external, 1)} | ${m.transitions} |`,
    ),
  );
  // The slope needs a minute of samples after warm-up.
  if (r.seconds >= WARM_UP_S + 60) {
    out.push(
      '',
      `RSS slope from the end of minute ${WARM_UP_S / 60} to the end (least squares over the 2 s samples): ${f(s.slopeMbPerMin)} MB/min, a drift of ${f(s.driftMb, 1)} MB: ${s.flat ? 'flat' : '**NOT flat**'} (flat = drift within ${FLAT_DRIFT * 100}% of the mean RSS)`,
    );
  }
  return out;
}

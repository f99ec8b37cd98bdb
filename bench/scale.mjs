// Scale section of `npm run bench`: one board grown to 1k, 10k, 50k and 100k runs by
// bench/gen-board.mjs (written as files: mostly ended, 1% with a ready agent step,
// 0.25% awaiting a finance approval; the newest runs first, older ones added for
// each larger size), measured at each size in fresh processes (bench/scale-child.mjs)
// so their memory is their own:
//   cold start   Board.open + Service.open + the first get_work, no .work/ at all (as after
//                git clone: it builds .work/index/)
//   warm start   the same in a second process, .work/index/ present but no change log yet
//                (.work/changes, appended by every commit); then get_work latencies as agent
//                `reviewer` and as `mira@example.com`, then as reviewer after a start_run each
//   warm start   a third process, .work/index/ and the change log present; get_work latencies
//   CLI          wall time of `node bin/workboard.js --board <dir> inbox|runs --as mira@example.com`, after
//                one untimed call (the first inbox, which keeps the open runs' states, timed apart)
// Between sizes .work/ and the runs the measurements started are removed again.
// The board's files are synced to disk before each size is measured (so no write-back
// runs during the measurements) and are in the page cache: "cold" means no .work/ and a
// fresh process, not a cold disk.
import { fork, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addRuns, captureTemplate, createBoard, runIdTime } from './gen-board.mjs';
import { median, pct } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(here, 'scale-child.mjs');
const BIN = path.join(here, '../bin/workboard.js');

function child(args) {
  return new Promise((resolve, reject) => {
    const c = fork(CHILD, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let out = null;
    c.on('message', (m) => (out = m));
    c.on('exit', (code) => (out ? resolve(out) : reject(new Error(`scale child ${args.join(' ')} exited with ${code}`))));
  });
}

function cli(args) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const c = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('exit', (code) => {
      const ms = performance.now() - t;
      if (code !== 0) reject(new Error(`workboard ${args.join(' ')} exited with ${code}: ${err}`));
      else resolve({ ms, lines: out.split('\n').filter(Boolean).length });
    });
  });
}

/** Back to the board as generated: no coordinator state, no run started by a measurement. */
function reset(dir, cutoff) {
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  for (const name of readdirSync(path.join(dir, 'runs'))) {
    if (name.startsWith('r-') && name.slice(0, 12) > cutoff) rmSync(path.join(dir, 'runs', name), { recursive: true, force: true });
  }
}

async function measure(dir, runs, quick) {
  const phases = {};
  let p0 = performance.now();
  const phase = (name) => {
    phases[name] = Math.round(performance.now() - p0);
    p0 = performance.now();
  };
  const cold = await child([dir, 'none', '0', '0', '0']);
  phase('cold');
  // The run index on disk: .work/index/open (the open runs, read by every process) and ended (the rest).
  const indexDir = path.join(dir, '.work/index');
  const indexMB = existsSync(indexDir) ? readdirSync(indexDir).reduce((n, f) => n + statSync(path.join(indexDir, f)).size, 0) / 2 ** 20 : 0;
  const openIndexMB = existsSync(path.join(indexDir, 'open')) ? statSync(path.join(indexDir, 'open')).size / 2 ** 20 : 0;
  const load = os.loadavg()[0];
  // get_work calls per series: up to n, for at most s seconds, and at least min.
  const [n, min, s] = quick ? [10, 3, 0.5] : runs >= 50_000 ? [50, 3, 2] : [50, 5, 2];
  const noLog = await child([dir, 'reviewer,mira,afterWrite', String(n), String(min), String(s)]);
  phase('warmNoLog');
  const withLog = await child([dir, 'reviewer,mira', String(n), String(min), String(s)]);
  phase('warmWithLog');
  const reps = quick ? 3 : runs >= 50_000 ? 3 : 5;
  const inbox = [];
  const list = [];
  const show = [];
  const start = [];
  // The newest generated run (any run will do for show: it reads one run whatever its state).
  const oneRun = readdirSync(path.join(dir, 'runs'))
    .filter((n) => n.startsWith('r-'))
    .sort()
    .at(-1);
  const startArgs = ['start', 'expense-approval', '--input', 'claimant=mira@example.com', '--input', 'amount=12', '--input', 'receiptUrl=https://example.com/r'];
  // The first CLI call after a cold start also keeps the open runs' states for the next ones
  // (.work/open-runs.json): timed apart, as a cost paid once, then every command once untimed.
  const inboxFirst = await cli(['--board', dir, 'inbox', '--as', 'mira@example.com']);
  for (const args of [
    ['runs', '--as', 'mira@example.com'],
    ['show', oneRun],
  ])
    await cli(['--board', dir, ...args]);
  for (let i = 0; i < reps; i++) {
    inbox.push(await cli(['--board', dir, 'inbox', '--as', 'mira@example.com']));
    list.push(await cli(['--board', dir, 'runs', '--as', 'mira@example.com']));
    show.push(await cli(['--board', dir, 'show', oneRun]));
    start.push(await cli(['--board', dir, '--as', 'mira@example.com', ...startArgs]));
  }
  phase('cli');
  const lat = (xs, items) => ({ p50: median(xs), p99: pct(xs, 99), n: xs.length, items });
  return {
    runs,
    indexMB,
    openIndexMB,
    load,
    phases,
    cold: { ms: cold.startMs, cpuMs: cold.cpuMs, rssMB: cold.rssMB, peakRssMB: cold.peakRssMB, importMs: cold.importMs },
    warmNoLog: { ms: noLog.startMs, rssMB: noLog.rssMB, rssAfterCallsMB: noLog.rssAfterMB, peakRssMB: noLog.peakRssMB },
    warm: { ms: withLog.startMs, rssMB: withLog.rssMB, rssAfterCallsMB: withLog.rssAfterMB, peakRssMB: withLog.peakRssMB },
    getWork: {
      reviewerNoLog: lat(noLog.lat.reviewer, noLog.items.reviewer),
      miraNoLog: lat(noLog.lat.mira, noLog.items.mira),
      afterWrite: lat(noLog.lat.afterWrite, noLog.items.afterWrite),
      reviewer: lat(withLog.lat.reviewer, withLog.items.reviewer),
      mira: lat(withLog.lat.mira, withLog.items.mira),
    },
    cli: {
      inbox: median(inbox.map((x) => x.ms)),
      inboxFirst: inboxFirst.ms,
      runs: median(list.map((x) => x.ms)),
      show: median(show.map((x) => x.ms)),
      start: median(start.map((x) => x.ms)),
      reps,
      inboxLines: inbox[0].lines,
      runsLines: list[0].lines,
    },
  };
}

export async function scaleSection({ quick, base = tmpdir() }) {
  const sizes = quick ? [1000, 4000] : [0, 1000, 10_000, 50_000, 100_000];
  const total = sizes[sizes.length - 1];
  const template = await captureTemplate();
  const end = Date.now();
  const cutoff = runIdTime(end); // runs started by the measurements have greater ids
  const dir = mkdtempSync(path.join(base, 'wb-bench-scale-'));
  const rows = [];
  let deleteMs = 0;
  try {
    createBoard(dir);
    const counts = { ended: 0, ready: 0, awaiting: 0 };
    let have = 0;
    for (const runs of sizes) {
      const t = performance.now();
      if (runs > have) {
        const c = await addRuns(dir, { total, from: total - runs, to: total - have, end, template });
        for (const k of Object.keys(counts)) counts[k] += c[k];
        have = runs;
      }
      spawnSync('sync'); // written back now, not during the measurements
      const addMs = performance.now() - t;
      rows.push({ ...(await measure(dir, runs, quick)), counts: { ...counts }, addMs });
      reset(dir, cutoff);
    }
  } finally {
    const t = performance.now();
    rmSync(dir, { recursive: true, force: true });
    deleteMs = performance.now() - t;
  }

  const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '–');
  const k = (n) => (n >= 1000 ? `${n / 1000}k` : n === 0 ? '0 (example board)' : String(n));
  const g = (x) => `${f(x.p50, 1)} / ${f(x.p99, 1)} (${x.n})`;
  const lines = [
    'Scale: one board grown to each size by bench/gen-board.mjs (1% of runs with a ready agent step, 0.25% awaiting finance, the rest ended); each start in a fresh process. "No change log": .work/ as after git clone, before any write on this machine.',
    '',
    '| runs | open runs | add runs + sync s | index MB (open) | cold start ms (builds the index) | its CPU ms | cold RSS MB (peak) | warm start ms, no change log | warm start ms, change log present | warm RSS MB (peak) | load average |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${k(r.runs)} | ${r.counts.ready + r.counts.awaiting} | ${f(r.addMs / 1000, 1)} | ${f(r.indexMB, 1)} (${f(r.openIndexMB, 2)}) | ${f(r.cold.ms)} | ${f(r.cold.cpuMs)} | ${f(r.cold.rssMB)} (${f(r.cold.peakRssMB)}) | ${f(r.warmNoLog.ms)} | ${f(r.warm.ms)} | ${f(r.warm.rssMB)} (${f(r.warm.peakRssMB)}) | ${f(r.load, 1)} |`,
    ),
    '',
    '| runs | get_work p50 / p99 ms (calls): reviewer, no change log | mira, no change log | reviewer, each after a start_run | reviewer, change log present | mira, change log present |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${k(r.runs)} | ${g(r.getWork.reviewerNoLog)} | ${g(r.getWork.miraNoLog)} | ${g(r.getWork.afterWrite)} | ${g(r.getWork.reviewer)} | ${g(r.getWork.mira)} |`),
    '',
    `CLI, whole process (\`node bin/workboard.js --board <dir> …\`), median of ${rows[0]?.cli.reps ?? '?'} (3 at 50k and more) after one untimed call of each; the first \`inbox\` after the starts above (it also keeps the open runs' states for the next calls) apart:`,
    '',
    '| runs | show <run> ms | start ms | inbox --as mira ms | runs ms | first inbox ms |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${k(r.runs)} | ${f(r.cli.show)} | ${f(r.cli.start)} | ${f(r.cli.inbox)} | ${f(r.cli.runs)} | ${f(r.cli.inboxFirst)} |`),
  ];

  const lo = rows.find((r) => r.runs === 1000);
  const hi = rows[rows.length - 1];
  const metrics = [
    ['cold start ms', (r) => r.cold.ms],
    ['cold start CPU ms', (r) => r.cold.cpuMs],
    ['cold RSS MB', (r) => r.cold.rssMB],
    ['warm start ms, change log present', (r) => r.warm.ms],
    ['get_work reviewer p50 ms, change log present', (r) => r.getWork.reviewer.p50],
    ['get_work mira p50 ms, change log present', (r) => r.getWork.mira.p50],
    ['get_work reviewer p50 ms, after a start_run', (r) => r.getWork.afterWrite.p50],
    ['get_work reviewer p50 ms, no change log', (r) => r.getWork.reviewerNoLog.p50],
    ['CLI inbox ms', (r) => r.cli.inbox],
    ['CLI runs ms', (r) => r.cli.runs],
    ['index MB, all', (r) => r.indexMB],
    ['index MB, open runs (read by every process)', (r) => r.openIndexMB],
  ];
  const growth = metrics.map(([name, get]) => ({ metric: name, from: get(lo), to: get(hi), factor: get(hi) / get(lo) }));
  lines.push(
    '',
    `Growth from ${k(lo.runs)} to ${k(hi.runs)} runs (${hi.runs / lo.runs}× the runs)`,
    '',
    `| metric | ${k(lo.runs)} | ${k(hi.runs)} | growth |`,
    '|---|---|---|---|',
    ...growth.map((x) => `| ${x.metric} | ${f(x.from, 1)} | ${f(x.to, 1)} | ${f(x.factor, 1)}× |`),
    '',
    `(deleting the ${k(hi.runs)}-run board took ${f(deleteMs / 1000, 1)} s)`,
  );
  return { lines, json: { dir: base, sizes: rows, growth, deleteMs } };
}

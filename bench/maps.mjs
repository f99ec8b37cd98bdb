// The maps section of `npm run bench` (--only=maps): how long drawing a process map takes, for the
// largest process we have (most steps; today the 20-step supplier-onboarding fixture) and for the
// example board's expense-approval. A fresh process draws each once first (elkjs and the map's font
// are loaded then: what `workboard map` pays), then the same process draws it again and again:
// layout (our grid, then elkjs's layers and routing) and the SVG, the whole processMapSvg call.
// Goal: ≤ 300 ms for the largest, elkjs included.
import { fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, pct } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const GOAL_MS = 300;

/** Every process of our own, as in test/map/sources.ts. */
function ours() {
  const under = (dir) =>
    existsSync(dir)
      ? readdirSync(dir)
          .sort()
          .map((d) => path.join(dir, d, 'PROCESS.md'))
          .filter(existsSync)
      : [];
  return ['examples/board/processes', 'fixtures/valid', 'fixtures/service'].flatMap((d) => under(path.join(root, d)));
}

/** In a child: draw `file` once cold, then `reps` times warm; send the times back. */
async function child(file, reps) {
  const { loadDraft } = await import('../dist/map/draft.js');
  const { processMapSvg, processMapLayout } = await import('../dist/map/index.js');
  const { FULL_OFFER } = await import('../dist/protocol/offer.js');
  const d = loadDraft(readFileSync(file, 'utf8'), FULL_OFFER);
  const draw = () => processMapSvg({ process: d.process }, { problems: d.problems });
  let t = performance.now();
  await draw();
  const cold = performance.now() - t;
  const warm = [];
  const cpu = [];
  for (let i = 0; i < reps; i++) {
    t = performance.now();
    const c = process.cpuUsage();
    await draw();
    const used = process.cpuUsage(c);
    warm.push(performance.now() - t);
    cpu.push((used.user + used.system) / 1000);
  }
  const m = await processMapLayout({ process: d.process }, { problems: d.problems });
  process.send({ cold, warm, cpu, steps: d.process.steps.length, direction: m.direction, width: Math.round(m.width), height: Math.round(m.height) });
}

function measure(file, reps) {
  return new Promise((resolve, reject) => {
    const c = fork(fileURLToPath(import.meta.url), ['--child', file, String(reps)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let got;
    c.on('message', (m) => (got = m));
    c.on('exit', (code) => (got ? resolve(got) : reject(new Error(`maps child exited with ${code}`))));
  });
}

export async function mapsSection({ quick }) {
  const reps = quick ? 5 : 20;
  const files = ours();
  const steps = (f) => (readFileSync(f, 'utf8').match(/^ {2}- id:/gm) ?? []).length;
  const largest = [...files].sort((a, b) => steps(b) - steps(a))[0];
  const chosen = [largest, path.join(root, 'examples/board/processes/expense-approval/PROCESS.md')];
  const rows = [];
  for (const file of chosen) {
    const r = await measure(file, reps);
    rows.push({ process: path.basename(path.dirname(file)), ...r, p50: median(r.warm), p95: pct(r.warm, 95), cpuP50: median(r.cpu) });
  }
  const f = (x) => x.toFixed(0);
  const lines = [
    `**Maps**: one processMapSvg call (our grid, elkjs's layout and routing, the SVG), in a fresh process: the first draw (elkjs and the font loaded), then p50 / p95 of ${reps} more, and the CPU time of one (p50: what a busy machine does not inflate); goal for the largest, p50 ≤ ${GOAL_MS} ms`,
    '',
    '| process | steps | drawn | size, px | first draw, ms | p50, ms | p95, ms | CPU p50, ms | goal |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r, i) =>
        `| ${r.process} | ${r.steps} | ${r.direction === 'down' ? 'top to bottom' : 'left to right'} | ${r.width} × ${r.height} | ${f(r.cold)} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.cpuP50)} | ${i === 0 ? (r.p50 <= GOAL_MS ? `met (≤ ${GOAL_MS})` : `NOT met (≤ ${GOAL_MS})`) : '–'} |`,
    ),
  ];
  return { lines, json: { goalMs: GOAL_MS, rows: rows.map(({ warm, cpu, ...r }) => r) } };
}

if (process.argv[2] === '--child') await child(process.argv[3], Number(process.argv[4]));

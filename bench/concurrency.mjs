// Concurrency section of `npm run bench`: real OS processes (bench/concurrency-worker.mjs,
// forked once and warm) on one board, each an agent of its own (bench-1 … bench-8,
// declared on each board copy). Each measurement is on a fresh copy of examples/board.
//   (a) 1, 2, 4, 8 processes each working distinct runs: start_run → claim → submit, for a
//       fixed time; aggregate transitions per second and the speed-up over one process.
//   (b) 8 processes racing for the same ready steps of N pre-started runs: get_work → claim
//       every listed step; a step claimed successfully more than once is a double claim.
// Every board's audit chains are verified afterwards.
import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Board } from '../dist/board/board.js';
import { Service } from '../dist/service/service.js';
import { resolveActor } from '../dist/service/identity.js';
import { addAgent } from '../dist/board/people.js';
import { verifyBoard } from '../dist/board/verify.js';
import { copyExample } from './gen-board.mjs';
import { pct } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const WORKER = path.join(here, 'concurrency-worker.mjs');
const MAX_AGENTS = 8;

/** A board copy with agents bench-1 … bench-8 declared (through the board's own manifest edit). */
async function setupBoard() {
  const dir = copyExample('wb-bench-conc-');
  const board = await Board.open(dir);
  for (let i = 1; i <= MAX_AGENTS; i++) await addAgent(board, 'mira@example.com', `bench-${i}`, 'concurrency bench agent');
  return dir;
}

/** The agent processes, forked once: bench-1 … bench-8. */
class Workers {
  constructor(count) {
    this.procs = Array.from({ length: count }, (_, i) => {
      const w = fork(WORKER, [`bench-${i + 1}`], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const queue = [];
      w.on('message', (m) => queue.shift()?.resolve(m));
      w.on('exit', (code) => {
        for (const q of queue.splice(0)) q.reject(new Error(`concurrency worker exited with ${code}`));
      });
      return { w, queue };
    });
    this.started = Promise.all(this.procs.map((p) => this.next(p)));
  }

  next(p) {
    return new Promise((resolve, reject) => p.queue.push({ resolve, reject }));
  }

  ask(p, msg) {
    const r = this.next(p);
    p.w.send(msg);
    return r;
  }

  /** The first `count` workers open `dir` and warm up, then start together: results and the wall time from go to the last result. */
  async race(dir, count, go) {
    await this.started;
    const ps = this.procs.slice(0, count);
    await Promise.all(ps.map((p) => this.ask(p, { open: dir })));
    const t0 = performance.now();
    let last = t0;
    const results = await Promise.all(
      ps.map((p) =>
        this.ask(p, go).then((r) => {
          last = Math.max(last, performance.now());
          return r;
        }),
      ),
    );
    return { results, wallMs: last - t0 };
  }

  close() {
    for (const p of this.procs) if (p.w.connected) p.w.send({ exit: true });
  }
}

const mergeFailed = (results) => {
  const out = {};
  for (const r of results) for (const [k, v] of Object.entries(r.failed)) out[k] = (out[k] ?? 0) + v;
  return out;
};

async function audited(dir) {
  const report = await verifyBoard(await Board.open(dir));
  return { ok: report.ok, chains: report.chains.length };
}

async function distinct(workers, procs, seconds) {
  const dir = await setupBoard();
  try {
    const { results, wallMs } = await workers.race(dir, procs, { go: 'distinct', seconds });
    const transitions = results.reduce((a, r) => a + r.transitions, 0);
    const cpuMs = results.reduce((a, r) => a + r.cpuMs, 0);
    const all = (op) => results.flatMap((r) => r.lat[op]);
    return {
      procs,
      transitions,
      wallMs,
      perSec: transitions / (wallMs / 1000),
      cpuMsPerTransition: cpuMs / transitions,
      cpuBusy: cpuMs / (wallMs * cpus().length),
      p50: { start_run: pct(all('start_run'), 50), claim: pct(all('claim'), 50), submit: pct(all('submit'), 50) },
      failed: mergeFailed(results),
      audit: await audited(dir),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function contend(workers, procs, runs) {
  const dir = await setupBoard();
  try {
    const board = await Board.open(dir);
    const svc = await Service.open(board);
    const mira = resolveActor(board.manifest, 'mira@example.com').actor;
    for (let i = 0; i < runs; i++) {
      const r = await svc.call('start_run', { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 1 + i, receiptUrl: 'https://example.com/r' }, requestId: `pre-${i}` }, mira);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
    }
    const { results, wallMs } = await workers.race(dir, procs, { go: 'contend' });
    const counts = new Map();
    for (const r of results) for (const k of r.claimed) counts.set(k, (counts.get(k) ?? 0) + 1);
    const claims = [...counts.values()].reduce((a, b) => a + b, 0);
    const failed = mergeFailed(results);
    const attempts = results.reduce((a, r) => a + r.attempts, 0);
    return {
      procs,
      runs,
      claims,
      distinctSteps: counts.size,
      doubleClaims: [...counts.values()].filter((c) => c > 1).length,
      conflicts: failed['claim conflict'] ?? 0,
      otherRefusals: Object.fromEntries(Object.entries(failed).filter(([k]) => k !== 'claim conflict')),
      attempts,
      getWorkCalls: results.reduce((a, r) => a + r.lists, 0),
      wallMs,
      claimsPerSec: claims / (wallMs / 1000),
      attemptsPerSec: attempts / (wallMs / 1000),
      claimP50: pct(
        results.flatMap((r) => r.lat.claim),
        50,
      ),
      getWorkP50: pct(
        results.flatMap((r) => r.lat.get_work),
        50,
      ),
      audit: await audited(dir),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function concurrencySection({ quick }) {
  const seconds = quick ? 1 : 4;
  const runs = quick ? 30 : 100;
  const workers = new Workers(MAX_AGENTS);
  const a = [];
  let b;
  try {
    for (const procs of [1, 2, 4, 8]) a.push(await distinct(workers, procs, seconds));
    b = await contend(workers, MAX_AGENTS, runs);
  } finally {
    workers.close();
  }
  const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '–');
  const refusals = (o) =>
    Object.keys(o).length === 0
      ? '0'
      : Object.entries(o)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ');
  const base = a[0].perSec;
  const lines = [
    `Concurrency (a): N processes, each an agent on its own runs (start_run → claim → submit) for ${seconds} s, same board`,
    '',
    `| processes | transitions | wall s | transitions/s | speed-up vs 1 | p50 ms start_run / claim / submit | CPU ms per transition (workers) | CPU busy of ${cpus().length} cores | refused | audit verify |`,
    '|---|---|---|---|---|---|---|---|---|---|',
    ...a.map(
      (r) =>
        `| ${r.procs} | ${r.transitions} | ${f(r.wallMs / 1000)} | ${f(r.perSec, 1)} | ${f(r.perSec / base)} | ${f(r.p50.start_run)} / ${f(r.p50.claim)} / ${f(r.p50.submit)} | ${f(r.cpuMsPerTransition)} | ${f(r.cpuBusy * 100, 0)}% | ${refusals(r.failed)} | ${r.audit.ok ? 'ok' : 'FAILED'} (${r.audit.chains} chains) |`,
    ),
    '',
    `Concurrency (b): ${b.procs} processes race for the ready steps of ${b.runs} runs (get_work → claim each listed step, until none is listed)`,
    '',
    '| ready steps | claims won | steps claimed | double claims | refused: conflict | other refusals | claim attempts | get_work calls | wall s | claims won/s | attempts/s | p50 ms claim / get_work | audit verify |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    `| ${b.runs} | ${b.claims} | ${b.distinctSteps} | ${b.doubleClaims} | ${b.conflicts} | ${refusals(b.otherRefusals)} | ${b.attempts} | ${b.getWorkCalls} | ${f(b.wallMs / 1000)} | ${f(b.claimsPerSec, 1)} | ${f(b.attemptsPerSec, 1)} | ${f(b.claimP50)} / ${f(b.getWorkP50)} | ${b.audit.ok ? 'ok' : 'FAILED'} (${b.audit.chains} chains) |`,
  ];
  if (b.doubleClaims !== 0 || b.distinctSteps !== b.runs) lines.push('', `**FAILED: ${b.doubleClaims} double claims, ${b.distinctSteps} of ${b.runs} steps claimed**`);
  return { lines, json: { seconds, distinct: a, contend: b } };
}

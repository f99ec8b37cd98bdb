// One agent process of the concurrency bench (forked once by bench/concurrency.mjs and
// reused across its measurements; started processes are warm, as long-running agents are).
//   node bench/concurrency-worker.mjs <agent-id>
// Messages from the parent, each answered with one message:
//   {open: <board>}                  open the board, warm up on a run of our own → {ready}
//   {go: 'distinct', seconds}        start a run (as mira), claim its review_claim and submit it,
//                                    again and again for `seconds` → counts and latencies
//   {go: 'contend'}                  get_work → claim every listed step in the order listed,
//                                    until get_work lists nothing → the steps we won
//   {exit: true}                     leave
import { Board } from '../dist/board/board.js';
import { Service } from '../dist/service/service.js';
import { resolveActor } from '../dist/service/identity.js';
import { REVIEWED } from './expense-acts.mjs';

const [agentId] = process.argv.slice(2);
let svc;
let agent;
let mira;
let n = 0;
const req = () => `cw-${process.pid}-${++n}`;
const SUBMIT = REVIEWED;
const startArgs = () => ({ process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 1 + n, receiptUrl: 'https://example.com/r' }, requestId: req() });

async function open(dir) {
  const board = await Board.open(dir);
  svc = await Service.open(board);
  const A = (name) => {
    const r = resolveActor(board.manifest, name);
    if (!r.ok) throw new Error(r.message);
    return r.actor;
  };
  agent = A(agentId);
  mira = A('mira@example.com');
  // Warm up before the clock starts: the first calls compile schemas and load the process.
  // One cycle on a run of our own (submitted, so never listed to others), and one get_work.
  const ok = (r) => {
    if (!r.ok) throw new Error(`warm-up: ${JSON.stringify(r.error)}`);
    return r.data;
  };
  const s = ok(await svc.call('start_run', startArgs(), mira));
  const c = ok(await svc.call('claim', { runId: s.run.id, stepId: 'review_claim', requestId: req() }, agent));
  ok(await svc.call('submit', { token: c.token, ...SUBMIT, requestId: req() }, agent));
  ok(await svc.call('get_work', { limit: 1 }, agent));
}

let lat;
let failed;
async function call(tool, args, actor) {
  const t = performance.now();
  const r = await svc.call(tool, args, actor);
  const ms = performance.now() - t;
  if (r.ok) lat[tool].push(ms);
  else failed[`${tool} ${r.error.code}`] = (failed[`${tool} ${r.error.code}`] ?? 0) + 1;
  return r;
}

async function distinct(seconds) {
  const until = performance.now() + seconds * 1000;
  let transitions = 0;
  while (performance.now() < until) {
    const s = await call('start_run', startArgs(), mira);
    if (!s.ok) continue;
    transitions++;
    const c = await call('claim', { runId: s.data.run.id, stepId: 'review_claim', requestId: req() }, agent);
    if (!c.ok) continue;
    transitions++;
    const sub = await call('submit', { token: c.data.token, ...SUBMIT, requestId: req() }, agent);
    if (sub.ok) transitions++;
  }
  return { transitions };
}

async function contend() {
  const claimed = []; // `${runId}/${stepId}` of every successful claim
  let attempts = 0;
  let lists = 0;
  for (;;) {
    const w = await call('get_work', { limit: 100 }, agent);
    if (!w.ok) continue;
    lists++;
    if (w.data.items.length === 0) break;
    for (const it of w.data.items) {
      attempts++;
      const c = await call('claim', { runId: it.runId, stepId: it.stepId, requestId: req() }, agent);
      if (c.ok) claimed.push(`${it.runId}/${it.stepId}`);
    }
  }
  return { claimed, attempts, lists };
}

process.on('message', async (m) => {
  if (m.exit) {
    process.disconnect();
    return;
  }
  if (m.open) {
    await open(m.open);
    process.send({ ready: true });
    return;
  }
  lat = { start_run: [], claim: [], submit: [], get_work: [] };
  failed = {};
  const began = performance.now();
  const cpu0 = process.cpuUsage();
  const r = m.go === 'distinct' ? await distinct(m.seconds) : await contend();
  const cpu = process.cpuUsage(cpu0);
  process.send({ ...r, ms: performance.now() - began, cpuMs: (cpu.user + cpu.system) / 1000, lat, failed });
});
process.send({ started: true });

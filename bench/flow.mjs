// The flow section of `npm run bench` (--only=flow, --flow-runs=<n>, 10k by default, 1k with --quick):
// get_work, My work and `runs --view` on a board of <n> open runs of the example board's
// contract chain where a third of the runs are blocked by a contract approval and half have a
// parent (flow-1), against the same calls on a board of the same runs whose processes have no
// `flow:` (so nothing is blocked, nothing has a level and nothing has a parent). Runs come in
// groups of 12, started through the service (start_run, as Jon): two contract approvals waiting
// for legal; two payment batches, a bench-only process whose subprocess step fans out three
// supplier payments (the children, which name their batch as `parent:`), one batch's payments
// waiting for finance and the other's blocked by the first contract; one payment blocked by the
// second contract; one payment waiting for finance. So 4 of 12 are blocked and 6 of 12 have a
// parent; urgency is spread over the four levels. On the board without the profile a batch is a
// run waiting for an event and its three payments are started on their own.
// My work is what the web page asks of the service for Mira: her get_work pages (100 a page, up
// to 500 items) and the first saved view over those runs. `runs --view` is the service call in
// this process (p50 of the calls, after one that reads every run) and the CLI as a process of its
// own: once both boards are filled and each has had one untimed CLI call (the first call of a
// process on a board writes the open runs it read to .work/, as any CLI call does), CLI_PAIRS
// pairs of calls alternating between the two boards, each timed by wall and by its own CPU
// (bench/child-cpu.mjs); medians. The CPU ratio is the one to read on a loaded machine. Not a
// test; figures only.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Board } from '../dist/board/board.js';
import { publish } from '../dist/board/processes.js';
import { offerFor } from '../dist/service/context.js';
import { resolveActor } from '../dist/service/identity.js';
import { Service } from '../dist/service/service.js';
import { timedNode } from './child-cpu.mjs';
import { median, p50Of } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const EXAMPLE = path.join(here, '../examples/board');
const BIN = path.join(here, '../bin/workboard.js');
const CALLS = 20;
const CLI_PAIRS = 7;
const LEVELS = ['low', 'normal', 'high', 'urgent'];

/** The bench's parent process: a batch of payments to one supplier, one child run per invoice. */
const BATCH = `---
name: payment-batch
description: Pay a batch of one supplier's invoices, each as a supplier payment of its own.
inputs:
  supplier: string
  amount: number
  invoices: { type: list, items: string }
  urgency: { type: string, optional: true, one_of: [low, normal, high, urgent] }
  after: { type: list, items: string, optional: true }
steps:
  - id: payments
    subprocess: supplier-payment
    for_each: inputs.invoices
    inputs:
      supplier: inputs.supplier
      amount: inputs.amount
      invoiceUrl: item
      urgency: inputs.urgency
      after: inputs.after
    next: paid
  - id: paid
    finish: paid
---
# Payment batch
`;
/** The same batch on the board without the profile: a run that waits, its payments started on their own. */
const PLAIN_BATCH = BATCH.replace(/ {4}subprocess: supplier-payment\n(?: {4}(?:for_each|inputs|next):.*\n| {6}.*\n)+/, '    wait_for: payments-made\n    next: paid\n');

async function publishText(board, dir, name, text, roles) {
  const folder = path.join(dir, 'bench-processes', name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'PROCESS.md'), text);
  await publish(board, { folder, roles, actor: 'bench', offer: offerFor(board.manifest) });
}

/** The example board at `dir` with the batch process; `plain`: its two chain processes republished without `flow:` (v2) and the batch without its subprocess step, so the board does not use the profile. */
export async function exampleBoard(dir, plain) {
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => path.basename(src) !== '.work' });
  const board = await Board.open(dir);
  if (plain) {
    for (const [name, roles] of [
      ['contract-approval', { 'legal-reviewer': 'legal' }],
      ['supplier-payment', { 'finance-approver': 'finance' }],
    ]) {
      const text = readFileSync(path.join(dir, 'processes', name, 'PROCESS.md'), 'utf8').replace(/^flow:\n(?: {2}.*\n)+/m, '');
      await publishText(board, dir, name, text, roles);
    }
  }
  await publishText(board, dir, 'payment-batch', plain ? PLAIN_BATCH : BATCH, {});
  return board;
}

export async function fill(board, runs, plain) {
  const svc = await Service.open(board);
  const jon = resolveActor(board.manifest, 'jon@example.com').actor;
  let n = 0;
  const start = async (process, inputs) => {
    const r = await svc.call('start_run', { process, inputs, requestId: `bench-flow-${++n}` }, jon);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.data.run.id;
  };
  const contract = (g, i) => start('contract-approval', { supplier: `Supplier ${g}-${i}`, contractUrl: `https://example.com/c/${g}/${i}`, value: 1000 + g });
  const payment = (g, i, after) =>
    start('supplier-payment', { supplier: `Supplier ${g}`, amount: 100 + g, invoiceUrl: `https://example.com/i/${g}/${i}`, urgency: LEVELS[(g + i) % 4], ...(after ? { after } : {}) });
  const batch = async (g, i, after) => {
    const invoices = [0, 1, 2].map((k) => `https://example.com/i/${g}/${i}-${k}`);
    await start('payment-batch', { supplier: `Supplier ${g}`, amount: 100 + g, invoices, urgency: LEVELS[(g + i) % 4], ...(after ? { after } : {}) });
    // Without the profile the batch starts nothing: its payments are started on their own.
    if (plain)
      for (const invoiceUrl of invoices) await start('supplier-payment', { supplier: `Supplier ${g}`, amount: 100 + g, invoiceUrl, urgency: LEVELS[(g + i) % 4], ...(after ? { after } : {}) });
  };
  for (let g = 0; g < Math.ceil(runs / 12); g++) {
    const c1 = await contract(g, 0);
    const c2 = await contract(g, 1);
    await batch(g, 2);
    await batch(g, 3, [c1]);
    await payment(g, 4, [c2]);
    await payment(g, 5);
  }
  await svc.saveKept();
}

/** Runs on the board, and how many name a parent. */
function census(dir) {
  const ids = readdirSync(path.join(dir, 'runs')).filter((d) => d.startsWith('r-'));
  const withParent = ids.filter((id) => /\nparent: r-/.test(readFileSync(path.join(dir, 'runs', id, 'RUN.md'), 'utf8'))).length;
  return { total: ids.length, withParent };
}

const p50 = (fn) => p50Of(fn, CALLS);

async function measure(dir) {
  const board = await Board.open(dir);
  const svc = await Service.open(board);
  const who = (name) => resolveActor(board.manifest, name).actor;
  const mira = who('mira@example.com');
  const ok = (r) => {
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.data;
  };
  const myWork = async () => {
    const items = [];
    let cursor;
    do {
      const page = ok(await svc.call('get_work', { limit: 100, ...(cursor ? { cursor } : {}) }, mira));
      items.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && items.length < 500);
    ok(await svc.savedView(undefined, new Set(items.map((i) => i.runId))));
  };
  const blocked = ok(await svc.savedView('blocked-payments')).runs.length;
  const out = {
    ...census(dir),
    blocked,
    agent: await p50(async () => ok(await svc.call('get_work', { limit: 20 }, who('reviewer')))),
    person: await p50(async () => ok(await svc.call('get_work', { limit: 20 }, mira))),
    myWork: await p50(myWork),
    view: await p50(async () => ok(await svc.savedView('open-by-priority'))),
  };
  return out;
}

const cliView = (dir) => [BIN, '--board', dir, '--json', 'runs', '--view', 'open-by-priority', '--as', 'mira@example.com'];

/** `runs --view` as a CLI process on each board: one untimed call each, then pairs alternating which board goes first; medians of wall and CPU in ms. Exported to measure boards kept from an earlier fill. */
export function measureCli(dirs) {
  for (const dir of dirs) timedNode(cliView(dir));
  const times = dirs.map(() => ({ wall: [], cpu: [] }));
  for (let i = 0; i < CLI_PAIRS; i++) {
    for (const k of i % 2 ? [...dirs.keys()].reverse() : dirs.keys()) {
      const t = timedNode(cliView(dirs[k]));
      times[k].wall.push(t.wallMs);
      times[k].cpu.push(t.cpuMs);
    }
  }
  return times.map((t) => ({ cli: median(t.wall), cliCpu: median(t.cpu) }));
}

export async function flowSection({ quick, runs = quick ? 1000 : 10_000 }) {
  const rows = [];
  const base = mkdtempSync(path.join(tmpdir(), 'wb-bench-flow-'));
  try {
    const dirs = [];
    for (const plain of [false, true]) {
      const dir = path.join(base, plain ? 'plain' : 'flow');
      const t0 = performance.now();
      await fill(await exampleBoard(dir, plain), runs, plain);
      const filled = (performance.now() - t0) / 1000;
      rows.push({ board: plain ? 'without flow-1' : 'flow-1', runs, filledSeconds: filled, ...(await measure(dir)) });
      dirs.push(dir);
    }
    measureCli(dirs).forEach((cli, k) => Object.assign(rows[k], cli));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  const f = (x) => x.toFixed(1);
  const [flow, plain] = rows;
  const ratio = (k) => `${(flow[k] / plain[k]).toFixed(2)}×`;
  return {
    lines: [
      `Flow: about ${runs} open runs (in groups of 12: 2 contract approvals, 2 payment batches of 3 payments each, 2 payments; a third blocked by a contract, half with a parent), p50 of ${CALLS} calls, ms; runs --view as a CLI process: medians of ${CLI_PAIRS} alternating pairs after one call each, wall ms and the process's CPU ms (user + system): on a loaded machine read the CPU ratio`,
      '',
      '| board | runs | with a parent | blocked | get_work, agent (limit 20) | get_work, Mira (limit 20) | My work (get_work pages + first view) | runs --view (service) | runs --view (CLI process), wall | runs --view (CLI process), CPU |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.board} | ${r.total} | ${r.withParent} | ${r.blocked} | ${f(r.agent)} | ${f(r.person)} | ${f(r.myWork)} | ${f(r.view)} | ${f(r.cli)} | ${f(r.cliCpu)} |`),
      `| flow-1 / without | | | | ${ratio('agent')} | ${ratio('person')} | ${ratio('myWork')} | ${ratio('view')} | ${ratio('cli')} | ${ratio('cliCpu')} |`,
      '',
      `(boards filled through start_run in ${rows.map((r) => `${r.filledSeconds.toFixed(0)} s`).join(' and ')})`,
    ],
    json: rows,
  };
}

// The flow section of `npm run bench` (--only=flow, --flow-runs=<n>, 10k by default, 1k with --quick):
// get_work, My work and `runs --view` on a board of <n> open runs of the example board's
// contract chain where a third of the runs are supplier payments blocked by a contract approval
// (flow-1), against the same calls on a board of the same runs whose processes have no `flow:`
// (so nothing is blocked and nothing has a level). Runs are started through the service
// (start_run, as Jon), a third contract approvals waiting for legal, a third payments waiting for
// finance (urgency spread over the four levels), a third payments blocked by one of the contracts.
// My work is what the web page asks of the service for Mira: her get_work pages (100 a page, up
// to 500 items) and the first saved view over those runs. `runs --view` is the service call in
// this process and, once the index is saved, the CLI as a process of its own (median of 3). p50
// of the calls, after one that reads every run. Parent links (a child's `parent:`) are not
// generated: no process of this build starts children. Not a test; figures only.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Board } from '../dist/board/board.js';
import { publish } from '../dist/board/processes.js';
import { offerFor } from '../dist/service/context.js';
import { resolveActor } from '../dist/service/identity.js';
import { Service } from '../dist/service/service.js';
import { median, pct } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const EXAMPLE = path.join(here, '../examples/board');
const BIN = path.join(here, '../bin/workboard.js');
const CALLS = 20;
const LEVELS = ['low', 'normal', 'high', 'urgent'];

/** The example board at `dir`; `plain`: its two chain processes republished without `flow:` (v2), so the board does not use the profile. */
async function exampleBoard(dir, plain) {
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => path.basename(src) !== '.work' });
  const board = await Board.open(dir);
  if (plain) {
    for (const [name, roles] of [['contract-approval', { 'legal-reviewer': 'legal' }], ['supplier-payment', { 'finance-approver': 'finance' }]]) {
      const folder = path.join(dir, 'plain', name);
      mkdirSync(folder, { recursive: true });
      const text = readFileSync(path.join(dir, 'processes', name, 'PROCESS.md'), 'utf8').replace(/^flow:\n(?: {2}.*\n)+/m, '');
      writeFileSync(path.join(folder, 'PROCESS.md'), text);
      await publish(board, { folder, roles, actor: 'bench', offer: offerFor(board.manifest) });
    }
  }
  return board;
}

async function fill(board, runs) {
  const svc = await Service.open(board);
  const jon = resolveActor(board.manifest, 'jon@example.com').actor;
  let n = 0;
  const start = async (process, inputs) => {
    const r = await svc.call('start_run', { process, inputs, requestId: `bench-flow-${++n}` }, jon);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.data.run.id;
  };
  const contracts = [];
  for (let k = 0; k < runs; k++) {
    const supplier = `Supplier ${k}`;
    if (k % 3 === 0) contracts.push(await start('contract-approval', { supplier, contractUrl: `https://example.com/c/${k}`, value: 1000 + k }));
    else if (k % 3 === 1) await start('supplier-payment', { supplier, amount: 100 + k, invoiceUrl: `https://example.com/i/${k}`, urgency: LEVELS[k % 4] });
    else await start('supplier-payment', { supplier, amount: 100 + k, invoiceUrl: `https://example.com/i/${k}`, urgency: LEVELS[k % 4], after: [contracts[contracts.length - 1]] });
  }
  await svc.saveKept();
}

async function p50(fn) {
  await fn();
  const ms = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return pct(ms, 50);
}

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
    blocked,
    agent: await p50(async () => ok(await svc.call('get_work', { limit: 20 }, who('reviewer')))),
    person: await p50(async () => ok(await svc.call('get_work', { limit: 20 }, mira))),
    myWork: await p50(myWork),
    view: await p50(async () => ok(await svc.savedView('open-by-priority'))),
  };
  await svc.saveKept();
  const cli = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [BIN, '--board', dir, '--json', 'runs', '--view', 'open-by-priority', '--as', 'mira@example.com'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(r.stderr);
    cli.push(performance.now() - t);
  }
  out.cli = median(cli);
  return out;
}

export async function flowSection({ quick, runs = quick ? 1000 : 10_000 }) {
  const rows = [];
  for (const plain of [false, true]) {
    const base = mkdtempSync(path.join(tmpdir(), 'wb-bench-flow-'));
    try {
      const dir = path.join(base, 'board');
      const t0 = performance.now();
      await fill(await exampleBoard(dir, plain), runs);
      const filled = (performance.now() - t0) / 1000;
      rows.push({ board: plain ? 'without flow-1' : 'flow-1', runs, filledSeconds: filled, ...(await measure(dir)) });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
  const f = (x) => x.toFixed(1);
  const [flow, plain] = rows;
  const ratio = (k) => `${(flow[k] / plain[k]).toFixed(2)}×`;
  return {
    lines: [
      `Flow: ${runs} open runs (a third contract approvals, a third payments waiting for finance, a third payments blocked by a contract), p50 of ${CALLS} calls, ms; runs --view as a CLI process: median of 3`,
      '',
      '| board | blocked runs | get_work, agent (limit 20) | get_work, Mira (limit 20) | My work (get_work pages + first view) | runs --view (service) | runs --view (CLI process) |',
      '|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.board} | ${r.blocked} | ${f(r.agent)} | ${f(r.person)} | ${f(r.myWork)} | ${f(r.view)} | ${f(r.cli)} |`),
      `| flow-1 / without | | ${ratio('agent')} | ${ratio('person')} | ${ratio('myWork')} | ${ratio('view')} | ${ratio('cli')} |`,
      '',
      `(boards filled through start_run in ${rows.map((r) => `${r.filledSeconds.toFixed(0)} s`).join(' and ')})`,
    ],
    json: rows,
  };
}

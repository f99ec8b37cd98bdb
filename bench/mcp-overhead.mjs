// MCP's own cost per call, for `npm run bench`: the same calls through a real `workboard mcp`
// process (the SDK's client, over stdio) and made directly on a Service, each side the only
// coordinator on a board of its own. It runs in a fresh process (forked by bench.mjs) so that
// neither side carries the heap of the bench's other sections. The runs are started beforehand
// by a third process, so both sides read them as a coordinator that did not start them would;
// the two series alternate call by call, so the machine's noise falls on both.
//   node bench/mcp-overhead.mjs <runs>   → sends {<side> <tool>: [ms, …]} to its parent
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Board } from '../dist/board/board.js';
import { Service } from '../dist/service/service.js';
import { resolveActor } from '../dist/service/identity.js';
import { copyExample } from './gen-board.mjs';
import { REVIEWED } from './expense-acts.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const N = Number(process.argv[2] ?? 40);
let rid = 0;
const req = () => `mcp-bench-${process.pid}-${++rid}`;

/** A copy of the example board with `n` runs started on it by a process of its own; their ids. */
function boardWithRuns(n) {
  const dir = copyExample('wb-bench-mcp-');
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  const mod = (rel) => JSON.stringify(path.join(here, '../dist', rel));
  const code = `
    const { Board } = await import(${mod('board/board.js')});
    const { Service } = await import(${mod('service/service.js')});
    const { resolveActor } = await import(${mod('service/identity.js')});
    const board = await Board.open(${JSON.stringify(dir)});
    const svc = await Service.open(board);
    const mira = resolveActor(board.manifest, 'mira@example.com').actor;
    const ids = [];
    for (let i = 0; i < ${n}; i++) {
      const r = await svc.call('start_run', { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 1 + i, receiptUrl: 'https://example.com/r' }, requestId: 'pre-' + i }, mira);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      ids.push(r.data.run.id);
    }
    process.stdout.write(JSON.stringify(ids));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`starting runs failed: ${r.stderr}`);
  return { dir, runs: JSON.parse(r.stdout) };
}

const via = boardWithRuns(N);
const direct = boardWithRuns(N);
const board = await Board.open(direct.dir);
const svc = await Service.open(board);
const agent = resolveActor(board.manifest, 'reviewer').actor;
const client = new Client({ name: 'bench', version: '1' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(here, '../bin/workboard.js'), 'mcp', '--as', 'reviewer', '--board', via.dir] }));

const check = (r, name) => {
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  return r.data;
};
const sides = {
  mcp: async (name, args) => check((await client.callTool({ name, arguments: args })).structuredContent, name),
  direct: async (name, args) => check(await svc.call(name, args, agent), name),
};
const t = {};
const timed = async (side, name, args) => {
  const t0 = performance.now();
  const data = await sides[side](name, args);
  (t[`${side} ${name}`] ??= []).push(performance.now() - t0);
  return data;
};
// Both sides index their board once before the clock starts.
await sides.mcp('get_work', { limit: 5 });
await sides.direct('get_work', { limit: 5 });
const SUBMIT = REVIEWED;
for (let i = 0; i < N; i++) {
  for (const [side, runId] of [
    ['mcp', via.runs[i]],
    ['direct', direct.runs[i]],
  ]) {
    await timed(side, 'describe', {});
    await timed(side, 'get_work', { limit: 5 });
    const c = await timed(side, 'claim', { runId, stepId: 'review_claim', requestId: req() });
    await timed(side, 'submit', { token: c.token, ...SUBMIT, requestId: req() });
  }
}
await client.close();
for (const b of [via, direct]) rmSync(b.dir, { recursive: true, force: true });
process.send(t);
process.disconnect();

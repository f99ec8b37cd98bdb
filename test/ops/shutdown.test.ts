/**
 * serve's clean shutdown under load (docs/operations.md, Shutdown): 8 HTTP
 * clients start, claim and submit runs as fast as they can; SIGTERM stops
 * serve while they do. It exits 0, and every transition a client was told
 * succeeded is on the board afterwards. A second SIGTERM right after the
 * first stops it at once, still 0, and still loses nothing acknowledged
 * (what a commit cut short after its flush left is rolled forward by the
 * next opening's recovery).
 */
import { connect } from 'node:net';
import { Board } from '../../src/board/board.js';
import { Service } from '../../src/service/service.js';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { cleanupHarnesses, CLAIM_REVIEW_SUBMISSION, type Data } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { claimBoard, serveOps, tokenFor, type Served } from './support.js';

const CLIENTS = 8;
/** Acknowledged transitions to see before the signal, so it lands in the middle of the load. */
const BEFORE_SIGNAL = 60;

const running: Served[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const s of running.splice(0)) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
});
afterAll(cleanupHarnesses);

/** What the clients were told: per run, the transitions acknowledged. */
interface Told {
  started: string[];
  claimed: Set<string>;
  submitted: Set<string>;
  count(): number;
}

/** 8 clients cycling start_run → claim → submit until serve stops answering. */
function load(mcp: URL, ann: string, scout: string): { told: Told; done: Promise<void> } {
  const told: Told = { started: [], claimed: new Set(), submitted: new Set(), count: () => told.started.length + told.claimed.size + told.submitted.size };
  let n = 0;
  /** The tool's result, or null once serve no longer answers (refused, reset, or its answer lost). */
  const call = async (token: string, name: string, args: Record<string, unknown>): Promise<Data | null> => {
    try {
      const res = await fetch(mcp, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++n, method: 'tools/call', params: { name, arguments: { ...args, requestId: `sd-${n}` } } }),
      });
      if (res.status !== 200) return null;
      const r = (await res.json()).result.structuredContent;
      if (!r.ok) throw new Error(`${name} refused: ${JSON.stringify(r.error)}`);
      return r.data;
    } catch (e) {
      if (e instanceof Error && e.message.includes('refused:')) throw e;
      return null;
    }
  };
  const client = async (i: number) => {
    for (;;) {
      const s = await call(ann, 'start_run', { process: 'claim-review', inputs: { claimant: 'ann@example.com', amount: i } });
      if (!s) return;
      told.started.push(s.run.id);
      const c = await call(scout, 'claim', { runId: s.run.id, stepId: 'check' });
      if (!c) return;
      told.claimed.add(s.run.id);
      if (!(await call(scout, 'submit', { token: c.token, ...CLAIM_REVIEW_SUBMISSION }))) return;
      told.submitted.add(s.run.id);
    }
  };
  return { told, done: Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i))).then(() => undefined) };
}

/** Every acknowledged transition, read from the board afresh (after the recovery any next start does). */
async function lost(root: string, told: Told): Promise<string[]> {
  const board = await Board.open(root);
  await board.store.recover();
  const service = await Service.open(board);
  const problems: string[] = [];
  for (const id of told.started) {
    const r = await service.call('get_run', { runId: id }, { kind: 'person', email: 'ann@example.com', operator: false });
    if (!r.ok) {
      problems.push(`${id}: started, but get_run answers ${r.error.code}`);
      continue;
    }
    const check = r.data.steps.find((s) => s.id === 'check')!;
    if (told.submitted.has(id) && check.state !== 'done') problems.push(`${id}: submitted, but check is ${check.state}`);
    else if (told.claimed.has(id) && !told.submitted.has(id) && check.state !== 'claimed' && check.state !== 'done') problems.push(`${id}: claimed, but check is ${check.state}`);
  }
  return problems;
}

async function loadedServe() {
  const h = await claimBoard();
  const ann = await tokenFor(h, 'ann@example.com');
  const scout = await tokenFor(h, 'scout');
  const s = await serveOps(h.root, ['--log-format', 'json']);
  running.push(s);
  const l = load(s.mcp, ann, scout);
  await until(() => (l.told.count() >= BEFORE_SIGNAL ? true : undefined), 60_000, 10);
  return { h, s, ...l };
}

it("SIGTERM during 8 clients' load: serve exits 0 and every acknowledged transition is on the board", async () => {
  const { h, s, told, done } = await loadedServe();
  s.child.kill('SIGTERM');
  const exit = await s.exited;
  await done;
  expect(exit).toEqual({ code: 0, signal: null });
  expect(told.count()).toBeGreaterThanOrEqual(BEFORE_SIGNAL);
  expect(await lost(h.root, told)).toEqual([]);
  const said = s.lines().map((l) => JSON.parse(l).msg as string);
  expect(said).toContain('stopped');
  expect(said.some((m) => m.startsWith('stopping: '))).toBe(true);
}, 120_000);

it('a second SIGTERM stops serve at once, exit 0, with every acknowledged transition kept', async () => {
  const { h, s, told, done } = await loadedServe();
  // A request whose body never finishes keeps the first stop waiting (for its grace), so the second signal finds it stopping.
  // It asks to continue: serve's "100 Continue" says it holds the request as in flight, which a signal sent before could beat.
  const slow = connect(Number(s.mcp.port), '127.0.0.1');
  slow.on('error', () => undefined);
  await new Promise((r) => slow.once('connect', r));
  const held = new Promise<Buffer>((r) => slow.once('data', r));
  slow.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${await tokenFor(h, 'rival')}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\nexpect: 100-continue\r\n\r\n`);
  expect((await held).toString()).toMatch(/^HTTP\/1\.1 100 /);
  slow.write('{"jsonrpc"');
  s.child.kill('SIGTERM');
  await until(() => (s.lines().some((l) => JSON.parse(l).msg.startsWith('stopping: ')) ? true : undefined), 10_000, 5);
  expect(s.child.exitCode).toBeNull();
  s.child.kill('SIGTERM');
  const exit = await s.exited;
  await done;
  expect(exit).toEqual({ code: 0, signal: null });
  expect(s.lines().some((l) => JSON.parse(l).msg === 'a second signal: stopping at once')).toBe(true);
  expect(await lost(h.root, told)).toEqual([]);
  slow.destroy();
}, 120_000);

/**
 * serve's operations endpoints on a real `workboard serve --http` (docs/operations.md):
 * /healthz and /readyz answer without a token and name no board content;
 * /readyz names `commit_log` when the commit log's folder cannot be written
 * and `outbox` when a hanging webhook holds a notification past the
 * threshold; /metrics parses as Prometheus text and counts exactly the calls
 * made; it answers loopback callers that came through no proxy, or the
 * metrics token.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { cleanupHarnesses, CLAIM_REVIEW_SUBMISSION } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { notifyBoard, toApproval, webhookReceiver, type Receiver } from '../notify/support.js';
import { call, claimBoard, serveOps, tokenFor, type Served } from './support.js';

const running: Served[] = [];
const cleanups: (() => Promise<void>)[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(cleanupHarnesses);

const get = async (base: URL, p: string, headers: Record<string, string> = {}) => {
  const res = await fetch(new URL(p, base), { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

/** A folder made read-only for everyone, root included: a read-only bind mount as root, else its mode. Undo with what it returns. */
function readOnly(dir: string): () => Promise<void> {
  if (process.getuid?.() === 0) {
    execFileSync('mount', ['--bind', dir, dir]);
    execFileSync('mount', ['-o', 'remount,ro,bind', dir]);
    return async () => void execFileSync('umount', [dir]);
  }
  execFileSync('chmod', ['0555', dir]);
  return async () => void execFileSync('chmod', ['0755', dir]);
}

describe('health and readiness', () => {
  it('/healthz and /readyz answer without a token, every check ok, and name nothing of the board', async () => {
    const h = await claimBoard();
    await h.start('claim-review', { claimant: 'ann@example.com', amount: 12 });
    const s = await serveOps(h.root);
    running.push(s);
    const health = await get(s.base, '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toEqual({ status: 'ok' });
    const ready = await get(s.base, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ status: 'ready', failed: [], checks: { board: 'ok', recovery: 'ok', commit_log: 'ok', outbox: 'ok', sync: 'ok', event_loop: 'ok' } });
    for (const body of [health.text, ready.text]) for (const word of ['svc-board', 'claim-review', 'ann@', h.root]) expect(body).not.toContain(word);
  }, 60_000);

  it("/readyz fails naming commit_log while the commit log's folder cannot be written, and recovers once it can; /healthz stays ok", async () => {
    const h = await claimBoard();
    const logDir = path.join(h.root, '.work/log');
    await fs.mkdir(logDir, { recursive: true });
    const s = await serveOps(h.root);
    running.push(s);
    expect((await get(s.base, '/readyz')).status).toBe(200);
    const undo = readOnly(logDir);
    cleanups.push(undo);
    const ready = await get(s.base, '/readyz');
    expect(ready.status).toBe(503);
    const body = JSON.parse(ready.text);
    expect(body.failed).toEqual(['commit_log']);
    expect(body.checks.commit_log).toMatch(/^the commit log cannot be written \((EROFS|EACCES)\)$/);
    expect((await get(s.base, '/healthz')).status).toBe(200);
    await cleanups.pop()!();
    expect((await get(s.base, '/readyz')).status).toBe(200);
  }, 60_000);

  it('/readyz fails naming outbox while a hanging webhook holds a notification past --outbox-stuck', async () => {
    const rx: Receiver = await webhookReceiver();
    cleanups.push(() => rx.close());
    rx.answer = () => 'hold';
    const h = await notifyBoard({ notifications: { webhook: { url: rx.url } } });
    const s = await serveOps(h.root, ['--outbox-stuck', '1']);
    running.push(s);
    expect((await get(s.base, '/readyz')).status).toBe(200);
    // The approval tells finance by webhook, which never answers.
    await toApproval(h, 'live');
    await rx.received(1);
    const body = await until(
      async () => {
        const r = await get(s.base, '/readyz');
        return r.status === 503 ? JSON.parse(r.text) : undefined;
      },
      9_000,
      100,
    );
    expect(body.failed).toEqual(['outbox']);
    expect(body.checks.outbox).toMatch(/^a notification has waited \d+ s past its time \(stuck after 1 s\)$/);
    // Once the webhook answers, the delivery is recorded and the outbox is ready again.
    rx.release();
    await until(async () => ((await get(s.base, '/readyz')).status === 200 ? true : undefined), 30_000, 100);
  }, 90_000);
});

/**
 * The exposition read strictly as Prometheus's text format (0.0.4): every line
 * a `# HELP`, a `# TYPE` before its family's samples, or `name{labels} value`;
 * counters named `_total`; no sample of an undeclared family. Samples by
 * `name{labels as JSON, keys sorted}`. Problems are collected, not thrown.
 */
function parseExposition(text: string): { samples: Map<string, number>; problems: string[] } {
  const samples = new Map<string, number>();
  const problems: string[] = [];
  const types = new Map<string, string>();
  const line = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
  const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:\\.|[^"\\])*)"(?:,|$)/;
  for (const l of text.split('\n')) {
    if (l === '' || l.startsWith('# HELP ')) continue;
    const t = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(l);
    if (t) {
      if (types.has(t[1]!)) problems.push(`${t[1]} declared twice`);
      types.set(t[1]!, t[2]!);
      if (t[2] === 'counter' && !t[1]!.endsWith('_total')) problems.push(`counter ${t[1]} is not named _total`);
      continue;
    }
    const m = line.exec(l);
    if (!m) {
      problems.push(`not a sample: ${l}`);
      continue;
    }
    const family = [...types.keys()].find((f) => m[1] === f || (['histogram', 'summary'].includes(types.get(f)!) && /^_(bucket|sum|count)$/.test(m[1]!.slice(f.length)) && m[1]!.startsWith(f)));
    if (!family) problems.push(`${m[1]} has no # TYPE before it`);
    const labels: Record<string, string> = {};
    let rest = m[2] ?? '';
    while (rest !== '') {
      const a = label.exec(rest);
      if (!a) {
        problems.push(`bad labels: ${l}`);
        break;
      }
      labels[a[1]!] = a[2]!;
      rest = rest.slice(a[0].length);
    }
    const value = Number(m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : m[3]);
    if (Number.isNaN(value) && m[3] !== 'NaN') problems.push(`bad value: ${l}`);
    const sorted = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
    samples.set(`${m[1]}${JSON.stringify(sorted)}`, value);
  }
  return { samples, problems };
}

describe('metrics', () => {
  it('/metrics parses as Prometheus text and counts exactly the calls made, the commits and what the open runs hold', async () => {
    const h = await claimBoard();
    const ann = await tokenFor(h, 'ann@example.com');
    const scout = await tokenFor(h, 'scout');
    const s = await serveOps(h.root);
    running.push(s);
    const rid = () => `ops-${Math.random().toString(36).slice(2)}`;
    const r1 = await call(s.mcp, ann, 'start_run', { process: 'claim-review', inputs: { claimant: 'ann@example.com', amount: 10 }, requestId: rid() });
    const r2 = await call(s.mcp, ann, 'start_run', { process: 'claim-review', inputs: { claimant: 'ann@example.com', amount: 20 }, requestId: rid() });
    for (let i = 0; i < 3; i++) expect((await call(s.mcp, scout, 'get_work', {})).ok).toBe(true);
    const c = await call(s.mcp, scout, 'claim', { runId: r1.data.run.id, stepId: 'check', requestId: rid() });
    const missing = await call(s.mcp, scout, 'claim', { runId: 'r_nosuchrun0000000000000000', stepId: 'check', requestId: rid() });
    expect(missing.ok).toBe(false);
    const sub = await call(s.mcp, scout, 'submit', { token: c.data.token, ...CLAIM_REVIEW_SUBMISSION, requestId: rid() });
    expect([r1.ok, r2.ok, c.ok, sub.ok]).toEqual([true, true, true, true]);

    const m = await get(s.base, '/metrics');
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const { samples, problems } = parseExposition(m.text);
    expect(problems).toEqual([]);
    const of = (name: string) => new Map([...samples].filter(([k]) => k.startsWith(`${name}{`)).map(([k, v]) => [k.slice(name.length), v]));
    const key = (tool: string, code: string) => JSON.stringify({ code, tool, transport: 'mcp' });
    expect(Object.fromEntries(of('workboard_tool_calls_total'))).toEqual({
      [key('start_run', 'ok')]: 2,
      [key('get_work', 'ok')]: 3,
      [key('claim', 'ok')]: 1,
      [key('claim', missing.error.code)]: 1,
      [key('submit', 'ok')]: 1,
    });
    expect(samples.get('workboard_tool_call_duration_seconds_count{"tool":"get_work","transport":"mcp"}')).toBe(3);
    expect(samples.get('workboard_tool_call_duration_seconds_bucket{"le":"+Inf","tool":"start_run","transport":"mcp"}')).toBe(2);
    // Two starts, a claim and a submit: four commits that moved a run.
    expect(samples.get('workboard_transitions_total{}')).toBe(4);
    expect(samples.get('workboard_commit_log_group_size_count{}')).toBeGreaterThanOrEqual(1);
    expect(samples.get('workboard_open_runs{"process":"claim-review"}')).toBe(2);
    // r2 waits at check for an agent; r1 waits at approve for finance.
    expect(samples.get('workboard_ready_steps{"process":"claim-review","step":"check"}')).toBe(1);
    expect(samples.get('workboard_waiting_work_items{"process":"claim-review","step":"approve"}')).toBe(1);
    expect(samples.get('workboard_oldest_waiting_seconds{"for":"person"}')).toBeGreaterThanOrEqual(0);
    expect(samples.get('process_resident_memory_bytes{}')).toBeGreaterThan(0);
    // No run id and no person is a label value anywhere.
    for (const word of [r1.data.run.id, r2.data.run.id, 'ann@example.com', 'scout']) expect(m.text).not.toContain(word);
  }, 90_000);

  it('/metrics refuses a request a proxy forwarded and any non-loopback caller without the token; the token opens it', async () => {
    const h = await claimBoard();
    const secret = 'metrics-token-for-the-test-0123456789';
    const plain = await serveOps(h.root);
    running.push(plain);
    expect((await get(plain.base, '/metrics', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(403);
    expect((await get(plain.base, '/metrics', { forwarded: 'for=203.0.113.9' })).status).toBe(403);
    expect((await get(plain.base, '/metrics', { authorization: `Bearer ${secret}`, 'x-forwarded-for': '203.0.113.9' })).status).toBe(403);
    await plain.stop();
    const guarded = await serveOps(h.root, [], { WORKBOARD_METRICS_TOKEN: secret });
    running.push(guarded);
    expect((await get(guarded.base, '/metrics', { authorization: 'Bearer wrong', 'x-forwarded-for': '203.0.113.9' })).status).toBe(403);
    expect((await get(guarded.base, '/metrics', { authorization: `Bearer ${secret}`, 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
    const off = await serveOps(h.root, ['--no-metrics']);
    running.push(off);
    expect((await get(off.base, '/metrics')).status).toBe(404);
    expect((await get(off.base, '/readyz')).status).toBe(200);
  }, 60_000);
});

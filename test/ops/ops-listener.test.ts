/**
 * `serve --ops`: /healthz, /readyz and /metrics on a listener of their own,
 * answered by a thread that no tool call holds (docs/operations.md "The ops
 * listener"). On a real serve: the three answer there as on serve's own
 * address, and nothing else does; while serve's main event loop is held
 * busy (through the inspector, as a runaway computation would hold it) the
 * thread still answers at once, /healthz says the loop is stuck and
 * /readyz names `event_loop`; once the loop turns again both are well.
 */
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { cleanupHarnesses } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { claimBoard, serveOps, type Served } from './support.js';

const running: Served[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});
afterAll(cleanupHarnesses);

const get = async (base: URL, p: string) => {
  const res = await fetch(new URL(p, base));
  return { status: res.status, text: await res.text() };
};

/** The ops listener's address, from the line serve prints. */
async function opsBase(s: Served): Promise<URL> {
  const at = await until(
    () =>
      s
        .lines()
        .map((l) => /also at (http:\S+), answered by a thread/.exec(l)?.[1])
        .find(Boolean),
    10_000,
  );
  return new URL('/', at);
}

/** Hold serve's main thread busy for `ms` through its inspector; resolves once the busy evaluation is sent. */
function holdMainLoop(wsUrl: string, ms: number): Promise<void> {
  const script = `
    const ws = new WebSocket(${JSON.stringify(wsUrl)});
    ws.onopen = () => { ws.send(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: 'const t = Date.now() + ${ms}; while (Date.now() < t);' } })); console.log('sent'); };
    ws.onmessage = () => process.exit(0);
  `;
  const child = spawn(process.execPath, ['--experimental-websocket', '--no-warnings', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the inspector client exited ${code}`))));
  });
}

describe('the ops listener', () => {
  it('answers the three ops paths as serve does, and nothing else', async () => {
    const h = await claimBoard();
    await h.start('claim-review', { claimant: 'ann@example.com', amount: 12 });
    const s = await serveOps(h.root, ['--ops', '127.0.0.1:0']);
    running.push(s);
    const ops = await opsBase(s);
    expect(ops.port).not.toBe(s.base.port);
    await until(async () => (await get(ops, '/readyz')).status === 200 || undefined, 10_000);
    for (const base of [s.base, ops]) {
      expect(JSON.parse((await get(base, '/healthz')).text)).toEqual({ status: 'ok' });
      const ready = await get(base, '/readyz');
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.text)).toEqual({ status: 'ready', failed: [], checks: { board: 'ok', recovery: 'ok', commit_log: 'ok', outbox: 'ok', sync: 'ok', event_loop: 'ok' } });
      const metrics = await get(base, '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.text).toMatch(/^workboard_open_runs\{process="claim-review"\} 1$/m);
    }
    for (const p of ['/mcp', '/', '/runs']) expect((await get(ops, p)).status).toBe(404);
  }, 60_000);

  it("answers at once while serve's main loop is held, saying it is stuck, and is well again once it turns", async () => {
    const h = await claimBoard();
    const s = await serveOps(h.root, ['--ops', '127.0.0.1:0'], { NODE_OPTIONS: '--inspect=127.0.0.1:0' });
    running.push(s);
    const ops = await opsBase(s);
    await until(async () => (await get(ops, '/readyz')).status === 200 || undefined, 10_000);
    const ws = s
      .lines()
      .map((l) => /Debugger listening on (ws:\S+)/.exec(l)?.[1])
      .find(Boolean);
    expect(ws).toBeDefined();
    await holdMainLoop(ws!, 9000);
    // Past the stuck limit (5 s) the thread says so; serve's own address cannot answer at all meanwhile.
    await until(async () => (await get(ops, '/healthz')).status === 503 || undefined, 8500, 200);
    const health = JSON.parse((await get(ops, '/healthz')).text);
    expect(health.status).toBe('stuck');
    expect(health.stalledSeconds).toBeGreaterThanOrEqual(5);
    const ready = await get(ops, '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text).failed).toEqual(['event_loop']);
    // Once the loop turns again, both are well.
    await until(async () => ((await get(ops, '/healthz')).status === 200 && (await get(ops, '/readyz')).status === 200) || undefined, 20_000, 200);
  }, 60_000);

  it('refuses an address it cannot listen on, and an address that is not host:port', async () => {
    const h = await claimBoard();
    const a = await serveOps(h.root, ['--ops', '127.0.0.1:0']);
    running.push(a);
    const taken = await opsBase(a);
    const child = spawn(process.execPath, [new URL('../../bin/workboard.js', import.meta.url).pathname, 'serve', '--board', h.root, '--ops', `127.0.0.1:${taken.port}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += String(d)));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).not.toBe(0);
    expect(err).toContain(`127.0.0.1:${taken.port}`);
    const bad = spawn(process.execPath, [new URL('../../bin/workboard.js', import.meta.url).pathname, 'serve', '--board', h.root, '--ops', 'nowhere'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    bad.stderr.on('data', (d) => (said += String(d)));
    expect(await new Promise<number | null>((r) => bad.once('exit', r))).not.toBe(0);
    expect(said).toContain('--ops expects host:port, got "nowhere"');
  }, 60_000);
});

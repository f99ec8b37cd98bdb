/**
 * `workboard mcp` watches the open runs' folders itself
 * (src/service/own-run-watch.ts): its get_work reuses what it read of each
 * open run instead of looking at every folder on every call, so it must hear
 * of a change the folders' own times do not show, a step file written in
 * place as an editor does. Real processes: the CLI's `mcp` over stdio, the
 * edit by this test. The watches do not keep the process running: it ends
 * with its input.
 */
import { spawn } from 'node:child_process';
import { cpSync, promises as fs, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { resolveActor } from '../../src/service/identity.js';
import { Service } from '../../src/service/service.js';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { until } from '../support/until.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(path.join(tmpdir(), 'wb-mcp-watch-'));
  cpSync(path.join(ROOT, 'examples/board'), dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Entry = { runId: string; stepId?: string; readySince?: string };

it('hears of a step file edited in place at once, and ends with its input', async () => {
  // A run whose first step waits for an agent, started in this process (a fixture: the stdio server is what is tested).
  const service = await Service.open(await Board.open(dir));
  const mira = resolveActor(service.board.manifest, 'mira@example.com');
  if (!mira.ok) throw new Error(mira.message);
  const started = (await service.call(
    'start_run',
    { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 12, receiptUrl: 'https://example.com/r' }, requestId: 'watch-1' },
    mira.actor,
  )) as {
    ok: boolean;
    data: { run: { id: string } };
  };
  expect(started.ok).toBe(true);
  const runId = started.data.run.id;

  const child = spawn(process.execPath, [BIN, 'mcp', '--as', 'reviewer', '--board', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (err += String(d)));
  let id = 0;
  const request = async (method: string, params: unknown): Promise<any> => {
    const mine = ++id;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
    return until(
      () =>
        out
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { id?: number; result?: unknown })
          .find((m) => m.id === mine)?.result,
      15_000,
    );
  };
  const work = async (): Promise<Entry | undefined> => {
    const r = (await request('tools/call', { name: 'get_work', arguments: {} })) as { structuredContent: { ok: boolean; data: { items: Entry[] } } };
    expect(r.structuredContent.ok, err).toBe(true);
    return r.structuredContent.data.items.find((i) => i.runId === runId);
  };
  try {
    await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'watch-test', version: '1' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const before = await work();
    expect(before?.stepId).toBeDefined();

    // Written in place, as an editor does: neither the run's folder nor its leases folder changes its time.
    const file = path.join(dir, 'runs', runId, `${before!.stepId}.md`);
    const folder = await fs.stat(path.join(dir, 'runs', runId));
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain(`readySince: "${before!.readySince}"`);
    const handle = await fs.open(file, 'r+');
    await handle.truncate(0);
    await handle.write(text.replace(`readySince: "${before!.readySince}"`, 'readySince: "2026-01-02T03:04:05.000Z"'), 0);
    await handle.close();
    expect((await fs.stat(path.join(dir, 'runs', runId))).mtimeMs).toBe(folder.mtimeMs);

    // The watch reports it: the next calls read the file again (a read that looked only at the folder would not).
    const after = await until(async () => ((await work())?.readySince === '2026-01-02T03:04:05.000Z' ? true : undefined), 10_000).catch(() => false);
    expect(after, 'get_work showed the edit').toBe(true);
  } finally {
    child.stdin.end();
  }
  // Nothing but its input kept it running.
  expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running after 20 s'), 20_000))])).toBe(0);
}, 60_000);

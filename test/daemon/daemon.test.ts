/**
 * The daemon: deadlines happen without anyone calling, stamped at their own
 * moment; after downtime they are applied in order; two daemons never apply
 * one transition twice; hand edits are adopted or refused as they land.
 * Real `workboard serve` processes on real files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { addAgent } from '../../src/board/people.js';
import { publish } from '../../src/board/processes.js';
import { verifyChain } from '../../src/board/audit.js';
import { resolveActor } from '../../src/service/identity.js';
import { Service, SERVER_OFFER } from '../../src/service/service.js';

const BIN = fileURLToPath(new URL('../../bin/workboard.js', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

const TIMER = `---
name: timer
description: Wait until a moment, then wait a little more, then finish.
inputs:
  at: datetime
steps:
  - id: hold
    wait_until: inputs.at
  - id: extra
    wait: 1m
  - id: done
    finish: done
---
Body.
`;

async function board(): Promise<{ board: Board; service: Service; bot: ReturnType<typeof resolveActor> }> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'wb-daemon-'));
  const b = await Board.init(dir, { name: 'daemon', actor: 'test' });
  await addAgent(b, 'test', 'bot');
  await fs.mkdir(path.join(dir, 'processes/timer'), { recursive: true });
  await fs.writeFile(path.join(dir, 'processes/timer/PROCESS.md'), TIMER);
  await publish(b, { folder: path.join(dir, 'processes/timer'), roles: {}, actor: 'test', offer: SERVER_OFFER });
  return { board: b, service: await Service.open(b), bot: resolveActor(b.manifest, 'bot') };
}

function serve(root: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--board', root], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve) => child.stdout!.on('data', (d) => String(d).includes('coordinating') && resolve(child)));
}

async function until<T>(what: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition never held');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function events(b: Board, runId: string) {
  const text = await fs.readFile(b.store.abs(`runs/${runId}/audit.jsonl`), 'utf8');
  return verifyChain(text).events;
}

describe('workboard serve', () => {
  it('applies a deadline with nobody calling, stamped at the moment it fell due', async () => {
    const { board: b, service, bot } = await board();
    await serve(b.root);
    const at = new Date(Date.now() + 1500).toISOString();
    const r = (await service.call('start_run', { process: 'timer', inputs: { at }, requestId: 's1' }, bot.ok ? bot.actor : (undefined as never))) as { ok: true; data: { run: { id: string } } };
    const runId = r.data.run.id;
    const done = await until(async () => {
      const doc = await b.store.read(`runs/${runId}/hold.md`);
      return doc?.data.state === 'done' ? doc : undefined;
    });
    expect(done.data.at).toBe(at);
    expect((await b.store.read(`runs/${runId}/extra.md`))?.data.state).toBe('waiting');
  }, 30_000);

  it('after downtime applies everything that came due, in order, each at its own time', async () => {
    const { board: b, bot } = await board();
    // The run starts ten minutes ago while no daemon runs: hold falls due at -8 min, extra (1m) at -7 min.
    const t0 = Date.now() - 10 * 60_000;
    const past = await Service.open(b, { now: () => new Date(t0) });
    const holdAt = new Date(t0 + 2 * 60_000).toISOString();
    const r = (await past.call('start_run', { process: 'timer', inputs: { at: holdAt }, requestId: 's1' }, bot.ok ? bot.actor : (undefined as never))) as { ok: true; data: { run: { id: string; state: string } } };
    const runId = r.data.run.id;
    expect(r.data.run.state).toBe('waiting');
    await serve(b.root);
    await until(async () => ((await b.store.read(`runs/${runId}/RUN.md`))?.data.state === 'ended' ? true : undefined));
    const completed = (await events(b, runId)).filter((e) => e.action === 'step.completed').map((e) => e.entity);
    expect(completed).toEqual([`${runId}/hold`, `${runId}/extra`]);
    expect((await b.store.read(`runs/${runId}/hold.md`))?.data.at).toBe(holdAt);
    expect((await b.store.read(`runs/${runId}/extra.md`))?.data.at).toBe(new Date(t0 + 3 * 60_000).toISOString());
    expect((await b.store.read(`runs/${runId}/RUN.md`))?.data.outcome).toBe('done');
  }, 30_000);

  it('two daemons on one board never apply one transition twice', async () => {
    const { board: b, service, bot } = await board();
    await Promise.all([serve(b.root), serve(b.root)]);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const at = new Date(Date.now() + 800 + i * 50).toISOString();
      const r = (await service.call('start_run', { process: 'timer', inputs: { at }, requestId: `t${i}` }, bot.ok ? bot.actor : (undefined as never))) as { ok: true; data: { run: { id: string } } };
      ids.push(r.data.run.id);
    }
    for (const id of ids) {
      await until(async () => ((await b.store.read(`runs/${id}/hold.md`))?.data.state === 'done' ? true : undefined));
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const id of ids) {
      const completed = (await events(b, id)).filter((e) => e.action === 'step.completed' && e.entity === `${id}/hold`);
      expect(completed).toHaveLength(1);
    }
  }, 60_000);

  it('adopts a valid hand edit and refuses an invalid one, listing it for doctor until it is fixed', async () => {
    const { board: b, service, bot } = await board();
    await serve(b.root);
    const at = new Date(Date.now() + 3600_000).toISOString();
    const r = (await service.call('start_run', { process: 'timer', inputs: { at }, requestId: 's1' }, bot.ok ? bot.actor : (undefined as never))) as { ok: true; data: { run: { id: string } } };
    const runId = r.data.run.id;
    const file = b.store.abs(`runs/${runId}/RUN.md`);
    const good = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, good.replace(/^# .*$/m, '# A note from a person'));
    await until(async () => ((await events(b, runId)).some((e) => e.action === 'run.external-edit') ? true : undefined));
    expect((await fs.readFile(file, 'utf8')).includes('# A note from a person')).toBe(true);

    const adopted = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, adopted.replace(/^mode: live$/m, 'mode: sometimes'));
    const refused = await until(async () => {
      const raw = await fs.readFile(b.store.abs('.work/refused.json'), 'utf8').catch(() => '{}');
      const v = JSON.parse(raw) as Record<string, string[]>;
      return v[runId];
    });
    expect(refused.join('\n')).toMatch(/RUN\.md/);
    expect(refused.join('\n')).toMatch(/mode/);
    const write = await service.call('cancel', { runId, reason: 'x', requestId: 'c1' }, { kind: 'person', email: 'op@example.com', operator: true });
    expect(write).toMatchObject({ ok: false, error: { code: 'conflict', issues: expect.arrayContaining(['board_file_invalid']) } });

    await fs.writeFile(file, adopted);
    await until(async () => {
      const raw = await fs.readFile(b.store.abs('.work/refused.json'), 'utf8').catch(() => '{}');
      return (JSON.parse(raw) as Record<string, unknown>)[runId] === undefined ? true : undefined;
    });
  }, 60_000);
});

/**
 * The daemon: deadlines happen without anyone calling, stamped at their own
 * moment; after downtime they are applied in order; two daemons never apply
 * one transition twice; hand edits are adopted or refused as they land.
 * Timing runs an in-process daemon on a fake clock the test moves (shared
 * with the service); two daemons and hand edits run real `workboard serve`
 * processes on real files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { EDIT_SETTLE_MS } from '../../src/daemon/edit-settle.js';
import { addAgent, addOperator, editManifest } from '../../src/board/people.js';
import { publish } from '../../src/board/processes.js';
import { verifyChain } from '../../src/board/audit.js';
import { allEntries } from '../../src/notify/outbox.js';
import { dueKeys } from '../../src/notify/schedule.js';
import { resolveActor } from '../../src/service/identity.js';
import { offerFor } from '../../src/service/context.js';
import { Service } from '../../src/service/service.js';
import { FakeClock } from './fake-clock.js';
import { until as waitUntil } from '../support/until.js';

const until = <T>(what: () => Promise<T | undefined> | T | undefined, ms = 15_000) => waitUntil(what, ms);

const BIN = fileURLToPath(new URL('../../bin/workboard.js', import.meta.url));
const children: ChildProcess[] = [];
const daemons: Daemon[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill();
  for (const d of daemons.splice(0)) await d.stop();
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

async function board(clock?: FakeClock): Promise<{ board: Board; service: Service; bot: ReturnType<typeof resolveActor> }> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'wb-daemon-'));
  const b = await Board.init(dir, { name: 'daemon', actor: 'test' });
  await addAgent(b, 'test', 'bot');
  await fs.mkdir(path.join(dir, 'processes/timer'), { recursive: true });
  await fs.writeFile(path.join(dir, 'processes/timer/PROCESS.md'), TIMER);
  await publish(b, { folder: path.join(dir, 'processes/timer'), roles: {}, actor: 'test', offer: offerFor(b.manifest) });
  return { board: b, service: await Service.open(b, clock ? { now: clock.now } : {}), bot: resolveActor(b.manifest, 'bot') };
}

/** A daemon in this process on `clock`, with its own board and service (on the same clock), as `serve` would open them. */
async function daemonOn(b: Board, clock: FakeClock): Promise<Daemon> {
  const own = await Board.open(b.root);
  const daemon = new Daemon(own, await Service.open(own, { now: clock.now }), { clock, log: () => {} });
  daemons.push(daemon);
  await daemon.start();
  return daemon;
}

function serve(root: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--board', root], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve) => child.stdout.on('data', (d) => String(d).includes('coordinating') && resolve(child)));
}

async function events(b: Board, runId: string) {
  const text = await fs.readFile(path.join(b.root, `runs/${runId}/audit.jsonl`), 'utf8');
  return verifyChain(text).events;
}

describe('workboard serve', () => {
  it('applies a deadline with nobody calling, stamped at the moment it fell due', async () => {
    const clock = new FakeClock();
    const { board: b, service, bot } = await board(clock);
    await daemonOn(b, clock);
    const at = new Date(clock.now().getTime() + 1500).toISOString();
    const r = (await service.call('start_run', { process: 'timer', inputs: { at }, requestId: 's1' }, bot.ok ? bot.actor : (undefined as never))) as { ok: true; data: { run: { id: string } } };
    const runId = r.data.run.id;
    // The watcher has seen the new run once its re-plan waits on the clock, before the deadline.
    await until(async () => ((clock.nextDue()?.getTime() ?? Infinity) < Date.parse(at) ? true : undefined));
    await clock.advance(1499);
    expect((await b.store.read(`runs/${runId}/hold.md`))?.data.state).toBe('waiting');
    // The daemon wakes a second late: the step is stamped with its deadline, not the waking.
    await clock.advance(1000);
    const done = await until(async () => {
      const doc = await b.store.read(`runs/${runId}/hold.md`);
      return doc?.data.state === 'done' ? doc : undefined;
    });
    expect(done.data.at).toBe(at);
    expect((await b.store.read(`runs/${runId}/extra.md`))?.data.state).toBe('waiting');
  }, 30_000);

  it('sleeps no longer than six hours at a time, and a later deadline still falls due on time', async () => {
    const clock = new FakeClock();
    const { board: b, service, bot } = await board(clock);
    const at = new Date(clock.now().getTime() + 10 * 3600_000).toISOString();
    const r = (await service.call('start_run', { process: 'timer', inputs: { at }, requestId: 's1' }, bot.ok ? bot.actor : (undefined as never))) as { ok: true; data: { run: { id: string } } };
    await daemonOn(b, clock);
    expect(clock.nextDue()?.getTime()).toBe(clock.now().getTime() + 6 * 3600_000);
    await clock.advance(6 * 3600_000);
    expect((await b.store.read(`runs/${r.data.run.id}/hold.md`))?.data.state).toBe('waiting');
    expect(clock.nextDue()?.toISOString()).toBe(at);
    await clock.advance(4 * 3600_000);
    expect((await b.store.read(`runs/${r.data.run.id}/hold.md`))?.data.state).toBe('done');
  }, 30_000);

  it('after downtime applies everything that came due, in order, each at its own time', async () => {
    const clock = new FakeClock();
    const { board: b, service, bot } = await board(clock);
    // The run starts, then ten minutes pass with no daemon: hold falls due at +2 min, extra (1m) at +3 min.
    const t0 = clock.now().getTime();
    const holdAt = new Date(t0 + 2 * 60_000).toISOString();
    const r = (await service.call('start_run', { process: 'timer', inputs: { at: holdAt }, requestId: 's1' }, bot.ok ? bot.actor : (undefined as never))) as {
      ok: true;
      data: { run: { id: string; state: string } };
    };
    const runId = r.data.run.id;
    expect(r.data.run.state).toBe('waiting');
    await clock.advance(10 * 60_000);
    await daemonOn(b, clock);
    await until(async () => ((await b.store.read(`runs/${runId}/RUN.md`))?.data.state === 'ended' ? true : undefined));
    const completed = (await events(b, runId)).filter((e) => e.action === 'step.completed').map((e) => e.entity);
    expect(completed).toEqual([`${runId}/hold`, `${runId}/extra`]);
    expect((await b.store.read(`runs/${runId}/hold.md`))?.data.at).toBe(holdAt);
    expect((await b.store.read(`runs/${runId}/extra.md`))?.data.at).toBe(new Date(t0 + 3 * 60_000).toISOString());
    expect((await b.store.read(`runs/${runId}/RUN.md`))?.data.outcome).toBe('done');
  }, 30_000);

  it('two daemons on one board never apply one transition twice', async () => {
    const { board: b, service, bot } = await board();
    const serves = await Promise.all([serve(b.root), serve(b.root)]);
    const logs = serves.map((c) => {
      let text = '';
      c.stdout!.on('data', (d) => (text += String(d)));
      return () => text;
    });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const at = new Date(Date.now() + 800 + i * 50).toISOString();
      const r = (await service.call('start_run', { process: 'timer', inputs: { at }, requestId: `t${i}` }, bot.ok ? bot.actor : (undefined as never))) as { ok: true; data: { run: { id: string } } };
      ids.push(r.data.run.id);
    }
    for (const id of ids) {
      await until(async () => ((await b.store.read(`runs/${id}/hold.md`))?.data.state === 'done' ? true : undefined));
    }
    // Every deadline has passed, so each daemon's timer is due and runs before the signal is handled; a
    // stopped serve has finished what it had in flight, so nothing can land after this.
    await Promise.all(serves.map((c) => new Promise((r) => (c.once('close', r), c.kill('SIGTERM')))));
    for (const id of ids) {
      const completed = (await events(b, id)).filter((e) => e.action === 'step.completed' && e.entity === `${id}/hold`);
      expect(completed).toHaveLength(1);
      // And exactly one of the two daemons says it applied it.
      expect(logs.flatMap((l) => l().split('\n')).filter((l) => l.endsWith(`${id}: step.completed hold`))).toHaveLength(1);
    }
  }, 60_000);

  it('adopts a valid hand edit and refuses an invalid one, listing it for doctor until it is fixed', async () => {
    const { board: b, service, bot } = await board();
    const at = new Date(Date.now() + 3600_000).toISOString();
    const r = (await service.call('start_run', { process: 'timer', inputs: { at }, requestId: 's1' }, bot.ok ? bot.actor : (undefined as never))) as { ok: true; data: { run: { id: string } } };
    const runId = r.data.run.id;
    // Started before serve, which watches every open run's folder by the time it says it is coordinating:
    // a RUN.md being written when serve first reads a new run would leave the run unwatched.
    await serve(b.root);
    const file = path.join(b.root, `runs/${runId}/RUN.md`);
    const good = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, good.replace(/^# .*$/m, '# A note from a person'));
    await until(async () => ((await events(b, runId)).some((e) => e.action === 'run.external-edit') ? true : undefined));
    expect((await fs.readFile(file, 'utf8')).includes('# A note from a person')).toBe(true);

    const adopted = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, adopted.replace(/^mode: live$/m, 'mode: sometimes'));
    const refused = await until(async () => {
      const raw = await fs.readFile(path.join(b.root, '.work/refused.json'), 'utf8').catch(() => '{}');
      const v = JSON.parse(raw) as Record<string, string[]>;
      return v[runId];
    });
    expect(refused.join('\n')).toMatch(/RUN\.md/);
    expect(refused.join('\n')).toMatch(/mode/);
    const write = await service.call('cancel', { runId, reason: 'x', requestId: 'c1' }, { kind: 'person', email: 'op@example.com', operator: true });
    expect(write).toMatchObject({ ok: false, error: { code: 'conflict', issues: expect.arrayContaining(['board_file_invalid']) } });
    // A fresh process still serves the last valid version, read-only.
    const fresh = await Service.open(await Board.open(b.root));
    const view = (await fresh.call('get_run', { runId }, { kind: 'person', email: 'op@example.com', operator: true })) as { ok: boolean; data: { run: { mode: string } } };
    expect(view.ok).toBe(true);
    expect(view.data.run.mode).toBe('live');

    await fs.writeFile(file, adopted);
    await until(async () => {
      const raw = await fs.readFile(path.join(b.root, '.work/refused.json'), 'utf8').catch(() => '{}');
      return (JSON.parse(raw) as Record<string, unknown>)[runId] === undefined ? true : undefined;
    });
  }, 60_000);

  it('waits for a hand edit written in place in slow chunks to finish: adopts it whole, once, and never refuses it half-written', async () => {
    const { board: b, service, bot } = await board();
    const at = new Date(Date.now() + 3600_000).toISOString();
    const r = (await service.call('start_run', { process: 'timer', inputs: { at }, requestId: 's1' }, bot.ok ? bot.actor : (undefined as never))) as { ok: true; data: { run: { id: string } } };
    const runId = r.data.run.id;
    const child = await serve(b.root);
    let log = '';
    child.stdout!.on('data', (d) => (log += String(d)));
    const file = path.join(b.root, `runs/${runId}/RUN.md`);
    const edited = (await fs.readFile(file, 'utf8')).replace(/^# .*$/m, '# A note a person wrote slowly');
    // An editor that writes the file in place: truncated, then five writes a tenth of a second apart.
    const writer = await fs.open(file, 'w');
    const gaps: number[] = [];
    try {
      const chunk = Math.ceil(edited.length / 5);
      let last = Date.now();
      for (let i = 0; i < edited.length; i += chunk) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        gaps.push(Date.now() - last);
        await writer.write(edited.slice(i, i + chunk));
        last = Date.now();
      }
    } finally {
      await writer.close();
    }
    console.log(`hand edit written in ${gaps.length} writes, gaps ${gaps.join(', ')} ms (the daemon waits ${EDIT_SETTLE_MS} ms of quiet)`);
    // Adopted as written (only its rev moved on): a half-written copy adopted would have replaced the file before the rest landed.
    const withoutRev = (text: string) => text.replace(/^rev: \d+$/m, 'rev: _');
    // The audit file may be read while the daemon appends to it: a read that does not verify is tried again.
    const adopted = async () => (await events(b, runId).catch(() => [])).some((e) => e.action === 'run.external-edit');
    await until(async () => ((await adopted()) && withoutRev(await fs.readFile(file, 'utf8')) === withoutRev(edited) ? true : undefined), 30_000);
    expect((await events(b, runId)).filter((e) => e.action === 'run.external-edit')).toHaveLength(1);
    expect(log).not.toMatch(/refused/);
    expect(await fs.readFile(path.join(b.root, '.work/refused.json'), 'utf8').catch(() => '{}')).not.toContain(runId);
  }, 60_000);

  it('a `due: 1m` step goes overdue on time under a moved clock, and the notification reaches the notify command (never for test runs)', async () => {
    const { board: b, bot } = await board();
    await addOperator(b, 'test', 'ops@example.com');
    const out = path.join(b.root, 'notified.jsonl');
    await editManifest(b, 'test', 'notify.set', (d) => {
      d.notify = { command: process.execPath, args: ['-e', `require('fs').appendFileSync(${JSON.stringify(out)}, require('fs').readFileSync(0, 'utf8') + '\\n')`] };
      return 'notify';
    });
    await fs.mkdir(path.join(b.root, 'processes/chore'), { recursive: true });
    await fs.writeFile(
      path.join(b.root, 'processes/chore/PROCESS.md'),
      '---\nname: chore\ndescription: One agent step due in a minute.\nsteps:\n  - id: work\n    agent: Do it.\n    due: 1m\n  - id: done\n    finish: done\n---\nBody.\n',
    );
    await publish(b, { folder: path.join(b.root, 'processes/chore'), roles: {}, actor: 'test', offer: offerFor(b.manifest) });
    const clock = new FakeClock();
    const service = await Service.open(b, { now: clock.now });
    const actor = bot.ok ? bot.actor : (undefined as never);
    const live = (await service.call('start_run', { process: 'chore', inputs: {}, requestId: 'n1' }, actor)) as { ok: true; data: { run: { id: string } } };
    const test = (await service.call('start_run', { process: 'chore', inputs: {}, mode: 'test', requestId: 'n2' }, actor)) as { ok: true; data: { run: { id: string } } };
    const daemon = await daemonOn(b, clock);
    // Every delivery the daemon started is recorded, and none is due.
    const settled = async () => {
      await daemon.plan();
      await until(async () => ((await allEntries(b.state)).some((e) => !e.deliveries || dueKeys(e, clock.now()).length > 0) ? undefined : true));
    };
    // Their minute is up exactly a minute on, not a moment before.
    await clock.advance(59_999);
    expect((await b.store.read(`runs/${live.data.run.id}/work.md`))?.data.overdue).not.toBe(true);
    await clock.advance(1);
    const line = await until(async () => {
      const text = await fs.readFile(out, 'utf8').catch(() => '');
      return text.trim() === '' ? undefined : text;
    });
    await until(async () => ((await b.store.read(`runs/${test.data.run.id}/work.md`))?.data.overdue === true ? true : undefined));
    // Plans after those writes, and a minute later, send nothing again.
    await settled();
    await clock.advance(60_000);
    await settled();
    const sent = (await fs.readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { run: { id: string }; step: { id: string }; recipients: { email: string }[]; kind: string });
    expect(line).toBeTruthy();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: 'overdue', run: { id: live.data.run.id }, step: { id: 'work' }, recipients: [{ email: 'ops@example.com' }] });
    const records = await fs.readdir(path.join(b.root, '.work/notifications'));
    expect(records.filter((f) => f.startsWith(test.data.run.id))).toHaveLength(1); // recorded, but not sent
    expect((await b.store.read(`runs/${live.data.run.id}/work.md`))?.data.state).toBe('ready'); // the work stays open
  }, 30_000);
});

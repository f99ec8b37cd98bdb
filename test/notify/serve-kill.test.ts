/**
 * At least once, across a crash: a real `workboard serve` is SIGKILLed while
 * the webhook receiver holds its request open; transitions go on meanwhile
 * (and two are refused); a new `serve` then delivers every notification the
 * outbox holds, each id at least once, and the refused calls left no
 * notification file behind. And a decide killed at a random moment of its
 * commit leaves a notification exactly when its transition committed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { allEntries, OUTBOX_DIR } from '../../src/notify/outbox.js';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { cleanupHarnesses } from '../support/svc-harness.js';
import { CAST, expectedSignature, kill, notifyBoard, serve, toApproval, webhookReceiver, type Receiver } from './support.js';
import { until as waitUntil } from '../support/until.js';

const until = <T>(what: () => Promise<T | undefined> | T | undefined, ms = 45_000) => waitUntil(what, ms);

const SECRET = 'the serve-kill secret';
const children: ChildProcess[] = [];
const receivers: Receiver[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const r of receivers.splice(0)) await r.close();
  await cleanupHarnesses();
});

const outboxFiles = async (root: string) => (await fs.readdir(path.join(root, OUTBOX_DIR)).catch(() => [] as string[])).filter((f) => f.endsWith('.json')).sort();

describe('SIGKILL of serve in the middle of a delivery', () => {
  it('a restarted serve delivers every notification, each id at least once; refused calls leave no notification', async () => {
    const rx = await webhookReceiver();
    receivers.push(rx);
    rx.answer = () => 'hold';
    const h = await notifyBoard({ notifications: { webhook: { url: rx.url, secretFile: '.work/webhook.secret' } } });
    await fs.writeFile(path.join(h.root, '.work/webhook.secret'), `${SECRET}\n`);

    const first = serve(h.root);
    children.push(first.child);
    await first.ready;
    const one = await toApproval(h);
    await rx.received(1); // serve is now waiting on the receiver's answer
    const held = rx.hooks[0]!;
    expect(held.status).toBeNull();
    await kill(first.child);

    // While no serve runs: two more notifications commit, and two calls are refused.
    const two = await toApproval(h, 'live', 300);
    const before = await outboxFiles(h.root);
    const notMember = await h.fail('decide', { runId: two.run.id, workItemId: h.item(two, 'approve').id, snapshot: h.item(two, 'approve').snapshot, decision: 'approved' }, CAST.ann);
    expect(notMember.code).toBe('forbidden');
    const stale = await h.fail('decide', { runId: one.run.id, workItemId: h.item(one, 'approve').id, snapshot: 'not-the-snapshot', decision: 'approved' }, CAST.fin);
    expect(stale.code).toBe('stale');
    expect(await outboxFiles(h.root)).toEqual(before);
    await h.decide(one, 'approve', 'approved', CAST.fin); // the run ends: its starter is told

    const entries = await allEntries(h.board.state);
    expect(entries.map((e) => e.kind).sort()).toEqual(['run_ended', 'work_item', 'work_item']);
    const ids = new Set(entries.map((e) => e.id));
    expect(ids.has(held.id!)).toBe(true);

    rx.answer = () => 200;
    const second = serve(h.root);
    children.push(second.child);
    await second.ready;
    const delivered = await until(() => {
      const got = new Set(rx.hooks.filter((x) => x.status === 200).map((x) => x.id));
      return [...ids].every((id) => got.has(id)) ? got : undefined;
    });
    expect(delivered).toEqual(ids); // nothing that the outbox does not hold
    for (const x of rx.hooks) {
      expect(x.signature).toBe(expectedSignature(SECRET, x.raw));
      expect(x.body.id).toBe(x.id);
    }
    // The one in flight when serve died went out again under the same id.
    expect(rx.hooks.filter((x) => x.id === held.id).length).toBeGreaterThanOrEqual(2);
  }, 90_000);
});

/** `workboard decide` as a person; killed with SIGKILL after `killAfterMs` unless it finished. Resolves with its exit code (null when killed). */
function decideKilled(root: string, runId: string, wi: { id: string; snapshot: string }, killAfterMs: number | null): Promise<{ code: number | null; ms: number }> {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, '--board', root, 'decide', runId, wi.id, 'approved', '--snapshot', wi.snapshot, '--as', CAST.fin], { stdio: 'ignore' });
  children.push(child);
  const timer = killAfterMs === null ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, ms: Number(process.hrtime.bigint() - t0) / 1e6 });
    }),
  );
}

describe('SIGKILL of a writer in the middle of its transition', () => {
  it('a run_ended notification exists exactly for the runs whose end committed', async () => {
    const h = await notifyBoard({ notifications: {} });
    const views = [];
    for (let i = 0; i < 11; i++) views.push(await toApproval(h, 'live', 10 + i));
    // One decide to its end, to learn how long one lives; the rest killed at a random moment of the later part
    // of that span (the first part is Node starting up), some perhaps after they finished.
    const whole = await decideKilled(h.root, views[0].run.id, h.item(views[0], 'approve'), null);
    expect(whole.code).toBe(0);
    const outcomes = [];
    for (const v of views.slice(1)) outcomes.push(await decideKilled(h.root, v.run.id, h.item(v, 'approve'), whole.ms * (0.6 + 0.5 * Math.random())));
    // A writer's next touch rolls interrupted commits forward (or leaves the old state).
    const board = await Board.open(h.root);
    await board.store.recover();
    const told = new Set((await allEntries(board.state)).filter((e) => e.kind === 'run_ended').map((e) => e.runId));
    let ended = 0;
    for (const v of views) {
      const run = await board.store.read(`runs/${v.run.id}/RUN.md`);
      const isEnded = run?.data.state === 'ended';
      if (isEnded) ended++;
      expect(told.has(v.run.id), `run ${v.run.id} ${isEnded ? 'ended' : 'did not end'}`).toBe(isEnded);
    }
    process.stdout.write(`notify kill test: ${outcomes.filter((o) => o.code === null).length} of ${outcomes.length} decides killed; ${ended} of ${views.length} runs ended\n`);
  }, 120_000);
});

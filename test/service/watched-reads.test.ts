/**
 * Reads of every open run (get_work). In a process whose watch reports each
 * change in the open runs' folders, as serve's daemon does, what was read
 * before is served without looking at the folders again, yet
 * - a claim another process made is never listed by the next get_work (the
 *   change log names the run);
 * - a run whose folder the watch reports changed is read afresh;
 * - with no watch (never, or once the daemon stopped), files changed behind
 *   the process's back are seen at once, as before.
 * With no watch, a run the change log has not named since it was read costs
 * one look at its folder; one it names is looked at whole, leases too.
 * Real files; the other process is the real `workboard` binary.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { CHANGES_FILE } from '../../src/board/layout.js';
import { leasePath } from '../../src/service/runfiles.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { resolveActor } from '../../src/service/identity.js';
import { Service } from '../../src/service/service.js';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { CAST, CLAIM_REVIEW_SUBMISSION, cleanupHarnesses, Harness } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);
beforeAll(ensureBuilt, 180_000);

const open = () => Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });

/** The (run, step) pairs get_work lists for the agent. */
async function listed(h: Harness): Promise<string[]> {
  const page = await h.ok('get_work', { limit: 100 }, CAST.agent);
  return (page.items as { runId: string; stepId: string }[]).map((i) => `${i.runId}/${i.stepId}`);
}

/**
 * A copy of the board on which `act` moves runs on, as `who`, through a service
 * of its own: what another clone or a lost process would have done. Returns
 * the copy's folder; the caller brings in what it needs and removes it.
 */
async function movedOnInACopy(h: Harness, tag: string, who: string, act: (call: (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>) => Promise<void>): Promise<string> {
  const copy = `${h.root}-copy-${tag}`;
  await fs.cp(h.root, copy, { recursive: true });
  const board = await Board.open(copy);
  const svc = await Service.open(board);
  const actor = resolveActor(board.manifest, who);
  if (!actor.ok) throw new Error(actor.message);
  await act(async (tool, args) => {
    const r = await svc.callWire(tool, args, actor.actor);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.data as Record<string, unknown>;
  });
  return copy;
}

/** Put a file in place as git does: written beside its destination, then renamed over it. */
async function placed(from: string, to: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true });
  await fs.copyFile(from, `${to}.incoming`);
  await fs.rename(`${to}.incoming`, to);
}

/**
 * Move a run on behind the service's back, as `git pull` would: its check is
 * claimed and submitted on a copy of the board, and the copy's files of the
 * run are renamed into this board's run folder. Nothing is appended to this
 * board's change log.
 */
async function movedOnElsewhere(h: Harness, runId: string): Promise<void> {
  const copy = await movedOnInACopy(h, runId, CAST.agent, async (call) => {
    const { token } = await call('claim', { runId, stepId: 'check', requestId: `copy-claim-${runId}` });
    await call('submit', { token, ...CLAIM_REVIEW_SUBMISSION, requestId: `copy-submit-${runId}` });
  });
  const from = path.join(copy, 'runs', runId);
  for (const name of await fs.readdir(from)) await placed(path.join(from, name), path.join(h.root, 'runs', runId, name));
  await fs.rm(copy, { recursive: true, force: true });
}

describe('reads of every open run while their folders are watched', () => {
  it('a claim made by another process is not listed by the next get_work', async () => {
    const h = await open();
    h.service.trustWatched(() => true);
    const a = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    expect(await listed(h)).toContain(`${a.run.id}/check`);
    const r = await workboard(['--board', h.root, 'claim', a.run.id, 'check', '--as', CAST.rival], { cwd: h.root });
    expect(r.code, r.stderr).toBe(0);
    expect(await listed(h)).not.toContain(`${a.run.id}/check`);
  });

  it('a run its watch reports changed is read afresh', async () => {
    const h = await open();
    h.service.trustWatched(() => true);
    const b = await h.start('claim-review', { claimant: CAST.bob, amount: 20 });
    expect(await listed(h)).toContain(`${b.run.id}/check`);
    await movedOnElsewhere(h, b.run.id);
    h.service.runChanged(b.run.id);
    expect(await listed(h)).not.toContain(`${b.run.id}/check`);
    const inbox = await h.ok('get_work', { limit: 100 }, CAST.fin);
    expect((inbox.items as { runId: string; workItem: { stepId: string } }[]).map((i) => `${i.runId}/${i.workItem.stepId}`)).toContain(`${b.run.id}/approve`);
  });

  it('with no watch, or no watch on that run, files changed behind its back are seen at once', async () => {
    const h = await open();
    const c = await h.start('claim-review', { claimant: CAST.cat, amount: 30 });
    expect(await listed(h)).toContain(`${c.run.id}/check`);
    await movedOnElsewhere(h, c.run.id);
    expect(await listed(h)).not.toContain(`${c.run.id}/check`);

    const d = await h.start('claim-review', { claimant: CAST.cat, amount: 40 });
    h.service.trustWatched((runId) => runId !== d.run.id);
    expect(await listed(h)).toContain(`${d.run.id}/check`);
    await movedOnElsewhere(h, d.run.id);
    expect(await listed(h)).not.toContain(`${d.run.id}/check`);
  });

  it('with no watch, a lease that only the change log tells of is seen by the next get_work', async () => {
    const h = await open();
    const f = await h.start('claim-review', { claimant: CAST.ann, amount: 60 });
    expect(await listed(h)).toContain(`${f.run.id}/check`);
    // The lease of a claim made elsewhere, and the change log's line for it: the run's folder is untouched.
    const copy = await movedOnInACopy(h, 'lease', CAST.rival, async (call) => {
      await call('claim', { runId: f.run.id, stepId: 'check', requestId: 'lease-only' });
    });
    const lease = leasePath(f.run.id, 'check');
    await placed(path.join(copy, lease), path.join(h.root, lease));
    await fs.appendFile(path.join(h.root, CHANGES_FILE), `run ${f.run.id}\n`);
    await fs.rm(copy, { recursive: true, force: true });
    expect(await listed(h)).not.toContain(`${f.run.id}/check`);
  });

  it('once the daemon stops, nothing read under its watch is trusted any more', async () => {
    const h = await open();
    const e = await h.start('claim-review', { claimant: CAST.ed, amount: 50 });
    const daemon = new Daemon(h.board, h.service, { log: () => undefined });
    await daemon.start();
    expect(await listed(h)).toContain(`${e.run.id}/check`);
    await daemon.stop();
    await movedOnElsewhere(h, e.run.id);
    expect(await listed(h)).not.toContain(`${e.run.id}/check`);
  });
});

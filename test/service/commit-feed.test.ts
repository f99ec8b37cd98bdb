/**
 * Caches follow commits: a reader and the run index learn of a commit from
 * the store itself, so a write path that tells them nothing (here: a second
 * service over the same board, whose writes go through the same store) is
 * still seen by their next read. The change log's hint of the commit is cut
 * away each time (it is never flushed, so a power loss can take it), leaving
 * the store's own word as the only way to learn of it. Real files.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANGES_FILE } from '../../src/board/layout.js';
import { resolveActor } from '../../src/service/identity.js';
import { RunIndex } from '../../src/service/run-index.js';
import { Service } from '../../src/service/service.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const open = () => Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });

/** Make `tool` through a second service over the same board object, then cut the change log back to where it was. */
async function unannounced(h: Harness, tool: string, args: Record<string, unknown>, who: string): Promise<void> {
  const changes = path.join(h.root, CHANGES_FILE);
  const size = (await fs.stat(changes).catch(() => ({ size: 0 }))).size;
  const other = await Service.open(h.board);
  const actor = resolveActor(h.board.manifest, who);
  if (!actor.ok) throw new Error(actor.message);
  const r = await other.callWire(tool, { ...args, requestId: `other-${tool}-${size}` }, actor.actor);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  await fs.truncate(changes, size);
}

async function listed(h: Harness): Promise<string[]> {
  const page = await h.ok('get_work', { limit: 100 }, CAST.agent);
  return (page.items as { runId: string; stepId: string }[]).map((i) => `${i.runId}/${i.stepId}`);
}

describe("caches follow the store's commits, told by no writer", () => {
  it('a claim committed by another write path is not listed by the next get_work, even while the run is trusted as watched', async () => {
    const h = await open();
    h.service.trustWatched(() => true);
    const a = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    expect(await listed(h)).toContain(`${a.run.id}/check`);
    await unannounced(h, 'claim', { runId: a.run.id, stepId: 'check' }, CAST.rival);
    expect(await listed(h)).not.toContain(`${a.run.id}/check`);
  });

  it('a run cancelled by another write path shows cancelled in the next list_runs and get_run', async () => {
    const h = await open();
    h.service.trustWatched(() => true);
    const b = await h.start('claim-review', { claimant: CAST.bob, amount: 20 });
    const state = async () => ((await h.ok('list_runs', { limit: 100 }, CAST.operator)).items as { id: string; state: string }[]).find((r) => r.id === b.run.id)?.state;
    expect(await state()).toBe('active');
    expect((await h.view(b.run.id)).run.state).toBe('active');
    await unannounced(h, 'cancel', { runId: b.run.id, reason: 'Not needed.' }, CAST.operator);
    expect(await state()).toBe('cancelled');
    expect((await h.view(b.run.id)).run.state).toBe('cancelled');
    expect(await listed(h)).not.toContain(`${b.run.id}/check`);
  });

  it("a run ended by another write path leaves the open runs' last valid states", async () => {
    const h = await open();
    const d = await h.start('claim-review', { claimant: CAST.ed, amount: 40 });
    expect(await listed(h)).toContain(`${d.run.id}/check`);
    const lastGood = (h.service as unknown as { reader: { lastGood: Map<string, unknown> } }).reader.lastGood;
    expect(lastGood.has(d.run.id)).toBe(true);
    await unannounced(h, 'cancel', { runId: d.run.id, reason: 'Not needed.' }, CAST.operator);
    expect(lastGood.has(d.run.id)).toBe(false);
  });

  it("the run index takes a run's new summary from a commit the change log did not name", async () => {
    const h = await open();
    const index = new RunIndex(h.board);
    const c = await h.start('claim-review', { claimant: CAST.cat, amount: 30 });
    const state = async () => (await index.summaries()).find((r) => r.id === c.run.id)?.state;
    expect(await state()).toBe('active');
    await unannounced(h, 'cancel', { runId: c.run.id, reason: 'Not needed.' }, CAST.operator);
    expect(await state()).toBe('cancelled');
    expect((await index.openSummaries()).map((r) => r.id)).not.toContain(c.run.id);
  });
});

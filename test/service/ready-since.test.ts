/**
 * get_work's readySince is a time on every listed step, as the result schema
 * says, even when a hand edit left a ready step without it: the run's last
 * change is the latest the step can have become ready.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, rid, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = { groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] };

describe("get_work's readySince", () => {
  it('falls back to the run’s last change when a hand edit removed it', async () => {
    const h = await Harness.open(SPEC);
    const run = (await h.ok('start_run', { process: 'claim-review', inputs: { claimant: CAST.ann, amount: 10 }, requestId: rid() }, CAST.ann)) as { run: { id: string; updatedAt: string } };
    const dir = path.join(h.root, 'runs', run.run.id);
    const step = path.join(dir, 'check.md');
    const text = await fs.readFile(step, 'utf8');
    expect(text).toMatch(/^readySince: .*\n/m);
    await fs.writeFile(step, text.replace(/^readySince: .*\n/m, ''));
    // Every answer the harness gets is checked against the project's result schemas: a null here fails it.
    const work = (await h.ok('get_work', {}, CAST.agent)) as { items: { runId: string; readySince: string }[] };
    const listed = work.items.find((i) => i.runId === run.run.id);
    expect(listed?.readySince).toBe(run.run.updatedAt);
  });
});

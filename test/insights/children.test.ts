/**
 * Insights lists the runs a run started under their parent (docs/profile-flow-1.md "7. Lineage and rollup"):
 * a fan-out's children under the subprocess step that started them, a
 * follow-on run under its parent's end, each child measured on its own from
 * its start to its end. On a real board through the service, read back with
 * `workboard stats --json` and text (a process filter still finds the children
 * of another process) and on the Insights page; a board whose runs start none
 * has no such figure at all. A person who may not see the children's
 * process reads that they are not shown, not how they went.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { inProcessWeb, pageAs, sectionText } from '../web/http-support.js';

beforeAll(ensureBuilt, 300_000);
afterAll(cleanupHarnesses);

const stats = async (root: string, ...args: string[]) => {
  const r = await workboard(['stats', ...args, '--json'], { cwd: root });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).data;
};

describe('Insights: runs started by runs', () => {
  it("lists a fan-out's children under their step and a follow-on run under its parent's end, each measured on its own", async () => {
    const h = await Harness.open({
      groups: { it: [CAST.fin] },
      processes: [{ folder: 'equipment-order' }, { folder: 'access-request', roles: { it: 'it' } }, { folder: 'onboarding', roles: { it: 'it' } }, { folder: 'hiring', roles: { it: 'it' } }],
    });
    const before = await stats(h.root);
    expect(before).not.toHaveProperty('children');

    const o = await h.start('onboarding', { employee: 'Mira Okafor', equipment: ['laptop', 'phone'], systems: [] }, CAST.fin);
    const kids = [...(await h.snapshot())[`runs/${o.run.id}/equipment.md`]!.matchAll(/^ {2}- (r-[0-9a-z]{26})$/gm)].map((m) => m[1]!);
    const c = await h.claim(kids[0]!, 'order');
    await h.ok('submit', { token: c.token, output: { reference: 'PO-1' }, summary: 'Ordered.' }, CAST.agent);
    const hire = await h.start('hiring', { candidate: 'Sam Lee', equipment: [], systems: [] }, CAST.fin);
    await h.decide(hire, 'offer', 'approved', CAST.fin);

    // The child's own time, from its chain's start and end lines (Insights reads the audit lines' times).
    const files = await h.snapshot();
    const chain = files[`runs/${kids[0]}/audit.jsonl`]!.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const at = (action: string) => Date.parse(chain.find((l: { action: string }) => l.action === action).ts);
    const took = at('run.ended') - at('run.started');
    const onboarding = await stats(h.root, 'onboarding');
    expect(onboarding.children).toEqual([
      { process: 'onboarding', step: 'equipment', child: 'equipment-order', runs: 2, ended: 1, byOutcome: { ordered: 1 }, cycle: { count: 1, p50Ms: took, p90Ms: took }, missing: 0 },
    ]);
    const hiring = await stats(h.root, 'hiring');
    expect(hiring.children).toEqual([{ process: 'hiring', step: null, child: 'onboarding', runs: 1, ended: 0, byOutcome: {}, cycle: { count: 0, p50Ms: null, p90Ms: null }, missing: 0 }]);
    // The equipment orders are counted under their own process too, not under their parent.
    expect((await stats(h.root, 'equipment-order')).runs.started).toBe(2);
    expect(await stats(h.root, 'equipment-order')).not.toHaveProperty('children');

    const text = await workboard(['stats', 'onboarding'], { cwd: h.root });
    expect(text.stdout).toContain('Runs these runs started\n  Onboarding · Equipment: 2 runs of Equipment order, 1 ended (1 ordered); start to end: median ');

    const { origin, close } = await inProcessWeb(h.service);
    try {
      const page = await pageAs(h.board, origin, '/insights?process=onboarding', CAST.operator);
      expect(sectionText(page, 'children')).toContain('EquipmentEquipment order21 ordered');
      // Someone who may not see equipment orders' figures (no role in them) reads that some are not shown, not how they went.
      const fin = await pageAs(h.board, origin, '/insights?process=onboarding', CAST.fin);
      expect(sectionText(fin, 'children')).toContain('EquipmentEquipment order2 (2 not shown)0–');
      const all = await pageAs(h.board, origin, '/insights', CAST.operator);
      expect(sectionText(all, 'children')).toContain('Hiring, at its endOnboarding10–');
    } finally {
      await close();
    }
  }, 120_000);
});

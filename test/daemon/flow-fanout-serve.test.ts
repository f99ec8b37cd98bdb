/**
 * flow-1's fan-out with 50 children under a real `workboard serve --http`
 * (docs/profile-flow-1.md "5. Subprocess steps"): a person starts an onboarding
 * over MCP whose first step starts one equipment order per item, 50 of them;
 * four agent loops (two agents, two loops each) find the orders through
 * `get_work` over HTTP, claim and submit them, racing for the same items. The
 * parent must then move on at once, with every child's outcome and data in
 * its step's output, each child once, each naming its parent, the rollup
 * `done`, and `audit verify` and `doctor` clean afterwards.
 *
 * The wake-up is measured and printed, not asserted beyond a bound that proves
 * it happens at all: from the last child's end (its RUN.md `ended.at`) to the
 * parent's step completion (its step file's `at`), both written by serve, and
 * from the last submit's answer to the parent seen moved over MCP.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { Service } from '../../src/service/service.js';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { CAST, cleanupHarnesses, Harness, type Data } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { call, serveOps, tokenFor } from '../ops/support.js';

beforeAll(ensureBuilt, 300_000);
afterAll(cleanupHarnesses);

const CHILDREN = 50;
const RUN_ID = /^ {2}- (r-[0-9a-z]{26})$/gm;

describe('flow-1 fan-out under a real serve', () => {
  it(`a parent starts ${CHILDREN} children over MCP; agents finish them over HTTP; the parent wakes with every child's data and its rollup is done`, async () => {
    const h = await Harness.open({
      groups: { it: [CAST.fin] },
      processes: [{ folder: 'equipment-order' }, { folder: 'access-request', roles: { it: 'it' } }, { folder: 'onboarding', roles: { it: 'it' } }],
      start: new Date().toISOString(),
    });
    const items = Array.from({ length: CHILDREN }, (_, i) => `item-${i}`);
    const s = await serveOps(h.root);
    let parent = '';
    let kids: string[] = [];
    let lastSubmit = 0;
    let seenMoved = 0;
    const submitted: string[] = [];
    try {
      const fin = await tokenFor(h, CAST.fin);
      const t0 = performance.now();
      const started = await call(s.mcp, fin, 'start_run', { process: 'onboarding', inputs: { employee: 'Mira Okafor', equipment: items, systems: [] }, requestId: 'fanout-serve-1' });
      expect(started.ok, JSON.stringify(started)).toBe(true);
      process.stdout.write(`fan-out under serve: start_run over MCP with ${CHILDREN} children answered in ${(performance.now() - t0).toFixed(0)} ms\n`);
      parent = started.data.run.id;
      kids = [...(await fs.readFile(path.join(h.root, 'runs', parent, 'equipment.md'), 'utf8')).matchAll(RUN_ID)].map((m) => m[1]!);
      expect(kids).toHaveLength(CHILDREN);
      expect(new Set(kids).size).toBe(CHILDREN);

      // Two agents, two loops each: take what get_work offers, claim it (losing races is fine), submit.
      const loop = async (token: string, name: string) => {
        for (;;) {
          const page = await call(s.mcp, token, 'get_work', { limit: 10 });
          if (!page.ok) throw new Error(JSON.stringify(page));
          const open = (page.data.items as Data[]).filter((w) => w.stepId === 'order');
          if (open.length === 0) return;
          for (const w of open) {
            const c = await call(s.mcp, token, 'claim', { runId: w.runId, stepId: 'order', requestId: `${name}-claim-${w.runId}` });
            if (!c.ok) {
              expect(c.error.code, JSON.stringify(c)).toBe('conflict');
              continue;
            }
            const done = await call(s.mcp, token, 'submit', { token: c.data.token, output: { reference: `PO-${w.runId.slice(-6)}` }, summary: 'Ordered.', requestId: `${name}-submit-${w.runId}` });
            expect(done.ok, JSON.stringify(done)).toBe(true);
            submitted.push(w.runId);
            lastSubmit = Date.now();
          }
        }
      };
      const scout = await tokenFor(h, CAST.agent);
      const rival = await tokenFor(h, CAST.rival);
      await Promise.all([loop(scout, 'scout-a'), loop(scout, 'scout-b'), loop(rival, 'rival-a'), loop(rival, 'rival-b')]);
      expect(submitted.sort()).toEqual([...kids].sort()); // each child finished once

      const moved = await until(
        async () => {
          const v = await call(s.mcp, fin, 'get_run', { runId: parent });
          return v.ok && v.data.steps.find((x: Data) => x.id === 'equipment').state === 'done' ? v.data : undefined;
        },
        60_000,
        20,
      );
      seenMoved = Date.now();
      expect(moved.steps.map((x: Data) => [x.id, x.state])).toEqual([
        ['equipment', 'done'],
        ['access', 'done'],
        ['follow-up', null],
        ['welcome', 'ready'],
        ['onboarded', null],
      ]);
      const out = moved.data.steps.equipment.output;
      expect(out.runs).toEqual(kids);
      expect(out.outcomes).toEqual(kids.map(() => 'ordered'));
      expect(out.items).toEqual(kids.map((id) => ({ reference: `PO-${id.slice(-6)}` })));
    } finally {
      await s.stop();
    }

    // The wake-up, from serve's own timestamps and as a client saw it.
    const endedAt = await Promise.all(
      kids.map(async (id) => Date.parse(/\n {2}at: "([^"]+)"/.exec((await fs.readFile(path.join(h.root, 'runs', id, 'RUN.md'), 'utf8')).split('\nended:')[1] ?? '')?.[1] ?? 'x')),
    );
    const stepAt = Date.parse(/\nat: "([^"]+)"/.exec(await fs.readFile(path.join(h.root, 'runs', parent, 'equipment.md'), 'utf8'))?.[1] ?? 'x');
    expect(endedAt.every(Number.isFinite) && Number.isFinite(stepAt)).toBe(true);
    const wake = stepAt - Math.max(...endedAt);
    process.stdout.write(
      `fan-out under serve: the parent's step completed ${wake} ms after its last child ended (serve's timestamps); a client saw it ${seenMoved - lastSubmit} ms after the last submit answered\n`,
    );
    expect(wake).toBeGreaterThanOrEqual(0);
    expect(wake).toBeLessThan(30_000); // it wakes at all: not a speed goal

    // Each child once, naming its parent; nothing else started; the rollup.
    const runs = (await fs.readdir(path.join(h.root, 'runs'))).filter((d) => d.startsWith('r-'));
    expect(runs.sort()).toEqual([parent, ...kids].sort());
    for (const id of kids) expect(await fs.readFile(path.join(h.root, 'runs', id, 'RUN.md'), 'utf8')).toContain(`\nparent: ${parent}\n`);
    const lineage = await (await Service.open(await Board.open(h.root))).runLineage(parent);
    expect(lineage?.rollup).toBe('done');
    expect(lineage?.children.map((c) => [c.id, c.state, c.outcome, c.via])).toEqual(kids.map((id) => [id, 'ended', 'ordered', 'equipment']));
    expect(await fs.readdir(path.join(h.root, '.work', 'starts')).catch(() => [])).toEqual([]);
    const verify = await workboard(['audit', 'verify'], { cwd: h.root });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const doctor = await workboard(['doctor'], { cwd: h.root });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  }, 300_000);
});

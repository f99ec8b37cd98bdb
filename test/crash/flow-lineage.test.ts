/**
 * flow-1's new commit points under SIGKILL (docs/profile-flow-1.md "8. All or nothing"): a real
 * process makes one call and is killed right after one commit, before the
 * next (flow-killer.mjs names each point):
 *
 * - a start whose first step is a subprocess step: after the parent's commit
 *   (its child recorded, not started), after the child's commit (its start
 *   record not yet removed), and after the 2nd of a fan-out's 3 children;
 * - a run's end that starts a follow-on run: after that end, and after the
 *   follow-on's own start;
 * - a child's end, before its parent's step moves;
 * - a parent's cancel, before its open children are ended;
 * - a blocker's end (approved and rejected), before the run it blocks moves.
 *
 * Recovery is what serve's daemon does on every change it sees (wake blocked
 * runs, settle lineage), from fresh processes' views, more than once. After
 * it: each child exists once and names its parent, none is lost, no start
 * record is left, the parent has moved as the children's ends say (never
 * waiting for nothing), and `audit verify` and `doctor` are clean.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { Service } from '../../src/service/service.js';
import { ensureBuilt, ROOT, workboard } from '../support/cli-run.js';
import { CAST, cleanupHarnesses, Harness, states, type BoardSpec, type Data } from '../support/svc-harness.js';

const KILLER = path.join(ROOT, 'test', 'crash', 'flow-killer.mjs');

beforeAll(ensureBuilt, 300_000);
afterAll(cleanupHarnesses);

/** One call by a real process that SIGKILLs itself at `point` (flow-killer.mjs says which commit each names). */
function killer(root: string, point: string, tool: string, args: Record<string, unknown>, who: string = CAST.ann): Promise<{ signal: string | null; out: string }> {
  const child = spawn(process.execPath, [KILLER, root, point, tool, JSON.stringify(args), who], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ signal, out })));
}

const runDirs = async (root: string) => (await fs.readdir(path.join(root, 'runs'))).filter((d) => d.startsWith('r-')).sort();

describe('flow-1 starts under SIGKILL', () => {
  for (const point of ['after-parent', 'after-child-1'] as const) {
    it(`killed ${point === 'after-parent' ? "after the parent's commit, before the child's start" : "after the child's commit, before its record goes"}: the child exists once, naming its parent`, async () => {
      const h = await Harness.open({ groups: { legal: [CAST.lee] }, processes: [{ folder: 'contract-approval', roles: { legal: 'legal' } }, { folder: 'purchase' }] });
      const e = await killer(h.root, point, 'start_run', { process: 'purchase', inputs: { supplier: 'Acme', amount: 10 } });
      expect(e.signal, e.out).toBe('SIGKILL');
      const runs = await runDirs(h.root);
      expect(runs).toHaveLength(point === 'after-parent' ? 1 : 2);
      const records = await fs.readdir(path.join(h.root, '.work', 'starts'));
      expect(records).toHaveLength(1);
      const parentId = records[0]!.slice(0, 28);
      const childId = records[0]!.slice(29, 57);
      expect(await fs.readFile(path.join(h.root, 'runs', parentId, 'contract.md'), 'utf8')).toContain(`children:\n  - ${childId}\n`);
      expect(existsSync(path.join(h.root, 'runs', childId, 'RUN.md'))).toBe(point === 'after-child-1');

      // Another coordinator settles (what serve's daemon does on every change), twice, and twice more from a fresh process's view.
      for (let i = 0; i < 2; i++) {
        const s = await Service.open(await Board.open(h.root));
        await s.settleLineage();
        await s.settleLineage();
      }
      expect(await runDirs(h.root)).toEqual([parentId, childId].sort());
      expect(await fs.readdir(path.join(h.root, '.work', 'starts'))).toEqual([]);
      expect(await fs.readFile(path.join(h.root, 'runs', childId, 'RUN.md'), 'utf8')).toContain(`\nparent: ${parentId}\n`);
      // The child is a whole run that moves its parent when it ends.
      const s = await Service.open(await Board.open(h.root));
      const lee = { kind: 'person' as const, email: CAST.lee, operator: false };
      const view = await s.call('get_run', { runId: childId }, lee);
      if (!view.ok) throw new Error(JSON.stringify(view.error));
      const item = view.data.workItems[0]!;
      const done = await s.call('decide', { runId: childId, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: `d-${point}` }, lee);
      expect(done.ok).toBe(true);
      const parent = await s.call('get_run', { runId: parentId }, lee);
      if (!parent.ok) throw new Error(JSON.stringify(parent.error));
      expect(parent.data.steps.map((x) => [x.id, x.state])).toEqual([
        ['contract', 'done'],
        ['pay', 'ready'],
        ['refused', null],
        ['paid', null],
      ]);
    }, 120_000);
  }
});

const SPEC: BoardSpec = {
  groups: { legal: [CAST.lee], it: [CAST.fin] },
  processes: [
    { folder: 'contract-approval', roles: { legal: 'legal' } },
    { folder: 'supplier-payment', roles: { finance: 'it' } },
    { folder: 'equipment-order' },
    { folder: 'access-request', roles: { it: 'it' } },
    { folder: 'onboarding', roles: { it: 'it' } },
    { folder: 'hiring', roles: { it: 'it' } },
  ],
};

const runText = (root: string, id: string) => fs.readFile(path.join(root, 'runs', id, 'RUN.md'), 'utf8');
const listed = (text: string, key: string) => [...(text.split(`\n${key}:\n`)[1] ?? '').matchAll(/^ {2}- (r-[0-9a-z]{26})$/gm)].map((m) => m[1]!);

/** What serve's daemon does on every change it sees, from two fresh processes' views, twice each. */
async function recover(root: string): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const s = await Service.open(await Board.open(root));
    for (let j = 0; j < 2; j++) {
      await s.wakeBlocked();
      await s.settleLineage();
    }
  }
}

/**
 * The board after recovery: no start record left; every run a step or an end lists exists, and names
 * that parent; every run naming a parent is listed by it exactly once; the chains and doctor are clean.
 */
async function whole(root: string): Promise<void> {
  expect(await fs.readdir(path.join(root, '.work', 'starts')).catch(() => [])).toEqual([]);
  const runs = await runDirs(root);
  const listedBy = new Map<string, string[]>();
  for (const id of runs) {
    const files = (await fs.readdir(path.join(root, 'runs', id))).filter((f) => f.endsWith('.md'));
    for (const f of files) {
      const text = await fs.readFile(path.join(root, 'runs', id, f), 'utf8');
      for (const child of [...listed(text, 'children'), ...(f === 'RUN.md' ? listed(text, 'followOns') : [])]) listedBy.set(child, [...(listedBy.get(child) ?? []), id]);
    }
  }
  for (const [child, parents] of listedBy) {
    expect(runs, `${child} is listed by ${parents.join(', ')} but was never started`).toContain(child);
    expect(parents).toHaveLength(1);
    expect(await runText(root, child)).toContain(`\nparent: ${parents[0]}\n`);
  }
  for (const id of runs) {
    const parent = /\nparent: (r-[0-9a-z]{26})\n/.exec(await runText(root, id))?.[1];
    if (parent) expect(listedBy.get(id)).toEqual([parent]);
  }
  const verify = await workboard(['audit', 'verify'], { cwd: root });
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  const doctor = await workboard(['doctor'], { cwd: root });
  expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
}

const kidsOf = async (root: string, runId: string, stepId: string) => listed(await fs.readFile(path.join(root, 'runs', runId, `${stepId}.md`), 'utf8'), 'children');

describe('flow-1 under SIGKILL at every other commit point', () => {
  it('a fan-out killed after the 2nd of its 3 children started: the 3rd starts once, the first two are not started again', async () => {
    const h = await Harness.open(SPEC);
    const e = await killer(h.root, 'after-child-2', 'start_run', { process: 'onboarding', inputs: { employee: 'Mira Okafor', equipment: ['laptop', 'phone', 'badge'], systems: [] } }, CAST.fin);
    expect(e.signal, e.out).toBe('SIGKILL');
    expect(await runDirs(h.root)).toHaveLength(3);
    await recover(h.root);
    expect(await runDirs(h.root)).toHaveLength(4);
    const onboarding = (await h.ok('list_runs', { process: 'onboarding' }, CAST.fin)).items[0].id;
    expect(await kidsOf(h.root, onboarding, 'equipment')).toHaveLength(3);
    await whole(h.root);
  }, 120_000);

  for (const point of ['after-parent', 'after-child-1'] as const) {
    it(`a hire killed ${point === 'after-parent' ? 'right after its end recorded the follow-on run' : 'right after the follow-on run started, before its record goes'}: the onboarding starts once, with its own child`, async () => {
      const h = await Harness.open(SPEC);
      const hire = await h.start('hiring', { candidate: 'Sam Lee', equipment: ['laptop'], systems: [] }, CAST.fin);
      const e = await killer(h.root, point, 'decide', { runId: hire.run.id, stepId: 'offer', decision: 'approved' }, CAST.fin);
      expect(e.signal, e.out).toBe('SIGKILL');
      const followOns = listed(await runText(h.root, hire.run.id), 'followOns');
      expect(followOns).toHaveLength(1);
      expect(await runDirs(h.root)).toHaveLength(point === 'after-parent' ? 1 : 3);
      await recover(h.root);
      expect(await runDirs(h.root)).toHaveLength(3);
      expect(await kidsOf(h.root, followOns[0]!, 'equipment')).toHaveLength(1);
      expect((await h.view(followOns[0]!, CAST.fin)).run).toMatchObject({ process: 'onboarding', state: 'waiting' });
      await whole(h.root);
    }, 120_000);
  }

  it("the last child's end killed before its parent's step moved: recovery moves the parent on, with both children's data", async () => {
    const h = await Harness.open(SPEC);
    const o = await h.start('onboarding', { employee: 'Mira Okafor', equipment: ['laptop', 'phone'], systems: [] }, CAST.fin);
    const [a, b] = await kidsOf(h.root, o.run.id, 'equipment');
    const c = await h.claim(a!, 'order');
    await h.ok('submit', { token: c.token, output: { reference: 'PO-1' }, summary: 'Ordered.' }, CAST.agent);
    const e = await killer(h.root, 'child-ended', 'submit', { runId: b, stepId: 'order', output: { reference: 'PO-2' } }, `agent:${CAST.agent}`);
    expect(e.signal, e.out).toBe('SIGKILL');
    expect(await runText(h.root, b!)).toContain('outcome: ordered');
    expect(states(await h.view(o.run.id, CAST.fin))).toMatchObject({ equipment: 'waiting' });
    await recover(h.root);
    const v = await h.view(o.run.id, CAST.fin);
    expect(states(v)).toMatchObject({ equipment: 'done', access: 'done', welcome: 'ready' });
    expect(v.data.steps.equipment.output.items).toEqual([{ reference: 'PO-1' }, { reference: 'PO-2' }]);
    await whole(h.root);
  }, 120_000);

  it("a parent's cancel killed before its open children were ended: recovery cancels each, naming the parent", async () => {
    const h = await Harness.open(SPEC);
    const o = await h.start('onboarding', { employee: 'Mira Okafor', equipment: ['laptop', 'phone'], systems: [] }, CAST.fin);
    const kids = await kidsOf(h.root, o.run.id, 'equipment');
    const e = await killer(h.root, 'parent-ended', 'cancel', { runId: o.run.id, reason: 'The candidate withdrew.' }, CAST.operator);
    expect(e.signal, e.out).toBe('SIGKILL');
    expect(await runText(h.root, o.run.id)).toContain('state: cancelled');
    for (const k of kids) expect(await runText(h.root, k)).not.toContain('state: cancelled');
    await recover(h.root);
    for (const k of kids) expect((await h.view(k, CAST.fin)).run).toMatchObject({ state: 'cancelled', ended: { by: 'server', note: 'its parent “Onboarding · Mira Okafor” was cancelled' } });
    await whole(h.root);
  }, 120_000);

  for (const decision of ['approved', 'rejected'] as const) {
    it(`a blocker's end (${decision}) killed before the run it blocks moved: recovery ${decision === 'approved' ? 'wakes it' : 'fails it, naming the blocker'}`, async () => {
      const h = await Harness.open(SPEC);
      const contract = await h.start('contract-approval', { supplier: 'Acme' });
      const payment = await h.start('supplier-payment', { supplier: 'Acme', amount: 10, after: [contract.run.id] });
      const e = await killer(h.root, 'blocker-ended', 'decide', { runId: contract.run.id, stepId: 'review', decision, ...(decision === 'rejected' ? { note: 'Sanctioned owner.' } : {}) }, CAST.lee);
      expect(e.signal, e.out).toBe('SIGKILL');
      expect(await runText(h.root, payment.run.id)).toContain('blocked: true');
      await recover(h.root);
      const v: Data = await h.view(payment.run.id, CAST.fin);
      if (decision === 'approved') expect(states(v)).toMatchObject({ release: 'waiting' });
      else expect(v.run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: 'server', note: 'blocked by “Contract approval · Acme”, which ended rejected' } });
      await whole(h.root);
    }, 120_000);
  }
});

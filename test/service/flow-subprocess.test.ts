/**
 * flow-1's runs that start runs (docs/profile-flow-1.md "5. Subprocess steps", "6. Follow-on runs")
 * on real boards through the service: binding at publication, one child routed
 * on its outcome with its data handed back, a fan-out of 50 children, the
 * rules for a failed child, a parent's cancel ending its open children, and a
 * follow-on run with its lineage and priority. Every result goes through the
 * harness's `call`, which validates it against the upstream schemas.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, states, type BoardSpec, type Data } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { legal: [CAST.lee], it: [CAST.fin] },
  processes: [
    { folder: 'contract-approval', roles: { legal: 'legal' } },
    { folder: 'purchase' },
    { folder: 'equipment-order' },
    { folder: 'access-request', roles: { it: 'it' } },
    { folder: 'onboarding', roles: { it: 'it' } },
    { folder: 'hiring', roles: { it: 'it' } },
    { folder: 'supplier-payment', roles: { finance: 'it' } },
    { folder: 'payment-batch' },
  ],
};

const runText = async (h: Harness, runId: string) => (await h.snapshot())[`runs/${runId}/RUN.md`]!;
const stepText = async (h: Harness, runId: string, stepId: string) => (await h.snapshot())[`runs/${runId}/${stepId}.md`]!;
/** The runs a subprocess step started, as its step file lists them. */
const childrenOf = async (h: Harness, runId: string, stepId: string): Promise<string[]> => [...(await stepText(h, runId, stepId)).matchAll(/^ {2}- (r-[0-9a-z]{26})$/gm)].map((m) => m[1]!);

async function order(h: Harness, runId: string, reference: string): Promise<Data> {
  const c = await h.claim(runId, 'order');
  return h.ok('submit', { token: c.token, output: { reference }, summary: `Ordered, ${reference}.` }, CAST.agent);
}

async function folderWith(text: string, name: string): Promise<string> {
  const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'wb-sub-')), name);
  await fs.mkdir(dir);
  await fs.writeFile(path.join(dir, 'PROCESS.md'), text);
  return dir;
}

describe('flow-1 subprocess steps: binding at publication', () => {
  it('refuses a missing process, inputs that cannot be mapped, and a cycle, naming every problem at once', async () => {
    const h = await Harness.open(SPEC);
    const bad = await folderWith(
      `---
name: bad-chain
description: Starts runs that cannot be started.
inputs:
  who: string
  count: number
steps:
  - id: missing
    subprocess: no-such-process
    inputs: { x: inputs.who }
  - id: orders
    subprocess: equipment-order
    inputs:
      employee: inputs.count
      colour: inputs.who
      item: item
  - id: done
    finish: done
---
`,
      'bad-chain',
    );
    const err = await h.publish(bad).then(
      () => null,
      (e: { issues: { path: string; message: string }[] }) => e.issues.map((i) => `${i.path}: ${i.message}`),
    );
    expect(err).toEqual(['steps[1].inputs.item: "item": item is there only on a step with for_each']);
    // With the in-file problem fixed, publication names every problem of the links at once.
    await fs.writeFile(path.join(bad, 'PROCESS.md'), (await fs.readFile(path.join(bad, 'PROCESS.md'), 'utf8')).replace('      item: item\n', ''));
    const issues = await h.publish(bad).then(
      () => null,
      (e: { issues: { path: string; message: string }[] }) => e.issues.map((i) => `${i.path}: ${i.message}`),
    );
    expect(issues).toEqual([
      'steps[0].subprocess: no published process "no-such-process" on this board; publish it first',
      'steps[1].inputs.employee: "inputs.count" is a number; equipment-order\'s input employee is a string',
      'steps[1].inputs.colour: equipment-order has no input "colour" (it has: employee, item)',
      'steps[1].inputs: equipment-order needs input "item" (string), which is not given',
    ]);

    // A cycle: equipment-order v2 would start onboarding, which starts equipment-order.
    const loop = await folderWith(
      `---
name: equipment-order
description: Order one piece of equipment, onboarding the employee again (a mistake).
inputs:
  employee: string
  item: string
steps:
  - id: again
    subprocess: onboarding
    inputs: { employee: inputs.employee, equipment: inputs.employee, systems: inputs.employee }
  - id: ordered
    finish: ordered
---
`,
      'equipment-order',
    );
    const cyc = await h.publish(loop).then(
      () => null,
      (e: { issues: { path: string; message: string }[] }) => e.issues.map((i) => `${i.path}: ${i.message}`),
    );
    expect(cyc).toEqual([
      'steps[0].inputs.equipment: "inputs.employee" is a string; onboarding\'s input equipment is a list',
      'steps[0].inputs.systems: "inputs.employee" is a string; onboarding\'s input systems is a list',
      'steps[0].subprocess: a cycle: equipment-order → onboarding → equipment-order; a run would start runs without end',
    ]);
    const snap = await h.snapshot();
    expect(Object.keys(snap).filter((k) => k.startsWith('processes/bad-chain') || k.startsWith('processes/equipment-order/v2'))).toEqual([]);
  });

  it('records flow-1 on a version with a subprocess step', async () => {
    const h = await Harness.open(SPEC);
    expect((await h.snapshot())['processes/purchase/v1/VERSION.md']).toMatch(/profiles:\n {2}- flow-1\n/);
  });
});

describe('flow-1 subprocess steps: one child', () => {
  it('starts the child with its parent recorded, waits, routes on its outcome and hands its data on', async () => {
    const h = await Harness.open(SPEC);
    const p = await h.start('purchase', { supplier: 'Acme', amount: 120 });
    expect(states(p)).toMatchObject({ contract: 'waiting', pay: null });
    expect(p.steps.find((s: Data) => s.id === 'contract').kind).toBe('wait_for');
    const [child] = await childrenOf(h, p.run.id, 'contract');
    expect(await runText(h, child!)).toContain(`\nparent: ${p.run.id}\n`);
    const c = await h.view(child!, CAST.lee);
    expect(c.run.process).toBe('contract-approval');
    expect(c.data.inputs).toEqual({ supplier: 'Acme' });

    await h.decide(c, 'review', 'approved', CAST.lee);
    const after = await h.view(p.run.id);
    expect(states(after)).toMatchObject({ contract: 'done', pay: 'ready' });
    expect(after.data.steps.contract.output).toEqual({ run: child, outcome: 'approved' });

    // A rejected contract takes the route for rejected: the purchase ends refused, not failed.
    const q = await h.start('purchase', { supplier: 'Shady', amount: 5 });
    const [other] = await childrenOf(h, q.run.id, 'contract');
    await h.decide(await h.view(other!, CAST.lee), 'review', 'rejected', CAST.lee, { note: 'Sanctioned owner.' });
    expect((await h.view(q.run.id)).run).toMatchObject({ state: 'ended', outcome: 'refused' });
  });

  it('fails the parent when the child fails and no route takes it', async () => {
    const h = await Harness.open(SPEC);
    const o = await h.start('onboarding', { employee: 'Mira Okafor', equipment: ['laptop'], systems: [] });
    const [child] = await childrenOf(h, o.run.id, 'equipment');
    await h.ok('cancel', { runId: child, reason: 'Supplier out of stock.' }, CAST.operator);
    const v = await h.view(o.run.id);
    expect(v.run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: 'server', note: '“Equipment order · Mira Okafor · laptop” ended cancelled, one of the 1 runs this step started' } });
  });
});

describe('flow-1 subprocess steps: fan-out', () => {
  it("starts 50 children, one per item, and goes on only when all have ended, with each one's data", async () => {
    const h = await Harness.open(SPEC);
    const items = Array.from({ length: 50 }, (_, i) => `item-${i}`);
    const t0 = performance.now();
    const o = await h.start('onboarding', { employee: 'Mira Okafor', equipment: items, systems: [] });
    process.stdout.write(`fan-out: start_run with 50 children took ${(performance.now() - t0).toFixed(0)} ms\n`);
    const kids = await childrenOf(h, o.run.id, 'equipment');
    expect(kids).toHaveLength(50);
    const seen = new Set<string>();
    for (const [i, id] of kids.entries()) {
      const v = await h.view(id);
      expect(v.data.inputs).toEqual({ employee: 'Mira Okafor', item: items[i] });
      expect(await runText(h, id)).toContain(`\nparent: ${o.run.id}\n`);
      seen.add(id);
    }
    expect(seen.size).toBe(50);
    for (const [i, id] of kids.entries()) {
      if (i < 49) {
        await order(h, id, `PO-${i}`);
        expect(states(await h.view(o.run.id))).toMatchObject({ equipment: 'waiting' });
      }
    }
    await order(h, kids[49]!, 'PO-49');
    const v = await h.view(o.run.id);
    // No systems: the access fan-out starts nothing and goes on at once, along the route for done.
    expect(states(v)).toMatchObject({ equipment: 'done', access: 'done', welcome: 'ready' });
    const out = v.data.steps.equipment.output;
    expect(out.runs).toEqual(kids);
    expect(out.outcomes).toEqual(kids.map(() => 'ordered'));
    expect(out.items[7]).toEqual({ reference: 'PO-7' });
  }, 120_000);

  it('on_failure fail: the first failed child fails the step, and the other open children are cancelled, saying why', async () => {
    const h = await Harness.open(SPEC);
    const o = await h.start('onboarding', { employee: 'Mira Okafor', equipment: ['laptop', 'phone', 'badge'], systems: [] });
    const [a, b, c] = await childrenOf(h, o.run.id, 'equipment');
    await order(h, a!, 'PO-1');
    await h.ok('cancel', { runId: b, reason: 'Phones are not issued any more.' }, CAST.operator);
    const parent = await h.view(o.run.id);
    expect(parent.run).toMatchObject({ state: 'ended', outcome: 'failed' });
    expect(parent.run.ended.note).toBe('“Equipment order · Mira Okafor · phone” ended cancelled, one of the 3 runs this step started');
    const third = await h.view(c!);
    expect(third.run).toMatchObject({ state: 'cancelled', ended: { by: 'server', note: 'its parent “Onboarding · Mira Okafor” ended failed' } });
    expect((await h.view(a!)).run).toMatchObject({ state: 'ended', outcome: 'ordered' });
  });

  it('on_failure continue: waits for every child and routes on failed', async () => {
    const h = await Harness.open(SPEC);
    const o = await h.start('onboarding', { employee: 'Mira Okafor', equipment: [], systems: ['mail', 'payroll'] });
    expect(states(o)).toMatchObject({ equipment: 'done', access: 'waiting' });
    const [mail, payroll] = await childrenOf(h, o.run.id, 'access');
    await h.decide(await h.view(mail!, CAST.fin), 'grant', 'rejected', CAST.fin, { note: 'Mail needs a signed policy first.' });
    expect(states(await h.view(o.run.id))).toMatchObject({ access: 'waiting' });
    await h.decide(await h.view(payroll!, CAST.fin), 'grant', 'approved', CAST.fin);
    const v = await h.view(o.run.id);
    expect(states(v)).toMatchObject({ access: 'done', 'follow-up': 'waiting' });
    expect(v.data.steps.access.output.outcomes).toEqual(['rejected', 'granted']);
  });
});

describe('flow-1: children blocked by other runs', () => {
  it('a fan-out whose children name a blocker starts them blocked; they wake when it ends, and fail, naming it, when it is rejected', async () => {
    const h = await Harness.open(SPEC);
    const contract = await h.start('contract-approval', { supplier: 'Acme' });
    const batch = await h.start('payment-batch', { supplier: 'Acme', amount: 40, invoices: ['i-1', 'i-2'], after: [contract.run.id] });
    expect(states(batch)).toMatchObject({ payments: 'waiting' });
    const kids = await childrenOf(h, batch.run.id, 'payments');
    expect(kids).toHaveLength(2);
    for (const id of kids) {
      const text = await runText(h, id);
      expect(text).toContain(`\nparent: ${batch.run.id}\n`);
      expect(text).toContain('\nblocked: true\n');
      expect(states(await h.view(id))).toEqual({ release: null, prepare: null, paid: null });
    }
    await h.decide(await h.view(contract.run.id, CAST.lee), 'review', 'approved', CAST.lee);
    for (const id of kids) expect(states(await h.view(id))).toMatchObject({ release: 'waiting' });

    const other = await h.start('contract-approval', { supplier: 'Shady' });
    const refused = await h.start('payment-batch', { supplier: 'Shady', amount: 5, invoices: ['i-3'], after: [other.run.id] });
    const [kid] = await childrenOf(h, refused.run.id, 'payments');
    await h.decide(await h.view(other.run.id, CAST.lee), 'review', 'rejected', CAST.lee, { note: 'Sanctioned owner.' });
    expect((await h.view(kid!)).run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: 'server', note: 'blocked by “Contract approval · Shady”, which ended rejected' } });
    expect((await h.view(refused.run.id)).run).toMatchObject({ state: 'ended', outcome: 'failed' });
  });
});

describe('flow-1: cancelling a parent', () => {
  it('ends its open children, each saying its parent was cancelled; ended children stay as they were', async () => {
    const h = await Harness.open(SPEC);
    const o = await h.start('onboarding', { employee: 'Mira Okafor', equipment: ['laptop', 'phone'], systems: [] });
    const [a, b] = await childrenOf(h, o.run.id, 'equipment');
    await order(h, a!, 'PO-1');
    await h.ok('cancel', { runId: o.run.id, reason: 'The candidate withdrew.' }, CAST.operator);
    expect((await h.view(b!)).run).toMatchObject({ state: 'cancelled', ended: { by: 'server', note: 'its parent “Onboarding · Mira Okafor” was cancelled' } });
    expect((await h.view(a!)).run).toMatchObject({ state: 'ended', outcome: 'ordered' });
  });
});

describe('flow-1: follow-on runs', () => {
  it("an outcome starts a run of another process with mapped inputs, the rule's priority and its parent; the first does not wait", async () => {
    const h = await Harness.open(SPEC);
    const hire = await h.start('hiring', { candidate: 'Mira Okafor', equipment: ['laptop'], systems: ['mail'] });
    const done = await h.decide(hire, 'offer', 'approved', CAST.fin);
    expect(done.run).toMatchObject({ state: 'ended', outcome: 'hired' });
    const text = await runText(h, hire.run.id);
    const id = /followOns:\n {2}- (r-[0-9a-z]{26})\n/.exec(text)?.[1];
    expect(id).toBeDefined();
    const next = await runText(h, id!);
    expect(next).toContain(`\npriority: 30\n`);
    expect(next).toContain(`\nparent: ${hire.run.id}\n`);
    const v = await h.view(id!);
    expect(v.run.process).toBe('onboarding');
    expect(v.data.inputs).toEqual({ employee: 'Mira Okafor', equipment: ['laptop'], systems: ['mail'] });
    // The follow-on is a parent in its turn: its first step started an equipment order.
    expect(await childrenOf(h, id!, 'equipment')).toHaveLength(1);
    // Another outcome starts nothing.
    const no = await h.start('hiring', { candidate: 'Sam Lee', equipment: [], systems: [] });
    await h.decide(no, 'offer', 'rejected', CAST.fin, { note: 'Went elsewhere.' });
    expect(await runText(h, no.run.id)).not.toContain('followOns');
  });
});

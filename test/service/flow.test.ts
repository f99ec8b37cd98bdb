/**
 * The flow-1 profile (docs/profile-flow-1.md) on real boards through the
 * service: priority (a process default, an input, a person's change, and the
 * order of get_work and list_runs), and runs blocked by other runs (not
 * offered while blocked, woken by the last blocker's good end with the first
 * step's people told, ended the matching way by a blocker that failed or was
 * cancelled, bad blockers refused at start). Every result goes through the
 * harness's `call`, which validates it against the upstream schemas: a
 * process with the profile still answers the core's closed shapes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { allEntries } from '../../src/notify/outbox.js';
import { CAST, cleanupHarnesses, Harness, states, type BoardSpec, type Data } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { legal: [CAST.lee], finance: [CAST.fin] },
  processes: [
    { folder: 'contract-approval', roles: { legal: 'legal' } },
    { folder: 'supplier-payment', roles: { finance: 'finance' } },
    { folder: 'claim-review', roles: { 'finance-approver': 'finance' } },
  ],
};

const contract = (h: Harness, supplier = 'Acme') => h.start('contract-approval', { supplier });
const payment = (h: Harness, inputs: Record<string, unknown> = {}) => h.start('supplier-payment', { supplier: 'Acme', amount: 100, ...inputs });
const approveContract = async (h: Harness, runId: string, decision = 'approved', extra: Record<string, unknown> = {}) => h.decide(await h.view(runId), 'review', decision, CAST.lee, extra);
const financeItems = async (h: Harness): Promise<Data[]> => (await h.ok('get_work', {}, CAST.fin)).items;
const runText = async (h: Harness, runId: string) => (await h.snapshot())[`runs/${runId}/RUN.md`]!;

describe('flow-1: describe and publication', () => {
  it('is offered in describe, and a version records that it uses it', async () => {
    const h = await Harness.open(SPEC);
    expect((await h.ok('describe', {}, CAST.agent)).profiles).toContain('flow-1');
    const snap = await h.snapshot();
    expect(snap['processes/supplier-payment/v1/VERSION.md']).toMatch(/profiles:\n  - flow-1\n/);
    expect(snap['processes/contract-approval/v1/VERSION.md']).toMatch(/profiles: \[\]\n/);
  });
});

describe('flow-1: priority', () => {
  it('a run takes its level from the input named by priority_from, else the process default; a run of another process has none', async () => {
    const h = await Harness.open(SPEC);
    const byDefault = await payment(h);
    const urgent = await payment(h, { urgency: 'urgent' });
    const other = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    expect(await runText(h, byDefault.run.id)).toMatch(/\npriority: 30\n/);
    expect(await runText(h, urgent.run.id)).toMatch(/\npriority: 40\n/);
    expect(await runText(h, other.run.id)).not.toMatch(/priority/);
  });

  it("orders a person's get_work highest first, then oldest; a run of a process without flow: counts as normal", async () => {
    const h = await Harness.open(SPEC);
    const low = await payment(h, { urgency: 'low' });
    h.advance('1m');
    const normalOld = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    h.advance('1m');
    const high = await payment(h); // the process default
    h.advance('1m');
    const urgent = await payment(h, { urgency: 'urgent' });
    h.advance('1m');
    const high2 = await payment(h, { urgency: 'high' });
    // claim-review's first step is an agent's: get it to its finance approval.
    const c = await h.claim(normalOld.run.id, 'check');
    await h.ok(
      'submit',
      {
        token: c.token,
        output: { withinPolicy: true, notes: 'Fine.', risk: 'low', lines: ['hotel'] },
        evidence: [{ kind: 'link', ref: 'https://policy.example.com' }],
        summary: 'Checked.',
        next: 'approve',
        reason: 'Within policy.',
      },
      CAST.agent,
    );
    const order = (await financeItems(h)).map((i) => i.runId);
    expect(order).toEqual([urgent.run.id, high.run.id, high2.run.id, normalOld.run.id, low.run.id]);
    // Paged one at a time, the cursor walks the same order.
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const p = await h.ok('get_work', { limit: 1, ...(cursor ? { cursor } : {}) }, CAST.fin);
      paged.push(...p.items.map((i: Data) => i.runId));
      cursor = p.nextCursor ?? undefined;
    } while (cursor);
    expect(paged).toEqual(order);
  });

  it('orders an agent\'s get_work the same way, and a claim carries the level in extensions["flow-1"]', async () => {
    const h = await Harness.open(SPEC);
    const normal = await payment(h, { urgency: 'normal' });
    h.advance('1m');
    const urgent = await payment(h, { urgency: 'urgent' });
    for (const v of [normal, urgent]) await h.decide(await h.view(v.run.id), 'release', 'approved', CAST.fin);
    const items = (await h.ok('get_work', {}, CAST.agent)).items;
    expect(items.map((i: Data) => i.runId)).toEqual([urgent.run.id, normal.run.id]);
    const claim = await h.claim(urgent.run.id, 'prepare');
    expect(claim.extensions).toEqual({ 'flow-1': { priority: 40, priorityName: 'urgent', blockedBy: [] } });
    // A run of a process without flow: gets the core's claim, with no extensions at all.
    const other = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    expect(Object.keys(await h.claim(other.run.id, 'check'))).not.toContain('extensions');
  });

  it('list_runs puts open runs of a higher level first, then newest as before; ended runs keep id order', async () => {
    const h = await Harness.open(SPEC);
    // Run ids sort by the moment they were made: a minute apart, their order is certain.
    const a = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    h.advance('1m');
    const low = await payment(h, { urgency: 'low' });
    h.advance('1m');
    const urgent = await payment(h, { urgency: 'urgent' });
    h.advance('1m');
    const b = await h.start('claim-review', { claimant: CAST.ann, amount: 20 });
    const rows = (await h.ok('list_runs', {}, CAST.ann)).items.map((r: Data) => r.id);
    expect(rows).toEqual([urgent.run.id, b.run.id, a.run.id, low.run.id]);
  });

  it("an operator or the run's starter sets it on a running run, audited; anyone else, a run without flow:, an ended run or a bad level is refused and nothing changes", async () => {
    const h = await Harness.open(SPEC);
    const v = await payment(h); // started by ann
    const other = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    const before = await h.snapshot();
    for (const who of [CAST.agent, CAST.fin]) expect((await h.service.setPriority(v.run.id, 'urgent', h.as(who))).ok).toBe(false);
    expect(await h.service.setPriority(v.run.id, 'urgent', h.as(CAST.fin))).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await h.service.setPriority(v.run.id, 'asap', h.as(CAST.operator))).toMatchObject({ ok: false, error: { code: 'invalid', issues: ['priority: one of low, normal, high, urgent'] } });
    expect(await h.service.setPriority(other.run.id, 'urgent', h.as(CAST.operator))).toMatchObject({ ok: false, error: { code: 'invalid' } });
    expect(await h.snapshot()).toEqual(before);

    h.advance('5m');
    expect(await h.service.setPriority(v.run.id, 'urgent', h.as(CAST.operator))).toEqual({ ok: true, data: { priority: 40 } });
    expect(await runText(h, v.run.id)).toMatch(/\npriority: 40\n/);
    expect(await h.service.setPriority(v.run.id, 'low', h.as(CAST.ann))).toEqual({ ok: true, data: { priority: 10 } });
    const timeline = await h.service.runTimeline(v.run.id);
    const changes = timeline!.events.filter((e) => e.action === 'run.priority-changed').map((e) => ({ actor: e.actor, changes: (e.input as { changes?: unknown }).changes }));
    expect(changes).toEqual([
      { actor: CAST.operator, changes: { from: 'high', to: 'urgent' } },
      { actor: CAST.ann, changes: { from: 'urgent', to: 'low' } },
    ]);
    await h.ok('cancel', { runId: v.run.id, reason: 'Not needed.' }, CAST.operator);
    expect(await h.service.setPriority(v.run.id, 'high', h.as(CAST.operator))).toMatchObject({ ok: false, error: { code: 'conflict', issues: ['run_ended'] } });
  });
});

describe('flow-1: runs blocked by other runs', () => {
  it("a blocked run enters no step and offers no work; the last blocker's approval wakes it, its first step's people told", async () => {
    const h = await Harness.open(SPEC);
    const c1 = await contract(h, 'Acme');
    const c2 = await contract(h, 'Acme Logistics');
    h.advance('1m');
    const p = await payment(h, { after: [c1.run.id, c2.run.id] });
    expect(p.run.state).toBe('waiting');
    expect(states(p)).toEqual({ release: null, prepare: null, paid: null });
    expect(p.workItems).toEqual([]);
    expect(await runText(h, p.run.id)).toContain(`blockedBy:\n  - ${c1.run.id}\n  - ${c2.run.id}\nblocked: true\n`);
    expect((await financeItems(h)).map((i) => i.runId)).toEqual([]);
    expect(await h.service.runFlow(p.run.id)).toEqual({
      priority: 30,
      blocked: true,
      blockedBy: [
        { id: c1.run.id, title: 'Contract approval · Acme', process: 'contract-approval', state: 'waiting', outcome: null },
        { id: c2.run.id, title: 'Contract approval · Acme Logistics', process: 'contract-approval', state: 'waiting', outcome: null },
      ],
    });

    h.advance('1h');
    await approveContract(h, c1.run.id);
    expect(states(await h.view(p.run.id))).toEqual({ release: null, prepare: null, paid: null });
    h.advance('1h');
    await approveContract(h, c2.run.id);
    // The write that ended the last blocker answered after the wake: the work is there now.
    const woke = await h.view(p.run.id);
    expect(states(woke)).toEqual({ release: 'waiting', prepare: null, paid: null });
    expect((await financeItems(h)).map((i) => i.runId)).toEqual([p.run.id]);
    expect(h.item(woke, 'release').snapshot).toBeTypeOf('string');
    expect(await runText(h, p.run.id)).not.toMatch(/blocked: true/);
    expect((await h.service.runFlow(p.run.id))!.blocked).toBe(false);
    const told = (await allEntries(h.board.state)).filter((e) => e.runId === p.run.id);
    expect(told.map((e) => ({ kind: e.kind, stepId: e.stepId, recipients: e.recipients }))).toEqual([{ kind: 'work_item', stepId: 'release', recipients: [CAST.fin] }]);
    const timeline = (await h.service.runTimeline(p.run.id))!.events.map((e) => e.action);
    expect(timeline).toEqual(['run.started', 'run.blocked', 'run.unblocked', 'work-item.opened']);
  });

  it('a blocker rejected fails the run it blocks, naming it; that failure ends the run blocked by it in turn', async () => {
    const h = await Harness.open(SPEC);
    const c = await contract(h);
    const p = await payment(h, { after: [c.run.id] });
    const later = await payment(h, { after: [p.run.id] });
    h.advance('2h');
    await approveContract(h, c.run.id, 'rejected', { note: 'Liability clause unacceptable.' });
    const failed = await h.view(p.run.id);
    expect(failed.run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: 'server', at: h.at(), note: 'blocked by “Contract approval · Acme”, which ended rejected' } });
    expect((await h.view(later.run.id)).run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { note: 'blocked by “Supplier payment · Acme · 100”, which ended failed' } });
  });

  it('a blocker cancelled cancels the run it blocks, naming it', async () => {
    const h = await Harness.open(SPEC);
    const c = await contract(h);
    const p = await payment(h, { after: [c.run.id] });
    await h.ok('cancel', { runId: c.run.id, reason: 'Supplier withdrew.' }, CAST.operator);
    expect((await h.view(p.run.id)).run).toMatchObject({ state: 'cancelled', outcome: null, ended: { by: 'server', note: 'blocked by “Contract approval · Acme”, which was cancelled' } });
  });

  it('a blocker that already ended well does not block: the run enters its first step at start and records it', async () => {
    const h = await Harness.open(SPEC);
    const c = await contract(h);
    await approveContract(h, c.run.id);
    const p = await payment(h, { after: [c.run.id] });
    expect(states(p)).toEqual({ release: 'waiting', prepare: null, paid: null });
    const text = await runText(h, p.run.id);
    expect(text).toContain(`blockedBy:\n  - ${c.run.id}\n`);
    expect(text).not.toContain('blocked: true');
  });

  it('refuses at start, naming every problem and writing nothing: no such run, a run named twice, a blocker that already failed or was cancelled', async () => {
    const h = await Harness.open(SPEC);
    const ok = await contract(h);
    const rejected = await contract(h);
    await approveContract(h, rejected.run.id, 'rejected', { note: 'No.' });
    const cancelled = await contract(h);
    await h.ok('cancel', { runId: cancelled.run.id, reason: 'Gone.' }, CAST.operator);
    const before = await h.snapshot();
    const missing = 'r-00000000000000000000000000';
    const e = await h.fail(
      'start_run',
      { process: 'supplier-payment', inputs: { supplier: 'Acme', amount: 1, after: [ok.run.id, missing, ok.run.id, rejected.run.id, cancelled.run.id, 'nonsense'] } },
      CAST.ann,
    );
    expect(e.code).toBe('invalid');
    expect(e.issues).toEqual([
      `inputs.after[1]: no run ${missing} on this board`,
      `inputs.after[2]: run ${ok.run.id} is named twice`,
      `inputs.after[3]: run ${rejected.run.id} (contract-approval) already ended rejected; a run it blocks could never start`,
      `inputs.after[4]: run ${cancelled.run.id} (contract-approval) already was cancelled; a run it blocks could never start`,
      'inputs.after[5]: no run nonsense on this board',
    ]);
    expect(await h.snapshot()).toEqual(before);
  });

  it("a blocked run can be cancelled by an operator, and then its blocker's end changes nothing", async () => {
    const h = await Harness.open(SPEC);
    const c = await contract(h);
    const p = await payment(h, { after: [c.run.id] });
    await h.ok('cancel', { runId: p.run.id, reason: 'Paid another way.' }, CAST.operator);
    await approveContract(h, c.run.id);
    expect((await h.view(p.run.id)).run).toMatchObject({ state: 'cancelled', ended: { by: CAST.operator, note: 'Paid another way.' } });
  });

  it('a claim on a woken run carries its blockers in extensions["flow-1"]', async () => {
    const h = await Harness.open(SPEC);
    const c = await contract(h);
    const p = await payment(h, { after: [c.run.id], urgency: 'low' });
    await approveContract(h, c.run.id);
    await h.decide(await h.view(p.run.id), 'release', 'approved', CAST.fin);
    expect((await h.claim(p.run.id, 'prepare')).extensions).toEqual({ 'flow-1': { priority: 10, priorityName: 'low', blockedBy: [c.run.id] } });
  });
});

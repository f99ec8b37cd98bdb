/**
 * Escalation (spec §3.3, §3.4; tool contracts "escalate", "decide"): an
 * agent that cannot finish hands the step to the operators with a note and
 * loses its claim. An operator returns it (the note travels in
 * handoff.returned, the due clock keeps running), completes it under the same
 * acceptance, or fails the run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, states, stepView, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = { groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] };
const WORK = {
  output: { withinPolicy: true, notes: 'Readable after a rescan.', risk: 'low', lines: ['meal'] },
  evidence: [{ kind: 'link', ref: 'https://policy.example.com/meals' }],
  next: 'approve',
  reason: 'A meal within the daily cap.',
};
const NOTE = 'The receipt is illegible; I cannot read the amount.';

async function escalated(h: Harness) {
  const v = await h.start('claim-review', { claimant: CAST.ann, amount: 31 });
  const due = stepView(v, 'check').due;
  h.advance('1h');
  const c = await h.claim(v.run.id, 'check');
  h.advance('5m');
  const e = await h.ok('escalate', { token: c.token, note: NOTE }, CAST.agent);
  return { v, c, e, due, at: h.at() };
}

describe('escalate', () => {
  it('hands the step to the operators with the note; the claim is gone and the token with it', async () => {
    const h = await Harness.open(SPEC);
    const { v, c, e, due, at } = await escalated(h);
    expect(states(e)).toEqual({ check: 'waiting', approve: null, refused: null, paid: null });
    expect.soft(e.run.state, 'only an escalation is pending: waiting (§3.5)').toBe('waiting');
    expect((await h.view(v.run.id)).run.state).toBe('waiting');
    const wi = h.item(e, 'check');
    expect(wi).toMatchObject({
      stepId: 'check',
      kind: 'agent',
      text: 'Compare the claim with the travel policy and link the policy page you used.',
      output: c.step.output,
      evidence: ['link'],
      next: c.step.next,
      escalation: { note: NOTE, by: CAST.agent, at },
      due,
      decide: { decisions: ['returned', 'completed', 'failed'] },
    });
    expect(e.data.steps).toEqual({});

    for (const [tool, args] of [
      ['submit', { token: c.token, ...WORK, summary: 'x' }],
      ['renew', { token: c.token }],
      ['escalate', { token: c.token, note: 'again' }],
    ] as const) {
      expect((await h.fail(tool, args, CAST.agent)).code, tool).toBe('stale');
    }
    expect(await h.fail('claim', { runId: v.run.id, stepId: 'check' }, CAST.agent)).toMatchObject({ code: 'conflict', issues: ['not_ready'] });
    expect((await h.ok('get_work', {}, CAST.agent)).items).toEqual([]);

    // The operators' queue has it; nobody else's does.
    const ops = await h.ok('get_work', {}, CAST.operator);
    expect(ops.items.map((i: { workItem: { id: string } }) => i.workItem.id)).toEqual([wi.id]);
    expect((await h.ok('get_work', {}, CAST.fin)).items).toEqual([]);
    expect((await h.ok('get_work', {}, CAST.ann)).items).toEqual([]);
    const base = { runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot, decision: 'returned', note: 'Rescanned.' };
    expect((await h.fail('decide', base, CAST.fin)).code).toBe('forbidden');
    expect((await h.fail('decide', base, CAST.agent)).code).toBe('forbidden');
  });

  it('returned: the step is ready again, the note travels in handoff.returned, the due clock does not restart', async () => {
    const h = await Harness.open(SPEC);
    const { v, e, due } = await escalated(h);
    const wi = h.item(e, 'check');
    const base = { runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot };
    expect((await h.fail('decide', { ...base, decision: 'returned' }, CAST.operator)).code).toBe('invalid');
    expect((await h.fail('decide', { ...base, decision: 'returned', note: 'x', output: WORK.output }, CAST.operator)).code).toBe('invalid');
    expect((await h.fail('decide', { ...base, decision: 'approved' }, CAST.operator)).code).toBe('invalid');

    h.advance('30m');
    const r = await h.ok('decide', { ...base, decision: 'returned', note: 'Rescanned it; the amount is 31.00.' }, CAST.operator);
    const returned = { returned: { note: 'Rescanned it; the amount is 31.00.', by: CAST.operator, at: h.at() } };
    expect(states(r)).toEqual({ check: 'ready', approve: null, refused: null, paid: null });
    expect.soft(r.run.state).toBe('active');
    expect(r.workItems).toEqual([]);
    expect(stepView(r, 'check')).toMatchObject({ due, overdue: false });
    expect(r.data.steps).toEqual({});

    const work = await h.ok('get_work', {}, CAST.rival);
    expect(work.items).toHaveLength(1);
    expect(work.items[0]).toMatchObject({ stepId: 'check', due, handoff: returned });
    const c = await h.claim(v.run.id, 'check', CAST.rival);
    expect(c.handoff).toEqual(returned);
    const done = await h.ok('submit', { token: c.token, ...WORK, summary: 'Used the rescan.' }, CAST.rival);
    expect(states(done)).toEqual({ check: 'done', approve: 'waiting', refused: null, paid: null });
    expect(done.data.steps.check).toMatchObject({ by: CAST.rival, summary: 'Used the rescan.', history: [] });
    // An already-decided escalation learns so.
    expect(await h.fail('decide', { ...base, decision: 'returned', note: 'again' }, CAST.operator)).toMatchObject({ code: 'conflict', issues: ['already_decided'] });
  });

  it('completed: an operator finishes the step in the agent’s place, under the same acceptance', async () => {
    const h = await Harness.open(SPEC);
    const { v, e } = await escalated(h);
    const wi = h.item(e, 'check');
    const base = { runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot, decision: 'completed' };
    const before = await h.snapshot();
    const na = await h.fail('decide', { ...base, output: { withinPolicy: true } }, CAST.operator);
    expect(na.code).toBe('not_accepted');
    expect(na.issues).toEqual(
      expect.arrayContaining(['output.notes: missing', 'output.risk: missing', 'output.lines: missing', 'evidence: link required', 'next: required, one of approve, refused', 'reason: required']),
    );
    expect(na.issues).toHaveLength(6);
    expect(await h.snapshot()).toEqual(before);

    h.advance('10m');
    const done = await h.ok('decide', { ...base, ...WORK }, CAST.operator);
    expect(states(done)).toEqual({ check: 'done', approve: 'waiting', refused: null, paid: null });
    expect(done.data.steps.check).toEqual({ ...WORK, by: CAST.operator, at: h.at(), history: [] });
    expect(h.item(done, 'approve').assignedTo).toEqual({ group: 'finance' });
  });

  it('failed: the operator ends the run, the step is failed with the note', async () => {
    const h = await Harness.open(SPEC);
    const { e, v } = await escalated(h);
    h.advance('10m');
    const end = await h.decide(e, 'check', 'failed', CAST.operator, { note: 'Fraudulent receipt.' });
    expect(end.run).toMatchObject({ id: v.run.id, state: 'ended', outcome: 'failed', ended: { by: CAST.operator, at: h.at(), note: 'Fraudulent receipt.' } });
    expect(states(end)).toEqual({ check: 'failed', approve: null, refused: null, paid: null });
    expect(end.data.steps.check).toEqual({ decision: 'failed', note: 'Fraudulent receipt.', by: CAST.operator, at: h.at(), history: [] });
    expect(end.workItems).toEqual([]);
    expect((await h.ok('get_work', {}, CAST.operator)).items).toEqual([]);
  });

  it('refuses an escalation without a note as invalid', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 31 });
    const c = await h.claim(v.run.id, 'check');
    expect((await h.fail('escalate', { token: c.token }, CAST.agent)).code).toBe('invalid');
    expect(states(await h.view(v.run.id))).toMatchObject({ check: 'claimed' });
  });
});

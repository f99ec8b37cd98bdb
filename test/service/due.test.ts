/**
 * `due` (spec §2.2, "Implementing" step 6): a duration after the step
 * becomes ready; when it passes the step is marked overdue and the work
 * stays open. Shown on steps[] (due, overdue), get_work items and work items.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, states, stepView, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = { groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] };
const SUBMISSION = {
  output: { withinPolicy: true, notes: 'Fine.', risk: 'low', lines: ['hotel'] },
  evidence: [{ kind: 'link', ref: 'https://policy.example.com' }],
  summary: 'Checked the one hotel line.',
  next: 'approve',
  reason: 'Within the city cap.',
};

describe('due and overdue', () => {
  it('an agent step becomes overdue when its due passes, and stays open and claimable', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    const due = h.at('4h');
    expect(stepView(v, 'check')).toEqual({ id: 'check', kind: 'agent', state: 'ready', due, overdue: false });

    h.advance('3h');
    h.advance('59m');
    expect(stepView(await h.view(v.run.id), 'check')).toMatchObject({ due, overdue: false });
    expect((await h.ok('get_work', {}, CAST.agent)).items[0]).toMatchObject({ due, overdue: false });

    h.advance('2m');
    const late = await h.view(v.run.id);
    expect(stepView(late, 'check')).toEqual({ id: 'check', kind: 'agent', state: 'ready', due, overdue: true });
    expect(late.run.state).toBe('active');
    const work = await h.ok('get_work', {}, CAST.agent);
    expect(work.items[0]).toMatchObject({ stepId: 'check', due, overdue: true });

    // Still claimable; still overdue while claimed; the submission is accepted as usual.
    const c = await h.claim(v.run.id, 'check');
    expect(stepView(await h.view(v.run.id), 'check')).toMatchObject({ state: 'claimed', due, overdue: true });
    const s = await h.ok('submit', { token: c.token, ...SUBMISSION }, CAST.agent);
    expect(states(s)).toMatchObject({ check: 'done', approve: 'waiting' });
  });

  it('a person step’s due starts when it becomes ready; overdue keeps the work item open until decided', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    h.advance('1h');
    const c = await h.claim(v.run.id, 'check');
    const s = await h.ok('submit', { token: c.token, ...SUBMISSION }, CAST.agent);
    const due = h.at('2d');
    expect(stepView(s, 'approve')).toEqual({ id: 'approve', kind: 'approve', state: 'waiting', due, overdue: false });
    expect(h.item(s, 'approve').due).toEqual(due);

    h.advance('2d');
    h.advance('1m');
    const late = await h.view(v.run.id);
    expect(stepView(late, 'approve')).toEqual({ id: 'approve', kind: 'approve', state: 'waiting', due, overdue: true });
    expect(h.item(late, 'approve').due).toEqual(due);
    const inbox = await h.ok('get_work', {}, CAST.fin);
    expect(inbox.items).toHaveLength(1);
    expect(inbox.items[0].workItem.due).toEqual(due);

    const end = await h.decide(late, 'approve', 'approved', CAST.fin);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'paid' });
  });
});

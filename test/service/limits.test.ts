/**
 * The run-data cap (spec §6 rule 3, revision 8): `limits.runDataBytes`
 * bounds run inputs at start, every submission, and event data when held.
 * Over the cap: inputs are `invalid`, a submission is `not_accepted` with
 * the claim standing, and nothing changes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, states, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const CAP = 4096;
const SPEC: BoardSpec = {
  runDataBytes: CAP,
  groups: { 'desk-team': [CAST.ann], finance: [CAST.fin] },
  processes: [{ folder: 'intake-form', roles: { desk: 'desk-team' } }, { folder: 'claim-review', roles: { 'finance-approver': 'finance' } }, { folder: 'two-payments' }],
};
const INTAKE = {
  title: 'Chair',
  amount: 80,
  urgent: false,
  neededBy: '2026-11-01',
  receivedAt: '2026-10-06T09:00:00Z',
  requester: CAST.bob,
  tags: [],
  details: {},
  size: 'small',
};
const BIG = 'x'.repeat(CAP + 1);

describe('limits.runDataBytes', () => {
  it('is published in describe', async () => {
    const h = await Harness.open(SPEC);
    expect((await h.ok('describe', {}, CAST.agent)).limits.runDataBytes).toBe(CAP);
  });

  it('bounds run inputs at start: invalid, and no run', async () => {
    const h = await Harness.open(SPEC);
    const before = await h.snapshot();
    const e = await h.fail('start_run', { process: 'intake-form', inputs: { ...INTAKE, title: BIG } }, CAST.ann);
    expect(e.code).toBe('invalid');
    expect(e.issues?.length).toBeGreaterThan(0);
    expect(await h.snapshot()).toEqual(before);
    expect((await h.ok('list_runs', {}, CAST.ann)).items).toEqual([]);
    expect((await h.start('intake-form', INTAKE)).run.state).toBe('active');
  });

  it('bounds a submission: not_accepted, nothing changed, the claim stands', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 5 });
    const c = await h.claim(v.run.id, 'check');
    const sub = {
      token: c.token,
      output: { withinPolicy: true, notes: BIG, risk: 'low', lines: ['meal'] },
      evidence: [{ kind: 'link', ref: 'https://policy.example.com' }],
      summary: 'Checked.',
      next: 'approve',
      reason: 'Fine.',
    };
    const before = await h.snapshot();
    const e = await h.fail('submit', sub, CAST.agent);
    expect(e.code).toBe('not_accepted');
    expect(e.issues).toHaveLength(1);
    expect(await h.snapshot()).toEqual(before);
    const ok = await h.ok('submit', { ...sub, output: { ...sub.output, notes: 'Short notes.' } }, CAST.agent);
    expect(states(ok)).toMatchObject({ check: 'done', approve: 'waiting' });
  });

  it('bounds event data when held: refused, and nothing is held', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('two-payments', {});
    const e = await h.fail('send_event', { runId: v.run.id, name: 'payment', data: { memo: BIG } }, CAST.agent);
    // The contracts name no code for this; a refusal that changes nothing is what §6 rule 3 requires.
    expect(['invalid', 'not_accepted']).toContain(e.code);
    expect(await h.ok('send_event', { runId: v.run.id, name: 'payment', data: { memo: 'small' } }, CAST.agent)).toEqual({ consumedBy: null });
    const c = await h.claim(v.run.id, 'invoice');
    const s = await h.ok('submit', { token: c.token, output: { number: 'INV-3' }, summary: 'Raised.' }, CAST.agent);
    // Only the small event was held: it satisfies the first wait, the second still waits.
    expect(states(s)).toMatchObject({ first_instalment: 'done', second_instalment: 'waiting' });
    expect(s.data.steps.first_instalment.output).toEqual({ memo: 'small' });
  });
});

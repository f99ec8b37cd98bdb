/**
 * cancel (spec §3.5; tool contracts "cancel"): operators only; every
 * unfinished step becomes cancelled, every work item goes, every token stops
 * working; from then on every write to the run is `conflict` with
 * `run_ended`, checked before anything else; cancelling again is a conflict.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, states, type BoardSpec, CLAIM_REVIEW_SUBMISSION } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = { groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] };
const SUBMISSION = CLAIM_REVIEW_SUBMISSION;
const RUN_ENDED = { code: 'conflict', issues: ['run_ended'] };

describe('cancel', () => {
  it('is for operators only', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    expect((await h.fail('cancel', { runId: v.run.id, reason: 'no' }, CAST.agent)).code).toBe('forbidden');
    expect((await h.fail('cancel', { runId: v.run.id, reason: 'no' }, CAST.fin)).code).toBe('forbidden');
    expect((await h.fail('cancel', { runId: v.run.id, reason: 'no' }, CAST.ann)).code).toBe('forbidden');
    expect((await h.fail('cancel', { runId: v.run.id }, CAST.operator)).code).toBe('invalid');
    expect((await h.fail('cancel', { runId: 'r-00000000000000000000000000', reason: 'x' }, CAST.operator)).code).toBe('not_found');
    expect((await h.view(v.run.id)).run.state).toBe('active');
  });

  it('cancels a run with a claimed step: every unfinished step cancelled, the token dead, later writes run_ended', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    const c = await h.claim(v.run.id, 'check');
    h.advance('1h');
    const x = await h.ok('cancel', { runId: v.run.id, reason: 'Duplicate claim.' }, CAST.operator);
    expect(x.run).toMatchObject({ state: 'cancelled', outcome: null, ended: { by: CAST.operator, at: h.at(), note: 'Duplicate claim.' } });
    expect(states(x)).toEqual({ check: 'cancelled', approve: null, refused: null, paid: null });
    expect(x.workItems).toEqual([]);
    expect(x.data.steps).toEqual({});

    expect(await h.fail('submit', { token: c.token, ...SUBMISSION }, CAST.agent)).toMatchObject(RUN_ENDED);
    expect(await h.fail('renew', { token: c.token }, CAST.agent)).toMatchObject(RUN_ENDED);
    expect(await h.fail('escalate', { token: c.token, note: 'x' }, CAST.agent)).toMatchObject(RUN_ENDED);
    expect(await h.fail('claim', { runId: v.run.id, stepId: 'check' }, CAST.rival)).toMatchObject(RUN_ENDED);
    expect(await h.fail('send_event', { runId: v.run.id, name: 'anything' }, CAST.agent)).toMatchObject(RUN_ENDED);
    expect(await h.fail('cancel', { runId: v.run.id, reason: 'again' }, CAST.operator)).toMatchObject(RUN_ENDED);
    // run_ended is checked before anything else: even for an identity that could never do it.
    expect(await h.fail('cancel', { runId: v.run.id, reason: 'again' }, CAST.agent)).toMatchObject(RUN_ENDED);
    expect(await h.fail('claim', { runId: v.run.id, stepId: 'approve' }, CAST.ann)).toMatchObject(RUN_ENDED);

    expect((await h.ok('get_work', {}, CAST.agent)).items).toEqual([]);
    const after = await h.view(v.run.id);
    expect(after.run.state).toBe('cancelled');
    expect(states(after)).toEqual({ check: 'cancelled', approve: null, refused: null, paid: null });
  });

  it('a claim token used by another identity on an ended run is run_ended, not forbidden (issue 25, item 7)', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    const c = await h.claim(v.run.id, 'check', CAST.agent);
    await h.ok('cancel', { runId: v.run.id, reason: 'Duplicate claim.' }, CAST.operator);
    for (const who of [CAST.rival, CAST.fin]) {
      expect(await h.fail('submit', { token: c.token, ...SUBMISSION }, who)).toMatchObject(RUN_ENDED);
      expect(await h.fail('renew', { token: c.token }, who)).toMatchObject(RUN_ENDED);
      expect(await h.fail('escalate', { token: c.token, note: 'x' }, who)).toMatchObject(RUN_ENDED);
    }
    // Before the run ended, the same calls were forbidden: the token is bound to its claimant.
    const w = await h.start('claim-review', { claimant: CAST.ann, amount: 11 });
    const d = await h.claim(w.run.id, 'check', CAST.agent);
    expect((await h.fail('submit', { token: d.token, ...SUBMISSION }, CAST.rival)).code).toBe('forbidden');
  });

  it('cancels a run waiting on a person: the work item goes, a late decision is run_ended', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    const c = await h.claim(v.run.id, 'check');
    const s = await h.ok('submit', { token: c.token, ...SUBMISSION }, CAST.agent);
    const wi = h.item(s, 'approve');
    const x = await h.ok('cancel', { runId: v.run.id, reason: 'Claimant withdrew it.' }, CAST.operator);
    expect(states(x)).toEqual({ check: 'done', approve: 'cancelled', refused: null, paid: null });
    expect(x.workItems).toEqual([]);
    expect(x.data.steps.check).toMatchObject({ output: SUBMISSION.output });
    expect((await h.ok('get_work', {}, CAST.fin)).items).toEqual([]);
    expect(await h.fail('decide', { runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot, decision: 'approved' }, CAST.fin)).toMatchObject(RUN_ENDED);
    // run_ended before not_found and before the arguments' meaning is looked at
    expect(await h.fail('decide', { runId: v.run.id, workItemId: 'w-nope', snapshot: 'x', decision: 'approved' }, CAST.fin)).toMatchObject(RUN_ENDED);
  });

  it('cancelling a run that ended is a conflict', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    const c = await h.claim(v.run.id, 'check');
    const end = await h.ok('submit', { token: c.token, ...SUBMISSION, next: 'refused', reason: 'Out of policy.' }, CAST.agent);
    expect(end.run.state).toBe('ended');
    expect(await h.fail('cancel', { runId: v.run.id, reason: 'too late' }, CAST.operator)).toMatchObject(RUN_ENDED);
    expect((await h.view(v.run.id)).run).toMatchObject({ state: 'ended', outcome: 'refused' });
  });
});

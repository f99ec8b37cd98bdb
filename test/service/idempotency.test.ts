/**
 * Idempotency (spec §4, §3.3; "Implementing" step 7): repeating a requestId
 * with the same arguments returns the original result and changes nothing —
 * a claim's token included, even after its lease ended, even after the run
 * ended. The same requestId with other arguments is a conflict. A call that
 * failed is not recorded, so a retry can succeed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, rid, states, type BoardSpec, CLAIM_REVIEW_SUBMISSION } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { finance: [CAST.fin, CAST.cat], editors: [CAST.ed] },
  processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }, { folder: 'draft-review', roles: { editor: 'editors' } }, { folder: 'two-payments' }],
};
const INPUTS = { claimant: CAST.ann, amount: 10 };
const SUBMISSION = CLAIM_REVIEW_SUBMISSION;

describe('replay', () => {
  it('start_run: the same requestId and arguments return the original run; other arguments are a conflict', async () => {
    const h = await Harness.open(SPEC);
    const requestId = rid();
    const first = await h.ok('start_run', { process: 'claim-review', inputs: INPUTS, requestId }, CAST.ann);
    h.advance('1m');
    const before = await h.snapshot();
    const again = await h.ok('start_run', { process: 'claim-review', inputs: INPUTS, requestId }, CAST.ann);
    expect(again).toEqual(first);
    expect(await h.snapshot()).toEqual(before);
    expect((await h.ok('list_runs', {}, CAST.ann)).items).toHaveLength(1);
    const other = await h.fail('start_run', { process: 'claim-review', inputs: { ...INPUTS, amount: 11 }, requestId }, CAST.ann);
    expect(other.code).toBe('conflict');
    // A requestId is unique within the organization, across tools.
    expect((await h.fail('claim', { runId: first.run.id, stepId: 'check', requestId }, CAST.agent)).code).toBe('conflict');
    expect((await h.ok('list_runs', {}, CAST.ann)).items).toHaveLength(1);
  });

  it('claim: a replay returns the original token and expiry, even after the lease ended', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const requestId = rid();
    const first = await h.ok('claim', { runId: v.run.id, stepId: 'check', requestId }, CAST.agent);
    expect(await h.ok('claim', { runId: v.run.id, stepId: 'check', requestId }, CAST.agent)).toEqual(first);
    h.advance('11m');
    const late = await h.ok('claim', { runId: v.run.id, stepId: 'check', requestId }, CAST.agent);
    expect(late).toEqual(first);
    expect(Date.parse(late.expiresAt)).toBeLessThan(h.clock);
    // The replay did not claim anything: the step is free and the old token stale.
    expect(states(await h.view(v.run.id))).toMatchObject({ check: 'ready' });
    expect((await h.fail('submit', { token: late.token, ...SUBMISSION }, CAST.agent)).code).toBe('stale');
    const fresh = await h.claim(v.run.id, 'check', CAST.rival);
    expect(fresh.token).not.toBe(first.token);
  });

  it('submit and decide: a replay returns the original view even after the run moved on and ended', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    const submitId = rid();
    const submitted = await h.ok('submit', { token: c.token, ...SUBMISSION, requestId: submitId }, CAST.agent);
    h.advance('1h');
    expect(await h.ok('submit', { token: c.token, ...SUBMISSION, requestId: submitId }, CAST.agent)).toEqual(submitted);
    expect((await h.fail('submit', { token: c.token, ...SUBMISSION, summary: 'Other words.', requestId: submitId }, CAST.agent)).code).toBe('conflict');

    const wi = h.item(submitted, 'approve');
    const decideArgs = { runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot, decision: 'approved', requestId: rid() };
    const decided = await h.ok('decide', decideArgs, CAST.fin);
    expect(decided.run).toMatchObject({ state: 'ended', outcome: 'paid' });
    h.advance('1h');
    // After the run ended, replays still return the original results, not run_ended.
    expect(await h.ok('decide', decideArgs, CAST.fin)).toEqual(decided);
    expect(await h.ok('submit', { token: c.token, ...SUBMISSION, requestId: submitId }, CAST.agent)).toEqual(submitted);
    // A new requestId is a new write: run_ended.
    expect(await h.fail('decide', { ...decideArgs, requestId: rid() }, CAST.fin)).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
    // The same requestId with other arguments: conflict.
    expect((await h.fail('decide', { ...decideArgs, decision: 'rejected', note: 'x' }, CAST.fin)).code).toBe('conflict');
  });

  it('cancel: a replay returns the original view, a new cancel is run_ended', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const args = { runId: v.run.id, reason: 'Duplicate.', requestId: rid() };
    const first = await h.ok('cancel', args, CAST.operator);
    h.advance('5m');
    expect(await h.ok('cancel', args, CAST.operator)).toEqual(first);
    expect(await h.fail('cancel', { ...args, requestId: rid() }, CAST.operator)).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
  });

  it('renew and escalate: a replay returns the original result', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    const renewArgs = { token: c.token, progress: 'Half way.', requestId: rid() };
    const r = await h.ok('renew', renewArgs, CAST.agent);
    expect(await h.ok('renew', renewArgs, CAST.agent)).toEqual(r);
    const escArgs = { token: r.token, note: 'Cannot read it.', requestId: rid() };
    const e = await h.ok('escalate', escArgs, CAST.agent);
    expect(await h.ok('escalate', escArgs, CAST.agent)).toEqual(e);
    expect((await h.view(v.run.id)).workItems).toHaveLength(1);
  });

  it('send_event: a replay delivers nothing a second time', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('two-payments', {});
    const args = { runId: v.run.id, name: 'payment', data: { n: 1 }, requestId: rid() };
    expect(await h.ok('send_event', args, CAST.agent)).toEqual({ consumedBy: null });
    expect(await h.ok('send_event', args, CAST.agent)).toEqual({ consumedBy: null });
    const c = await h.claim(v.run.id, 'invoice');
    const s = await h.ok('submit', { token: c.token, output: { number: 'INV-1' }, summary: 'Raised.' }, CAST.agent);
    // One event held, so one wait satisfied: the second instalment still waits.
    expect(states(s)).toMatchObject({ first_instalment: 'done', second_instalment: 'waiting', paid: null });
  });

  it('upload: a replay returns the original result', async () => {
    const h = await Harness.open(SPEC);
    const args = { fileName: 'a.txt', contentType: 'text/plain', contentBase64: Buffer.from('hello').toString('base64'), requestId: rid() };
    const first = await h.ok('upload', args, CAST.agent);
    expect(await h.ok('upload', args, CAST.agent)).toEqual(first);
    expect((await h.fail('upload', { ...args, fileName: 'b.txt' }, CAST.agent)).code).toBe('conflict');
  });
});

describe('a failed call is not recorded', () => {
  it('a claim refused as not_ready succeeds when retried with the same requestId once the step is ready', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('draft-review', {});
    const requestId = rid();
    const early = await h.fail('claim', { runId: v.run.id, stepId: 'polish', requestId }, CAST.agent);
    expect(early).toMatchObject({ code: 'conflict', issues: ['not_ready'] });
    const c = await h.claim(v.run.id, 'draft');
    await h.ok('submit', { token: c.token, output: { text: 'Draft.' }, summary: 'Drafted.' }, CAST.agent);
    const retry = await h.ok('claim', { runId: v.run.id, stepId: 'polish', requestId }, CAST.agent);
    expect(retry.step.id).toBe('polish');
  });

  it('a submission refused as not_accepted can be fixed and sent again with the same requestId', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    const requestId = rid();
    expect((await h.fail('submit', { token: c.token, ...SUBMISSION, evidence: [], requestId }, CAST.agent)).code).toBe('not_accepted');
    const ok = await h.ok('submit', { token: c.token, ...SUBMISSION, requestId }, CAST.agent);
    expect(states(ok)).toMatchObject({ check: 'done', approve: 'waiting' });
  });

  it('a decision refused as stale succeeds when retried with the same requestId and a fresh snapshot', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    const s = await h.ok('submit', { token: c.token, ...SUBMISSION }, CAST.agent);
    const wi = h.item(s, 'approve');
    const requestId = rid();
    // A snapshot that is not the current one (here: one no read ever returned) is stale.
    expect((await h.fail('decide', { runId: v.run.id, workItemId: wi.id, snapshot: 'f'.repeat(64), decision: 'approved', requestId }, CAST.fin)).code).toBe('stale');
    const end = await h.ok('decide', { runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot, decision: 'approved', requestId }, CAST.fin);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'paid' });
    // The run has ended: the second member of the group, with a new requestId, learns run_ended (checked first).
    expect(await h.fail('decide', { runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot, decision: 'approved' }, CAST.cat)).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
  });

  it('a snapshot a read really returned, made stale by a sibling branch, is refused; the same requestId with the fresh one succeeds', async () => {
    const h = await Harness.open({ groups: { writers: [CAST.ann, CAST.cat], editors: [CAST.ed] }, processes: [{ folder: 'launch-plan', roles: { writers: 'writers', editors: 'editors' } }] });
    const v = await h.start('launch-plan', { lead: CAST.lee }, CAST.bob);
    const k = await h.claim(v.run.id, 'kickoff');
    const forked = await h.ok('submit', { token: k.token, output: { plan: 'Ship on Friday.' }, summary: 'Wrote the plan.' }, CAST.agent);
    const seen = h.item(forked, 'docs');
    // A sibling branch completes: the run data the docs item was shown has moved on.
    const b = await h.claim(v.run.id, 'build');
    await h.ok('submit', { token: b.token, output: { artifact: 'launch-1.0.tgz' }, summary: 'Built.' }, CAST.agent);
    const requestId = rid();
    const page = { output: { page: 'https://example.com/launch' }, summary: 'Wrote the page.' };
    const before = await h.snapshot();
    expect((await h.fail('decide', { runId: v.run.id, workItemId: seen.id, snapshot: seen.snapshot, decision: 'completed', ...page, requestId }, CAST.ann)).code).toBe('stale');
    expect(await h.snapshot()).toEqual(before);
    const fresh = h.item(await h.view(v.run.id, CAST.ann), 'docs');
    expect(fresh.snapshot).not.toBe(seen.snapshot);
    const done = await h.ok('decide', { runId: v.run.id, workItemId: fresh.id, snapshot: fresh.snapshot, decision: 'completed', ...page, requestId }, CAST.ann);
    expect(states(done)).toMatchObject({ docs: 'done', build: 'done' });
    // The success is what the requestId now replays.
    expect(await h.ok('decide', { runId: v.run.id, workItemId: fresh.id, snapshot: fresh.snapshot, decision: 'completed', ...page, requestId }, CAST.ann)).toEqual(done);
  });
});

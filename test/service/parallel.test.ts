/**
 * The parallel-1 profile (profiles/parallel §3–§4): fork makes every branch
 * entry ready or waiting in one write; a branch that joins early waits; the
 * last join makes the parallel step done and its next ready in the same
 * write; rework inside a branch touches no sibling; rework from after the
 * join to the parallel step rewinds the whole region and forks again; a
 * run-ending event cancels every branch.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, states, stepView, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { writers: [CAST.ann, CAST.cat], editors: [CAST.ed] },
  processes: [{ folder: 'launch-plan', roles: { writers: 'writers', editors: 'editors' } }],
};
const ALL_NULL = { kickoff: null, fan_out: null, build: null, verify: null, docs: null, docs_review: null, legal: null, signoff: null, launched: null };

async function forked(h: Harness) {
  const v = await h.start('launch-plan', { lead: CAST.lee }, CAST.bob);
  expect(states(v)).toEqual({ ...ALL_NULL, kickoff: 'ready' });
  h.advance('10m');
  const c = await h.claim(v.run.id, 'kickoff');
  const f = await h.ok('submit', { token: c.token, output: { plan: 'Ship on Friday.' }, summary: 'Wrote the plan.' }, CAST.agent);
  return { id: v.run.id as string, f };
}

async function agentDoes(h: Harness, id: string, step: string, output: Record<string, unknown>) {
  const c = await h.claim(id, step);
  return h.ok('submit', { token: c.token, output, summary: `Did ${step}.` }, CAST.agent);
}

describe('parallel-1', () => {
  it('is offered in describe', async () => {
    const h = await Harness.open(SPEC);
    expect((await h.ok('describe', {}, CAST.agent)).profiles).toContain('parallel-1');
  });

  it('forks, joins, reworks the whole region from after the join, and forks again', async () => {
    const h = await Harness.open(SPEC);
    const { id, f } = await forked(h);

    // Fork: the parallel step waits, every entry is ready or waiting in the same write.
    expect(states(f)).toEqual({ ...ALL_NULL, kickoff: 'done', fan_out: 'waiting', build: 'ready', docs: 'waiting', legal: 'waiting' });
    expect(stepView(f, 'fan_out').kind).toBe('parallel');
    expect(f.run.state).toBe('active');
    expect(f.data.steps.fan_out).toBeUndefined();
    expect(stepView(f, 'build')).toMatchObject({ due: h.at('4h'), overdue: false });
    const docsItem = h.item(f, 'docs');
    expect(docsItem).toMatchObject({ assignedTo: { group: 'writers' }, due: h.at('1d') });
    expect(f.workItems).toHaveLength(1);
    // get_work lists every ready agent branch step and every open branch work item.
    expect((await h.ok('get_work', {}, CAST.agent)).items.map((i: { stepId: string }) => i.stepId)).toEqual(['build']);
    expect((await h.ok('get_work', {}, CAST.ann)).items.map((i: { workItem: { stepId: string } }) => i.workItem.stepId)).toEqual(['docs']);

    // A branch that joins early simply waits for the others.
    h.advance('10m');
    expect(await h.ok('send_event', { runId: id, name: 'legal-cleared', data: { ticket: 'LEG-1' } }, CAST.agent)).toEqual({ consumedBy: 'legal' });
    const afterLegal = await h.view(id);
    expect(states(afterLegal)).toMatchObject({ fan_out: 'waiting', legal: 'done', build: 'ready', docs: 'waiting', signoff: null });
    expect(afterLegal.data.steps.legal).toMatchObject({ output: { ticket: 'LEG-1' }, by: CAST.agent });

    h.advance('10m');
    await agentDoes(h, id, 'build', { artifact: 'launch-1.0.tgz' });
    // Snapshots inside a fork: the docs item read before a sibling completed is stale now.
    const staleSnapshot = docsItem.snapshot;
    const afterVerify = await agentDoes(h, id, 'verify', { passed: true });
    expect(states(afterVerify)).toMatchObject({ fan_out: 'waiting', build: 'done', verify: 'done', legal: 'done', docs: 'waiting', signoff: null });
    expect.soft(afterVerify.run.state, 'only a person is pending').toBe('waiting');
    const pageDone = { output: { page: 'https://example.com/launch' }, summary: 'Wrote the page.' };
    const stale = await h.fail('decide', { runId: id, workItemId: docsItem.id, snapshot: staleSnapshot, decision: 'completed', ...pageDone }, CAST.ann);
    expect(stale.code).toBe('stale');
    const fresh = await h.view(id, CAST.ann);
    h.advance('10m');
    const docsDone = await h.decide(fresh, 'docs', 'completed', CAST.ann, pageDone);
    expect(states(docsDone)).toMatchObject({ docs: 'done', docs_review: 'waiting', fan_out: 'waiting' });
    expect(h.item(docsDone, 'docs_review').assignedTo).toEqual({ group: 'editors' });

    // Rework inside a branch touches no sibling.
    h.advance('10m');
    const inBranch = await h.decide(docsDone, 'docs_review', 'rejected', CAST.ed, { note: 'Add the pricing table.' });
    const inBranchAt = h.at();
    expect(states(inBranch)).toEqual({ kickoff: 'done', fan_out: 'waiting', build: 'done', verify: 'done', docs: 'waiting', docs_review: 'done', legal: 'done', signoff: null, launched: null });
    expect(inBranch.data.steps.build).toMatchObject({ output: { artifact: 'launch-1.0.tgz' }, history: [] });
    expect(inBranch.data.steps.verify).toMatchObject({ output: { passed: true }, history: [] });
    expect(inBranch.data.steps.legal).toMatchObject({ output: { ticket: 'LEG-1' }, history: [] });
    expect(inBranch.data.steps.docs_review).toEqual({ decision: 'rejected', note: 'Add the pricing table.', by: CAST.ed, at: inBranchAt, history: [] });
    const redo = h.item(inBranch, 'docs');
    expect(redo.handoff).toEqual({ returned: { note: 'Add the pricing table.', by: CAST.ed, at: inBranchAt } });
    expect(redo.id).not.toBe(docsItem.id);

    h.advance('10m');
    const docsAgain = await h.decide(inBranch, 'docs', 'completed', CAST.cat, { output: { page: 'https://example.com/launch?v=2' } });
    h.advance('10m');
    // Join: the last branch joins, the parallel step is done and its next ready, in the same write.
    const joined = await h.decide(docsAgain, 'docs_review', 'approved', CAST.ed);
    expect(states(joined)).toEqual({ kickoff: 'done', fan_out: 'done', build: 'done', verify: 'done', docs: 'done', docs_review: 'done', legal: 'done', signoff: 'waiting', launched: null });
    expect(h.item(joined, 'signoff').assignedTo).toEqual({ person: CAST.lee });
    expect(joined.data.steps.fan_out).toBeUndefined();
    expect(joined.data.steps.docs.history).toHaveLength(1);

    // Rework from after the join to the parallel step: the whole region is rewound and forked again.
    h.advance('1h');
    const note = 'Security has not signed off; redo every branch.';
    const rew = await h.decide(joined, 'signoff', 'rejected', CAST.lee, { note });
    const rewAt = h.at();
    expect(states(rew)).toEqual({ kickoff: 'done', fan_out: 'waiting', build: 'ready', verify: null, docs: 'waiting', docs_review: null, legal: 'waiting', signoff: 'done', launched: null });
    expect.soft(rew.run.state).toBe('active');
    expect(rew.data.steps.signoff).toEqual({ decision: 'rejected', note, by: CAST.lee, at: rewAt, history: [] });
    for (const step of ['build', 'verify', 'docs', 'docs_review', 'legal']) {
      expect(Object.keys(rew.data.steps[step]), step).toEqual(['history']);
    }
    expect(rew.data.steps.build.history).toEqual([{ output: { artifact: 'launch-1.0.tgz' }, summary: 'Did build.', by: CAST.agent, at: expect.any(String) }]);
    expect(rew.data.steps.docs.history.map((x: { output: { page: string } }) => x.output.page)).toEqual(['https://example.com/launch', 'https://example.com/launch?v=2']);
    expect(rew.data.steps.docs_review.history.map((x: { decision: string }) => x.decision)).toEqual(['rejected', 'approved']);
    expect(rew.data.steps.legal.history).toEqual([{ output: { ticket: 'LEG-1' }, by: CAST.agent, at: expect.any(String) }]);
    expect(rew.data.steps.kickoff).toMatchObject({ output: { plan: 'Ship on Friday.' }, history: [] });
    // Fresh due clocks from this moment.
    expect(stepView(rew, 'build')).toMatchObject({ due: h.at('4h'), overdue: false });
    expect(h.item(rew, 'docs').due).toEqual(h.at('1d'));
    expect(rew.workItems.map((w: { stepId: string }) => w.stepId)).toEqual(['docs']);

    // Second round: every branch again, then the lead approves.
    h.advance('10m');
    expect(await h.ok('send_event', { runId: id, name: 'legal-cleared', data: { ticket: 'LEG-2' } }, CAST.operator)).toEqual({ consumedBy: 'legal' });
    await agentDoes(h, id, 'build', { artifact: 'launch-1.0.1.tgz' });
    const partly = await agentDoes(h, id, 'verify', { passed: true });
    // The join waits for every branch again: two of three done is not joined, and signoff is not reopened.
    expect(states(partly)).toMatchObject({ fan_out: 'waiting', legal: 'done', build: 'done', verify: 'done', docs: 'waiting', docs_review: null, signoff: 'done' });
    expect(partly.workItems.map((w: { stepId: string }) => w.stepId)).toEqual(['docs']);
    const v2 = await h.view(id, CAST.ann);
    const d2 = await h.decide(v2, 'docs', 'completed', CAST.ann, { output: { page: 'https://example.com/launch?v=3' } });
    expect(states(d2)).toMatchObject({ fan_out: 'waiting', docs: 'done', docs_review: 'waiting', signoff: 'done' });
    const j2 = await h.decide(d2, 'docs_review', 'approved', CAST.ed);
    expect(states(j2)).toMatchObject({ fan_out: 'done', signoff: 'waiting' });
    expect(j2.data.steps.signoff).toMatchObject({ decision: 'rejected', note });
    const end = await h.decide(j2, 'signoff', 'approved', CAST.lee);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'launched' });
    expect(end.data.steps.signoff.history).toEqual([{ decision: 'rejected', note, by: CAST.lee, at: rewAt }]);
    expect(end.data.steps.build).toMatchObject({ output: { artifact: 'launch-1.0.1.tgz' } });
    expect(end.data.steps.build.history).toHaveLength(1);
  });

  it('a failed decision in one branch ends the run and cancels every branch; their tokens stop working', async () => {
    const h = await Harness.open(SPEC);
    const { id, f } = await forked(h);
    const c = await h.claim(id, 'build');
    h.advance('5m');
    const end = await h.decide(f, 'docs', 'failed', CAST.ann, { note: 'The launch was called off.' });
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: CAST.ann, note: 'The launch was called off.' } });
    expect(states(end)).toEqual({ ...ALL_NULL, kickoff: 'done', fan_out: 'cancelled', build: 'cancelled', docs: 'failed', legal: 'cancelled' });
    expect(end.workItems).toEqual([]);
    expect(await h.fail('submit', { token: c.token, output: { artifact: 'x' }, summary: 'Built.' }, CAST.agent)).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
    expect(await h.fail('send_event', { runId: id, name: 'legal-cleared' }, CAST.agent)).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
    expect((await h.ok('get_work', {}, CAST.agent)).items).toEqual([]);
  });

  it('cancel during a fork cancels every branch', async () => {
    const h = await Harness.open(SPEC);
    const { id } = await forked(h);
    await agentDoes(h, id, 'build', { artifact: 'a.tgz' });
    const x = await h.ok('cancel', { runId: id, reason: 'Postponed.' }, CAST.operator);
    expect(x.run).toMatchObject({ state: 'cancelled', ended: { by: CAST.operator, note: 'Postponed.' } });
    expect(states(x)).toEqual({ ...ALL_NULL, kickoff: 'done', fan_out: 'cancelled', build: 'done', verify: 'cancelled', docs: 'cancelled', legal: 'cancelled' });
    expect(x.workItems).toEqual([]);
  });
});

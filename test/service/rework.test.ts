/**
 * Rework (spec §3.1, §3.4, §3.5; "Implementing a process server" step 6):
 * a rejection into on_reject moves every later completion into history and
 * rewinds those steps to null; the rejecting approval keeps its decision and
 * note current; the returned-to step is ready again with handoff.returned
 * and a fresh due. Without on_reject the run ends `rejected`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, states, stepView, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { editors: [CAST.ed], finance: [CAST.fin] },
  processes: [
    { folder: 'draft-review', roles: { editor: 'editors' } },
    { folder: 'claim-review', roles: { 'finance-approver': 'finance' } },
  ],
};

async function agentDoes(h: Harness, runId: string, stepId: string, output: Record<string, unknown>, summary: string) {
  const c = await h.claim(runId, stepId);
  return { claim: c, view: await h.ok('submit', { token: c.token, output, summary }, CAST.agent) };
}

describe('rejection into on_reject', () => {
  it('rewinds later steps into history, keeps the rejection current, and hands the note to the returned-to step — twice over', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('draft-review', {});
    const id = v.run.id;
    expect(stepView(v, 'draft').due).toEqual(h.at('1h'));

    h.advance('10m');
    const d1 = await agentDoes(h, id, 'draft', { text: 'Draft one' }, 'Wrote the first draft.');
    const d1at = h.at();
    expect(states(d1.view)).toEqual({ draft: 'done', polish: 'ready', review: null, publish: null, published: null });
    h.advance('10m');
    const p1 = await agentDoes(h, id, 'polish', { text: 'Draft one, polished' }, 'Tightened it.');
    const p1at = h.at();
    expect(states(p1.view)).toEqual({ draft: 'done', polish: 'done', review: 'waiting', publish: null, published: null });

    // The editor rejects.
    h.advance('10m');
    const note1 = 'The second paragraph repeats the first.';
    const r1 = await h.decide(p1.view, 'review', 'rejected', CAST.ed, { note: note1 });
    const r1at = h.at();
    expect(states(r1)).toEqual({ draft: 'ready', polish: null, review: 'done', publish: null, published: null });
    expect.soft(r1.run.state).toBe('active');
    expect(r1.data.steps.polish).toEqual({ history: [{ output: { text: 'Draft one, polished' }, summary: 'Tightened it.', by: CAST.agent, at: p1at }] });
    expect(r1.data.steps.review).toEqual({ decision: 'rejected', note: note1, by: CAST.ed, at: r1at, history: [] });
    expect(r1.workItems).toEqual([]);
    // A repeat of the step restarts its due clock.
    expect(stepView(r1, 'draft')).toMatchObject({ due: h.at('1h'), overdue: false });

    const returned = { returned: { note: note1, by: CAST.ed, at: r1at } };
    const work = await h.ok('get_work', {}, CAST.agent);
    expect(work.items).toHaveLength(1);
    expect(work.items[0]).toMatchObject({ stepId: 'draft', readySince: r1at, handoff: returned });

    h.advance('10m');
    const d2 = await agentDoes(h, id, 'draft', { text: 'Draft two' }, 'Removed the repetition.');
    expect(d2.claim.handoff).toEqual(returned);
    expect(d2.claim.data.steps.review.note).toBe(note1);
    const d2at = h.at();
    expect(d2.view.data.steps.draft).toEqual({
      output: { text: 'Draft two' },
      summary: 'Removed the repetition.',
      by: CAST.agent,
      at: d2at,
      history: [{ output: { text: 'Draft one' }, summary: 'Wrote the first draft.', by: CAST.agent, at: d1at }],
    });
    // The rejection stays current until the review completes again.
    expect(d2.view.data.steps.review).toEqual({ decision: 'rejected', note: note1, by: CAST.ed, at: r1at, history: [] });

    h.advance('10m');
    const p2 = await agentDoes(h, id, 'polish', { text: 'Draft two, polished' }, 'Polished again.');
    const p2at = h.at();
    expect(p2.claim.handoff).toBeNull();
    expect(p2.view.data.steps.polish.output).toEqual({ text: 'Draft two, polished' });
    expect(p2.view.data.steps.polish.history).toHaveLength(1);
    expect(states(p2.view)).toMatchObject({ review: 'waiting' });

    // A second rejection.
    h.advance('10m');
    const note2 = 'Better. The headline is still wrong.';
    const r2 = await h.decide(p2.view, 'review', 'rejected', CAST.ed, { note: note2 });
    const r2at = h.at();
    expect(states(r2)).toEqual({ draft: 'ready', polish: null, review: 'done', publish: null, published: null });
    expect(r2.data.steps.polish.history.map((x: { output: { text: string } }) => x.output.text)).toEqual(['Draft one, polished', 'Draft two, polished']);
    expect(Object.keys(r2.data.steps.polish)).toEqual(['history']);
    expect(r2.data.steps.review).toEqual({
      decision: 'rejected',
      note: note2,
      by: CAST.ed,
      at: r2at,
      history: [{ decision: 'rejected', note: note1, by: CAST.ed, at: r1at }],
    });
    expect(r2.data.steps.polish.history[1].at).toEqual(p2at);

    h.advance('10m');
    const d3 = await agentDoes(h, id, 'draft', { text: 'Draft three' }, 'Fixed the headline.');
    expect(d3.claim.handoff).toEqual({ returned: { note: note2, by: CAST.ed, at: r2at } });
    expect(d3.view.data.steps.draft.history.map((x: { output: { text: string } }) => x.output.text)).toEqual(['Draft one', 'Draft two']);
    expect(d3.view.data.steps.draft.history[1].at).toEqual(d2at);
    h.advance('10m');
    const p3 = await agentDoes(h, id, 'polish', { text: 'Draft three, polished' }, 'Last polish.');

    // Approved: the review's rejections are history now.
    h.advance('10m');
    const ok = await h.decide(p3.view, 'review', 'approved', CAST.ed);
    expect(ok.data.steps.review).toEqual({
      decision: 'approved',
      by: CAST.ed,
      at: h.at(),
      history: [
        { decision: 'rejected', note: note1, by: CAST.ed, at: r1at },
        { decision: 'rejected', note: note2, by: CAST.ed, at: r2at },
      ],
    });
    expect(states(ok)).toEqual({ draft: 'done', polish: 'done', review: 'done', publish: 'ready', published: null });
    const pub = await agentDoes(h, id, 'publish', { url: 'https://blog.example.com/three' }, 'Published.');
    expect(pub.claim.handoff).toBeNull();
    expect(pub.view.run).toMatchObject({ state: 'ended', outcome: 'published' });
    expect(states(pub.view)).toEqual({ draft: 'done', polish: 'done', review: 'done', publish: 'done', published: 'done' });
    expect(pub.view.data.steps.publish.history).toEqual([]);
  });
});

describe('rejection without on_reject', () => {
  it('ends the run rejected, with the rejection note in run.ended and run data', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', { claimant: CAST.ann, amount: 1200 });
    const c = await h.claim(v.run.id, 'check');
    const s = await h.ok(
      'submit',
      {
        token: c.token,
        output: { withinPolicy: true, notes: 'Business class, approved by the director.', risk: 'medium', lines: ['travel'] },
        evidence: [{ kind: 'link', ref: 'https://policy.example.com/travel' }],
        summary: 'One travel line, flagged medium risk.',
        next: 'approve',
        reason: 'Within policy with the director’s exception.',
      },
      CAST.agent,
    );
    h.advance('1d');
    const note = 'No exception on file; business class is not covered.';
    const end = await h.decide(s, 'approve', 'rejected', CAST.fin, { note });
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'rejected', ended: { by: CAST.fin, at: h.at(), note } });
    expect(states(end)).toEqual({ check: 'done', approve: 'done', refused: null, paid: null });
    expect(end.data.steps.approve).toEqual({ decision: 'rejected', note, by: CAST.fin, at: h.at(), history: [] });
    expect(end.workItems).toEqual([]);
  });
});

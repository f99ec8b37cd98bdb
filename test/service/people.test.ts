/**
 * People (spec §3.4, §6 rule 4; tool contracts "decide", "Shared shapes"):
 * one work item per person step, assigned to a group, the initiator or a
 * person in run data; decide with each decision kind; the documented order
 * of refusals: run_ended, already_decided, not_found, stale, forbidden,
 * not_accepted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, rid, states, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { 'desk-team': [CAST.ann, CAST.cat] },
  processes: [{ folder: 'desk-handover', roles: { desk: 'desk-team' } }, { folder: 'countersign' }],
};
const PREPARED = {
  output: { ref: 'HO-17', pages: 3 },
  evidence: [{ kind: 'link', ref: 'https://docs.example.com/HO-17' }],
  next: 'sign_off',
  reason: 'The owner has to sign a three-page handover.',
};

async function started(h: Harness) {
  // bob starts it (the initiator); lee owns the note.
  return h.start('desk-handover', { owner: CAST.lee }, CAST.bob);
}

describe('work items', () => {
  it('a person step opens one work item for its group, listed in each member’s get_work with the exact decide call', async () => {
    const h = await Harness.open(SPEC);
    const v = await started(h);
    expect(v.run.state).toBe('waiting');
    expect(states(v)).toEqual({ prepare: 'waiting', sign_off: null, file_it: null, filed: null, skipped: null });
    expect(v.workItems).toHaveLength(1);
    const wi = v.workItems[0];
    expect(wi).toEqual({
      id: expect.any(String),
      stepId: 'prepare',
      kind: 'task',
      text: 'Prepare the handover note and link it.',
      output: { ref: 'string', pages: 'number' },
      evidence: ['link'],
      next: [
        { to: 'sign_off', when: 'The owner must sign' },
        { to: 'skipped', when: 'There is nothing to hand over' },
      ],
      handoff: null,
      assignedTo: { group: 'desk-team' },
      snapshot: expect.any(String),
      due: null,
      escalation: null,
      decide: {
        tool: 'decide',
        arguments: { runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot, requestId: expect.any(String) },
        decisions: ['completed', 'failed'],
      },
    });

    for (const member of [CAST.ann, CAST.cat]) {
      const inbox = await h.ok('get_work', {}, member);
      expect(inbox.items).toEqual([{ runId: v.run.id, process: 'desk-handover', version: 1, mode: 'live', workItem: wi }]);
      expect(inbox.nextCursor).toBeNull();
    }
    for (const outsider of [CAST.bob, CAST.lee, CAST.operator]) expect((await h.ok('get_work', {}, outsider)).items).toEqual([]);
    // An agent never sees a person's work.
    expect((await h.ok('get_work', {}, CAST.agent)).items).toEqual([]);
  });

  it('lists a person’s open work items oldest first, paged', async () => {
    const h = await Harness.open(SPEC);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await started(h)).run.id);
      h.advance('2m');
    }
    const p1 = await h.ok('get_work', { limit: 2 }, CAST.cat);
    expect(p1.items.map((i: { runId: string }) => i.runId)).toEqual(ids.slice(0, 2));
    const p2 = await h.ok('get_work', { limit: 2, cursor: p1.nextCursor }, CAST.cat);
    expect(p2.items.map((i: { runId: string }) => i.runId)).toEqual([ids[2]]);
    expect(p2.nextCursor).toBeNull();
  });
});

describe('decide', () => {
  it('walks a run through completed, approved and completed, refusing what breaks the rules on the way', async () => {
    const h = await Harness.open(SPEC);
    const v = await started(h);
    const firstSnapshot = v.workItems[0].snapshot;
    const wi = v.workItems[0];
    const call = (extra: Record<string, unknown>) => ({ runId: v.run.id, workItemId: wi.id, snapshot: wi.snapshot, ...extra });

    // forbidden: an agent identity, and a person outside the group.
    expect((await h.fail('decide', call({ decision: 'completed', ...PREPARED }), CAST.agent)).code).toBe('forbidden');
    expect((await h.fail('decide', call({ decision: 'completed', ...PREPARED }), CAST.bob)).code).toBe('forbidden');
    expect((await h.fail('decide', call({ decision: 'completed', ...PREPARED }), CAST.operator)).code).toBe('forbidden');
    // not_found: an item that never existed on this run.
    expect((await h.fail('decide', { ...call({ decision: 'completed', ...PREPARED }), workItemId: 'w-never' }, CAST.ann)).code).toBe('not_found');
    expect((await h.fail('decide', { ...call({ decision: 'completed', ...PREPARED }), runId: 'r-00000000000000000000000000' }, CAST.ann)).code).toBe('not_found');
    // invalid: decisions this item does not take, and arguments that do not go with the decision.
    for (const bad of [
      { decision: 'approved' },
      { decision: 'returned', note: 'Back to you.' },
      { decision: 'completed', ...PREPARED, note: 'A note is not for completed.' },
      { decision: 'failed' }, // failed needs a note
      { decision: 'failed', note: 'Cannot.', output: { ref: 'x', pages: 1 } },
      { decision: 'failed', note: 'Cannot.', next: 'sign_off', reason: 'x' },
      { decision: 'failed', note: 'Cannot.', summary: 'x' },
    ]) {
      const e = await h.fail('decide', call(bad), CAST.ann);
      expect(e.code, JSON.stringify(bad)).toBe('invalid');
    }

    // not_accepted, every issue at once, nothing changed.
    const before = await h.snapshot();
    const na = await h.fail('decide', call({ decision: 'completed', output: { ref: 7, extra: true } }), CAST.ann);
    expect(na.code).toBe('not_accepted');
    expect(na.issues).toEqual(
      expect.arrayContaining([
        'output.ref: expected string',
        'output.pages: missing',
        'output.extra: not declared',
        'evidence: link required',
        'next: required, one of sign_off, skipped',
        'reason: required',
      ]),
    );
    expect(na.issues).toHaveLength(6);
    expect(await h.snapshot()).toEqual(before);

    // completed: same acceptance as an agent's submission; the summary is optional for people.
    h.advance('1h');
    const done = await h.ok('decide', call({ decision: 'completed', ...PREPARED }), CAST.ann);
    expect(states(done)).toEqual({ prepare: 'done', sign_off: 'waiting', file_it: null, filed: null, skipped: null });
    expect.soft(done.run.state).toBe('waiting');
    expect(done.data.steps.prepare).toEqual({ ...PREPARED, by: CAST.ann, at: h.at(), history: [] });
    const sign = h.item(done, 'sign_off');
    expect(sign).toMatchObject({
      kind: 'approve',
      text: 'Sign off the handover note.',
      output: null,
      evidence: null,
      next: null,
      assignedTo: { person: CAST.lee },
      decide: { decisions: ['approved', 'rejected', 'failed'] },
    });
    expect((await h.ok('get_work', {}, CAST.lee)).items.map((i: { workItem: { id: string } }) => i.workItem.id)).toEqual([sign.id]);
    expect((await h.ok('get_work', {}, CAST.ann)).items).toEqual([]);

    // A second member of the group learns already_decided, not stale.
    const second = await h.fail('decide', call({ decision: 'completed', ...PREPARED }), CAST.cat);
    expect(second).toMatchObject({ code: 'conflict', issues: ['already_decided'] });

    // stale: a snapshot from before prepare completed; then a fresh read lets the same decision through.
    const stale = await h.fail('decide', { runId: v.run.id, workItemId: sign.id, snapshot: firstSnapshot, decision: 'approved' }, CAST.lee);
    expect(stale.code).toBe('stale');
    // the snapshot is checked before the identity: even an agent learns stale first
    expect((await h.fail('decide', { runId: v.run.id, workItemId: sign.id, snapshot: firstSnapshot, decision: 'approved' }, CAST.agent)).code).toBe('stale');
    const fresh = await h.view(v.run.id, CAST.lee);
    h.advance('30m');
    const approved = await h.decide(fresh, 'sign_off', 'approved', CAST.lee);
    expect(states(approved)).toEqual({ prepare: 'done', sign_off: 'done', file_it: 'waiting', filed: null, skipped: null });
    expect(approved.data.steps.sign_off).toEqual({ decision: 'approved', by: CAST.lee, at: h.at(), history: [] });
    const file = h.item(approved, 'file_it');
    expect(file).toMatchObject({ kind: 'task', assignedTo: { person: CAST.bob }, output: { shelf: 'string' }, evidence: null, next: null, decide: { decisions: ['completed', 'failed'] } });

    // The initiator completes the last task; the finish ends the run.
    const end = await h.decide(approved, 'file_it', 'completed', CAST.bob, { output: { shelf: 'B-4' }, summary: 'Filed on shelf B-4.' });
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'filed', ended: { by: 'server', at: h.at(), note: null } });
    expect(states(end)).toEqual({ prepare: 'done', sign_off: 'done', file_it: 'done', filed: 'done', skipped: null });
    expect(end.data.steps.file_it).toEqual({ output: { shelf: 'B-4' }, summary: 'Filed on shelf B-4.', by: CAST.bob, at: h.at(), history: [] });
    expect(end.workItems).toEqual([]);
    // Any later decision on this run: run_ended first.
    const late = await h.fail('decide', { runId: v.run.id, workItemId: file.id, snapshot: file.snapshot, decision: 'completed', output: { shelf: 'C' } }, CAST.bob);
    expect(late).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
  });

  it('the chosen route of a task decides where the run goes', async () => {
    const h = await Harness.open(SPEC);
    const v = await started(h);
    const end = await h.decide(v, 'prepare', 'completed', CAST.cat, { output: { ref: 'none', pages: 0 }, evidence: [{ kind: 'link', ref: 'n/a' }], next: 'skipped', reason: 'Nothing to hand over.' });
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'skipped' });
    expect(states(end)).toEqual({ prepare: 'done', sign_off: null, file_it: null, filed: null, skipped: 'done' });
  });

  it('failed ends the run: the step is failed with its note, every open item goes', async () => {
    const h = await Harness.open(SPEC);
    const v = await started(h);
    h.advance('5m');
    const end = await h.decide(v, 'prepare', 'failed', CAST.ann, { note: 'The owner left the company.' });
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: CAST.ann, at: h.at(), note: 'The owner left the company.' } });
    expect(states(end)).toEqual({ prepare: 'failed', sign_off: null, file_it: null, filed: null, skipped: null });
    expect(end.data.steps.prepare).toEqual({ decision: 'failed', note: 'The owner left the company.', by: CAST.ann, at: h.at(), history: [] });
    expect(end.workItems).toEqual([]);
    expect((await h.ok('get_work', {}, CAST.cat)).items).toEqual([]);
  });

  it('approved and rejected on an approval; rejected needs a note', async () => {
    const h = await Harness.open(SPEC);
    const v = await started(h);
    const after = await h.decide(v, 'prepare', 'completed', CAST.ann, PREPARED);
    const sign = h.item(after, 'sign_off');
    const base = { runId: v.run.id, workItemId: sign.id, snapshot: sign.snapshot };
    expect((await h.fail('decide', { ...base, decision: 'rejected' }, CAST.lee)).code).toBe('invalid');
    expect((await h.fail('decide', { ...base, decision: 'rejected', note: '  ' }, CAST.lee)).code).toBe('invalid');
    expect((await h.fail('decide', { ...base, decision: 'completed', output: {} }, CAST.lee)).code).toBe('invalid');
    expect((await h.fail('decide', { ...base, decision: 'approved', output: {} }, CAST.lee)).code).toBe('invalid');
    expect((await h.fail('decide', { ...base, decision: 'approved', next: 'file_it', reason: 'x' }, CAST.lee)).code).toBe('invalid');
    const end = await h.ok('decide', { ...base, decision: 'rejected', note: 'Page two is missing.' }, CAST.lee);
    // Without on_reject the run ends rejected, with the note.
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'rejected', ended: { by: CAST.lee, note: 'Page two is missing.' } });
    expect(end.data.steps.sign_off).toEqual({ decision: 'rejected', note: 'Page two is missing.', by: CAST.lee, at: h.at(), history: [] });
    expect(states(end)).toEqual({ prepare: 'done', sign_off: 'done', file_it: null, filed: null, skipped: null });
  });

  it('a person path that resolves to nothing fails the run at once, by: server', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('countersign', {}, CAST.bob);
    expect(v.run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: 'server', at: h.at(), note: expect.any(String) } });
    expect(states(v)).toEqual({ sign: 'failed', signed: null });
    expect(v.data.steps.sign).toEqual({ decision: 'failed', note: expect.any(String), by: 'server', at: h.at(), history: [] });
    expect(v.workItems).toEqual([]);
    // With a signer it works; the signer alone sees the item.
    const ok = await h.start('countersign', { signer: CAST.lee }, CAST.bob);
    expect(h.item(ok, 'sign').assignedTo).toEqual({ person: CAST.lee });
    expect((await h.fail('decide', { runId: ok.run.id, workItemId: ok.workItems[0].id, snapshot: ok.workItems[0].snapshot, decision: 'approved', requestId: rid() }, CAST.bob)).code).toBe('forbidden');
    const end = await h.decide(ok, 'sign', 'approved', CAST.lee);
    expect(end.run).toMatchObject({ state: 'ended', outcome: 'signed' });
  });
});

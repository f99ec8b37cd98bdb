/**
 * The agent loop (spec §3.3, §6 rules 2–3; tool contracts get_work, claim,
 * renew, submit): work oldest first with paging, the claim result, claim
 * conflicts, renew, lease expiry with its handoff, and acceptance that lists
 * every issue at once and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, CAST, cleanupHarnesses, Harness, Instant, instant, rid, stateOf, states, T0, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const ROLES = { 'finance-approver': 'finance' };
const SPEC: BoardSpec = {
  groups: { finance: [CAST.fin], editors: [CAST.ed] },
  processes: [
    { folder: 'claim-review', roles: ROLES },
    { folder: 'draft-review', roles: { editor: 'editors' } },
  ],
};
const INPUTS = { claimant: CAST.ann, amount: 84.2 };
const GOOD_OUTPUT = { withinPolicy: true, notes: 'Hotel within the city cap.', risk: 'low', lines: ['hotel', 'meal'] };
const GOOD = {
  output: GOOD_OUTPUT,
  evidence: [{ kind: 'link', ref: 'https://policy.example.com/travel#hotels' }],
  summary: 'Checked both lines against the travel policy.',
  next: 'approve',
  reason: 'Both lines are within policy.',
};

describe('get_work for an agent', () => {
  it('lists ready agent steps oldest first, paged with cursors, each with the exact claim call', async () => {
    const h = await Harness.open(SPEC);
    const runs: string[] = [];
    for (let i = 0; i < 3; i++) {
      runs.push((await h.start('claim-review', INPUTS)).run.id);
      h.advance('1m');
    }
    const first = await h.ok('get_work', { limit: 2 }, CAST.agent);
    expect(first.items.map((i: { runId: string }) => i.runId)).toEqual(runs.slice(0, 2));
    expect(first.nextCursor).toEqual(expect.any(String));
    const item = first.items[0];
    expect(item).toEqual({
      runId: runs[0],
      stepId: 'check',
      process: 'claim-review',
      version: 1,
      mode: 'live',
      readySince: instant(T0),
      due: new Instant(Date.parse(T0) + 4 * 3600_000),
      overdue: false,
      handoff: null,
      claim: { tool: 'claim', arguments: { runId: runs[0], stepId: 'check', requestId: expect.any(String) } },
    });
    expect(first.items[1].readySince).toEqual(new Instant(Date.parse(T0) + 60_000));

    const second = await h.ok('get_work', { limit: 2, cursor: first.nextCursor }, CAST.agent);
    expect(second.items.map((i: { runId: string }) => i.runId)).toEqual([runs[2]]);
    expect(second.nextCursor).toBeNull();

    // The default page holds all three; a process filter narrows it.
    expect((await h.ok('get_work', {}, CAST.agent)).items).toHaveLength(3);
    expect((await h.ok('get_work', { process: 'draft-review' }, CAST.agent)).items).toEqual([]);
    expect((await h.ok('get_work', { process: 'claim-review' }, CAST.agent)).items).toHaveLength(3);

    // The exact claim call works once a requestId is filled in; a claimed step is no longer listed.
    const claimed = await h.ok('claim', { ...item.claim.arguments, requestId: rid() }, CAST.agent);
    expect(claimed.step.id).toBe('check');
    const after = await h.ok('get_work', {}, CAST.rival);
    expect(after.items.map((i: { runId: string }) => i.runId)).toEqual(runs.slice(1));

    // A person's get_work lists their work items, never agent steps.
    expect((await h.ok('get_work', {}, CAST.fin)).items).toEqual([]);
  });

  it('refuses a limit outside 1–100 as invalid', async () => {
    const h = await Harness.open(SPEC);
    for (const limit of [0, 101, 2.5]) expect((await h.fail('get_work', { limit }, CAST.agent)).code).toBe('invalid');
  });
});

describe('claim', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.open(SPEC);
  });

  it('returns a token, its expiry, the step as declared, the body and the run data; get_run shows it claimed and never the token', async () => {
    const v = await h.start('claim-review', INPUTS);
    const describe = await h.ok('describe', {}, CAST.agent);
    const c = await h.claim(v.run.id, 'check');
    expect(c).toEqual({
      token: expect.any(String),
      expiresAt: new Instant(h.clock + describe.leaseSeconds * 1000),
      mode: 'live',
      step: {
        id: 'check',
        instructions: 'Compare the claim with the travel policy and link the policy page you used.',
        output: {
          withinPolicy: 'boolean',
          notes: 'string',
          risk: { type: 'string', one_of: ['low', 'medium', 'high'] },
          lines: { type: 'list', items: { type: 'string', one_of: ['hotel', 'travel', 'meal'] } },
          comment: { type: 'string', optional: true },
        },
        evidence: ['link'],
        next: [
          { to: 'approve', when: 'The claim is within policy' },
          { to: 'refused', when: 'The claim is outside policy' },
        ],
      },
      handoff: null,
      body: bodyOf('claim-review'),
      data: { inputs: INPUTS, steps: {} },
    });
    const view = await h.view(v.run.id);
    expect(states(view)).toEqual({ check: 'claimed', approve: null, refused: null, paid: null });
    expect(view.run.state).toBe('active');
    expect(JSON.stringify(view)).not.toContain(c.token);
    expect(JSON.stringify(view)).not.toContain(c.token.split('.')[1]);
  });

  it('answers conflict claimed_by_other, claimed_by_you and not_ready', async () => {
    const v = await h.start('claim-review', INPUTS);
    await h.claim(v.run.id, 'check', CAST.agent);
    const other = await h.fail('claim', { runId: v.run.id, stepId: 'check' }, CAST.rival);
    expect(other).toMatchObject({ code: 'conflict', issues: ['claimed_by_other'] });
    const mine = await h.fail('claim', { runId: v.run.id, stepId: 'check' }, CAST.agent);
    expect(mine).toMatchObject({ code: 'conflict', issues: ['claimed_by_you'] });

    const d = await h.start('draft-review', {});
    const notReady = await h.fail('claim', { runId: d.run.id, stepId: 'polish' }, CAST.agent);
    expect(notReady).toMatchObject({ code: 'conflict', issues: ['not_ready'] });
    // Still exactly one live claim on the first run.
    expect(stateOf(await h.view(v.run.id), 'check')).toBe('claimed');
  });

  it('is forbidden for a person, and for a step that is not an agent step', async () => {
    const v = await h.start('claim-review', INPUTS);
    expect((await h.fail('claim', { runId: v.run.id, stepId: 'check' }, CAST.fin)).code).toBe('forbidden');
    expect((await h.fail('claim', { runId: v.run.id, stepId: 'check' }, CAST.operator)).code).toBe('forbidden');
    expect((await h.fail('claim', { runId: v.run.id, stepId: 'approve' }, CAST.agent)).code).toBe('forbidden');
    expect((await h.fail('claim', { runId: v.run.id, stepId: 'paid' }, CAST.agent)).code).toBe('forbidden');
    expect(stateOf(await h.view(v.run.id), 'check')).toBe('ready');
  });

  it('answers not_found for a run or step that does not exist', async () => {
    const v = await h.start('claim-review', INPUTS);
    expect((await h.fail('claim', { runId: v.run.id, stepId: 'no_such_step' }, CAST.agent)).code).toBe('not_found');
    expect((await h.fail('claim', { runId: 'r-00000000000000000000000000', stepId: 'check' }, CAST.agent)).code).toBe('not_found');
    expect((await h.fail('get_run', { runId: 'r-00000000000000000000000000' }, CAST.agent)).code).toBe('not_found');
    expect((await h.fail('get_run', { runId: '../../etc/passwd' }, CAST.agent)).code).toBe('not_found');
  });
});

describe('renew and lease expiry', () => {
  it('renew gives a new token and expiry; the old token is stale at once', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    h.advance('5m');
    const r = await h.ok('renew', { token: c.token, progress: 'Read the receipt.' }, CAST.agent);
    expect(r).toEqual({ token: expect.any(String), expiresAt: h.at('10m') });
    expect(r.token).not.toBe(c.token);

    expect((await h.fail('renew', { token: c.token }, CAST.agent)).code).toBe('stale');
    expect((await h.fail('submit', { token: c.token, ...GOOD }, CAST.agent)).code).toBe('stale');
    expect((await h.fail('escalate', { token: c.token, note: 'stuck' }, CAST.agent)).code).toBe('stale');
    // Past the first expiry but within the renewed one, the step is still claimed.
    h.advance('6m');
    expect(stateOf(await h.view(v.run.id), 'check')).toBe('claimed');
    const done = await h.ok('submit', { token: r.token, ...GOOD }, CAST.agent);
    expect(stateOf(done, 'check')).toBe('done');
  });

  it('a token that does not verify is invalid, on every tool that takes one', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    const forged = c.token.slice(0, -2) + (c.token.endsWith('AA') ? 'BB' : 'AA');
    for (const token of ['garbage', forged, `${c.token}x`]) {
      expect((await h.fail('submit', { token, ...GOOD }, CAST.agent)).code).toBe('invalid');
      expect((await h.fail('renew', { token }, CAST.agent)).code).toBe('invalid');
      expect((await h.fail('escalate', { token, note: 'x' }, CAST.agent)).code).toBe('invalid');
    }
    expect(stateOf(await h.view(v.run.id), 'check')).toBe('claimed');
  });

  it('when a lease ends the step is claimable at once, with the last progress note in the handoff; the old token is stale', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    // Both renewals happen at the claim's instant, so this test stands apart from
    // the renew-after-time-passed test above. The latest progress note is the one kept.
    const r = await h.ok('renew', { token: c.token, progress: 'Hotel line checked; meal line next.' }, CAST.agent);
    const r2 = await h.ok('renew', { token: r.token, progress: 'Both lines checked; writing the notes.' }, CAST.agent);
    expect(r2.expiresAt).toEqual(h.at('10m'));
    h.advance('10m');
    h.advance('1s');
    const view = await h.view(v.run.id);
    expect(stateOf(view, 'check')).toBe('ready');
    expect(view.run.state).toBe('active');
    const work = await h.ok('get_work', {}, CAST.rival);
    expect(work.items).toHaveLength(1);
    expect(work.items[0].handoff).toEqual({ progress: 'Both lines checked; writing the notes.' });
    expect((await h.fail('submit', { token: r2.token, ...GOOD }, CAST.agent)).code).toBe('stale');
    expect((await h.fail('renew', { token: r2.token }, CAST.agent)).code).toBe('stale');
    const next = await h.claim(v.run.id, 'check', CAST.rival);
    expect(next.handoff).toEqual({ progress: 'Both lines checked; writing the notes.' });
    const done = await h.ok('submit', { token: next.token, ...GOOD }, CAST.rival);
    expect(done.data.steps.check.by).toBe(CAST.rival);
  });
});

describe('the view a write returns', () => {
  // §4: "A write returns only after every automatic transition it triggered has been
  // applied: the run view it returns already shows the steps and work items the write
  // made ready." So a write's view is what get_run shows at the same instant.
  it('is the view get_run returns right after, for every write that returns one', async () => {
    const h = await Harness.open(SPEC);
    const same = async (tool: string, view: Record<string, unknown> & { run: { id: string } }) => {
      const read = await h.view(view.run.id);
      expect.soft(view, `${tool}: the returned view and get_run differ`).toEqual(read);
    };
    const v = await h.start('claim-review', INPUTS);
    await same('start_run', v);
    const c = await h.claim(v.run.id, 'check');
    const s = await h.ok('submit', { token: c.token, ...GOOD }, CAST.agent); // active → waiting
    await same('submit', s);
    const x = await h.ok('cancel', { runId: v.run.id, reason: 'Done testing.' }, CAST.operator);
    await same('cancel', x);

    const v2 = await h.start('claim-review', INPUTS);
    const c2 = await h.claim(v2.run.id, 'check');
    const e = await h.ok('escalate', { token: c2.token, note: 'Unreadable.' }, CAST.agent); // active → waiting
    await same('escalate', e);
    const r = await h.decide(e, 'check', 'returned', CAST.operator, { note: 'Try the rescan.' }); // waiting → active
    await same('decide returned', r);

    const d = await h.start('draft-review', {});
    const dc = await h.claim(d.run.id, 'draft');
    const d1 = await h.ok('submit', { token: dc.token, output: { text: 'One' }, summary: 'Drafted.' }, CAST.agent);
    await same('submit (agent → agent)', d1);
    const pc = await h.claim(d.run.id, 'polish');
    const p1 = await h.ok('submit', { token: pc.token, output: { text: 'One!' }, summary: 'Polished.' }, CAST.agent); // → waiting
    await same('submit (agent → approval)', p1);
    const rej = await h.decide(p1, 'review', 'rejected', CAST.ed, { note: 'Again.' }); // waiting → active
    await same('decide rejected into on_reject', rej);
  });
});

describe('submit', () => {
  it('not_accepted lists every issue at once, changes nothing, and the claim stands', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    const before = await h.snapshot();
    const e = await h.fail(
      'submit',
      {
        token: c.token,
        // no summary, no evidence, no next, no reason
        output: { withinPolicy: 'yes', risk: 'extreme', lines: ['hotel', 'spa'], extra: 1 },
      },
      CAST.agent,
    );
    expect(e.code).toBe('not_accepted');
    const issues = e.issues ?? [];
    // The wording the tool contracts give.
    expect(issues).toEqual(
      expect.arrayContaining([
        'summary: missing',
        'output.withinPolicy: expected boolean',
        'output.notes: missing',
        'output.extra: not declared',
        'evidence: link required',
        'next: required, one of approve, refused',
        'reason: required',
      ]),
    );
    expect(issues.filter((i) => i.startsWith('output.risk'))).toHaveLength(1);
    expect(issues.filter((i) => i.startsWith('output.lines'))).toHaveLength(1);
    expect(issues.find((i) => i.startsWith('output.lines'))).toContain('1');
    expect(issues).toHaveLength(9);

    expect(await h.snapshot()).toEqual(before);
    const view = await h.view(v.run.id);
    expect(states(view)).toEqual({ check: 'claimed', approve: null, refused: null, paid: null });
    expect(view.data.steps).toEqual({});

    // The claim stands: the same token submits the fixed work.
    const done = await h.ok('submit', { token: c.token, ...GOOD }, CAST.agent);
    expect(states(done)).toEqual({ check: 'done', approve: 'waiting', refused: null, paid: null });
    expect.soft(done.run.state, 'only a person is pending: the run is waiting (§3.5)').toBe('waiting');
    expect(done.data.steps.check).toEqual({
      output: GOOD_OUTPUT,
      evidence: GOOD.evidence,
      summary: GOOD.summary,
      next: 'approve',
      reason: GOOD.reason,
      by: CAST.agent,
      at: h.at(),
      history: [],
    });
    const wi = h.item(done, 'approve');
    expect(wi).toMatchObject({ stepId: 'approve', kind: 'approve', output: null, evidence: null, next: null, handoff: null, escalation: null, assignedTo: { group: 'finance' } });
    // The lease went with the completion: the token is stale now.
    expect((await h.fail('submit', { token: c.token, ...GOOD }, CAST.agent)).code).toBe('stale');
    expect((await h.fail('renew', { token: c.token }, CAST.agent)).code).toBe('stale');
  });

  it('refuses a chosen next outside the routes, a blank reason, and a null optional field', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    const e = await h.fail('submit', { ...GOOD, token: c.token, next: 'paid', reason: '   ', output: { ...GOOD_OUTPUT, comment: null } }, CAST.agent);
    expect(e.code).toBe('not_accepted');
    expect(e.issues).toHaveLength(3);
    expect(e.issues?.filter((i) => i.startsWith('next'))).toHaveLength(1);
    expect(e.issues).toContain('reason: required');
    expect(e.issues?.filter((i) => i.startsWith('output.comment'))).toHaveLength(1);
    expect(stateOf(await h.view(v.run.id), 'check')).toBe('claimed');
  });

  it('refuses next and reason on a step whose next is not a list', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('draft-review', {});
    const c = await h.claim(v.run.id, 'draft');
    const e = await h.fail('submit', { token: c.token, output: { text: 'Draft one.' }, summary: 'Wrote it.', next: 'polish', reason: 'Because.' }, CAST.agent);
    expect(e.code).toBe('not_accepted');
    expect(e.issues?.some((i) => i.startsWith('next'))).toBe(true);
    const ok = await h.ok('submit', { token: c.token, output: { text: 'Draft one.' }, summary: 'Wrote it.' }, CAST.agent);
    expect(states(ok)).toMatchObject({ draft: 'done', polish: 'ready' });
    expect(ok.data.steps.draft).toEqual({ output: { text: 'Draft one.' }, summary: 'Wrote it.', by: CAST.agent, at: h.at(), history: [] });
  });

  it('refuses a summary over 2000 characters as invalid (the argument schema), changing nothing', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    const e = await h.fail('submit', { ...GOOD, token: c.token, summary: 'x'.repeat(2001) }, CAST.agent);
    expect(['invalid', 'not_accepted']).toContain(e.code);
    expect(stateOf(await h.view(v.run.id), 'check')).toBe('claimed');
    expect((await h.ok('submit', { ...GOOD, token: c.token, summary: 'y'.repeat(2000) }, CAST.agent)).data.steps.check.summary).toHaveLength(2000);
  });

  it('a refused submission leaves its issues in the handoff for the next attempt (§3.3 handoff)', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    const e = await h.fail('submit', { token: c.token, output: GOOD_OUTPUT, summary: 'Checked.', next: 'approve', reason: 'Fine.' }, CAST.agent);
    expect(e.issues).toEqual(['evidence: link required']);
    h.advance('11m');
    const work = await h.ok('get_work', {}, CAST.rival);
    expect(work.items[0]?.handoff).toEqual({ issues: ['evidence: link required'] });
    const next = await h.claim(v.run.id, 'check', CAST.rival);
    expect(next.handoff).toEqual({ issues: ['evidence: link required'] });
  });

  it('routes along the chosen next, and a finish ends the run with its outcome and by: server', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.start('claim-review', INPUTS);
    const c = await h.claim(v.run.id, 'check');
    h.advance('3m');
    const out = await h.ok('submit', { ...GOOD, token: c.token, output: { ...GOOD_OUTPUT, withinPolicy: false }, next: 'refused', reason: 'Spa is not a travel expense.' }, CAST.agent);
    expect(out.run).toMatchObject({ state: 'ended', outcome: 'refused', ended: { by: 'server', at: h.at(), note: null } });
    expect(states(out)).toEqual({ check: 'done', approve: null, refused: 'done', paid: null });
    expect(out.workItems).toEqual([]);
    expect(out.data.steps.refused).toBeUndefined();
    expect((await h.ok('get_work', {}, CAST.agent)).items).toEqual([]);
  });
});

/**
 * start_run (tool contracts "start_run", spec §2.3, §3.3, §3.4): inputs are
 * checked against `inputs` with every issue at once, the run pins a version
 * for life, `initiator` steps refuse an agent starter, and `mode: test` is
 * carried into every get_work item, claim and work item.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, CAST, cleanupHarnesses, FIXTURES, Harness, instant, rid, states, T0 } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const GOOD = {
  title: 'New laptop',
  amount: 1234.5678901234567,
  urgent: false,
  neededBy: '2026-10-20',
  receivedAt: '2026-10-06T08:30:00+02:00',
  requester: CAST.bob,
  tags: ['red', 'green'],
  details: { model: 'x1', extras: [1, 2] },
  size: 'small',
};

describe('start_run', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.open({
      groups: { 'desk-team': [CAST.ann, CAST.cat] },
      processes: [{ folder: 'intake-form', roles: { desk: 'desk-team' } }, { folder: 'welcome-pack' }],
    });
  });

  it('returns the run view with the first step ready, inputs kept exactly, numbers unrounded', async () => {
    const v = await h.start('intake-form', GOOD, CAST.ann);
    expect(v.run).toMatchObject({ process: 'intake-form', version: 1, mode: 'live', state: 'active', outcome: null, ended: null, startedBy: CAST.ann, startedAt: instant(T0) });
    expect(typeof v.run.id).toBe('string');
    expect(v.data).toEqual({ inputs: GOOD, steps: {} });
    expect(v.data.inputs.amount).toBe(1234.5678901234567);
    expect(states(v)).toEqual({ triage: 'ready', confirm: null, triaged: null });
    expect(v.steps.map((s: { kind: string }) => s.kind)).toEqual(['agent', 'task', 'finish']);
    expect(v.workItems).toEqual([]);
    expect(v.body).toBe(bodyOf('intake-form'));
    // get_run returns the same view.
    const again = await h.view(v.run.id, CAST.bob);
    expect(again.run).toEqual(v.run);
    expect(again.data).toEqual(v.data);
  });

  it('accepts an optional input when given, and leaves it out when omitted', async () => {
    const v = await h.start('intake-form', { ...GOOD, remark: 'Please hurry' });
    expect(v.data.inputs.remark).toBe('Please hurry');
    const w = await h.start('intake-form', GOOD);
    expect(Object.hasOwn(w.data.inputs, 'remark')).toBe(false);
  });

  it('refuses undeclared, missing, mistyped and out-of-one_of inputs as invalid, every issue at once, and creates no run', async () => {
    const before = await h.snapshot();
    const runsBefore = (await h.ok('list_runs', { process: 'intake-form', limit: 100 }, CAST.ann)).items.length;
    const bad = {
      // title missing
      amount: '12', // mistyped
      urgent: 'yes', // a string, not a boolean
      neededBy: '2026-02-30', // not a real date
      receivedAt: '2026-10-06T09:00:00', // no offset
      requester: 'somebody', // not a person (describe: email)
      tags: ['red', 'blue'], // an item outside one_of
      details: ['not', 'an', 'object'],
      size: 'medium', // outside one_of
      remark: null, // null is not a value
      colour: 'red', // not declared
    };
    const e = await h.fail('start_run', { process: 'intake-form', inputs: bad }, CAST.ann);
    expect(e.code).toBe('invalid');
    const issues = e.issues ?? [];
    for (const field of ['title', 'amount', 'urgent', 'neededBy', 'receivedAt', 'requester', 'tags', 'details', 'size', 'remark', 'colour']) {
      expect(
        issues.filter((i) => i.startsWith(`inputs.${field}`)),
        `an issue for inputs.${field} in ${JSON.stringify(issues)}`,
      ).toHaveLength(1);
    }
    expect(issues).toHaveLength(11);
    expect(await h.snapshot()).toEqual(before);
    expect((await h.ok('list_runs', { process: 'intake-form', limit: 100 }, CAST.ann)).items).toHaveLength(runsBefore);
  });

  it.each([
    ['2026-02-30', false],
    ['2025-02-29', false],
    ['2024-02-29', true],
    ['2026-13-01', false],
    ['2026-04-31', false],
    ['2026-4-1', false],
    ['2026-10-06T00:00:00Z', false],
  ])('date %s is accepted: %s', async (neededBy, ok) => {
    const r = await h.call('start_run', { process: 'intake-form', inputs: { ...GOOD, neededBy }, requestId: rid() }, CAST.ann);
    expect(r.ok).toBe(ok);
    if (!r.ok) {
      expect(r.error.code).toBe('invalid');
      expect(r.error.issues?.[0]).toMatch(/^inputs\.neededBy/);
    }
  });

  it.each([
    ['2026-10-06T09:00:00', false],
    ['2026-10-06T09:00:00.123', false],
    ['2026-02-30T09:00:00Z', false],
    ['2026-10-06T24:30:00Z', false],
    ['2026-10-06', false],
    ['2026-10-06T09:00:00Z', true],
    ['2026-10-06T09:00:00.5+05:30', true],
    ['2026-10-06T09:00:00-08:00', true],
  ])('datetime %s is accepted: %s', async (receivedAt, ok) => {
    const r = await h.call('start_run', { process: 'intake-form', inputs: { ...GOOD, receivedAt }, requestId: rid() }, CAST.ann);
    expect(r.ok).toBe(ok);
    if (!r.ok) {
      expect(r.error.code).toBe('invalid');
      expect(r.error.issues?.[0]).toMatch(/^inputs\.receivedAt/);
    }
  });

  it('refuses arguments that break the tool schema as invalid, before anything else', async () => {
    for (const args of [
      { process: 'intake-form', requestId: rid() }, // no inputs
      { process: 'intake-form', inputs: GOOD }, // no requestId
      { process: 'intake-form', inputs: GOOD, mode: 'dry-run', requestId: rid() },
      { process: 'intake-form', inputs: 'title=x', requestId: rid() },
      { process: 'intake-form', inputs: GOOD, version: 0, requestId: rid() },
      { process: 'intake-form', inputs: GOOD, surprise: true, requestId: rid() },
    ]) {
      const r = await h.call('start_run', args, CAST.ann);
      expect(r.ok, JSON.stringify(args)).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('invalid');
    }
  });

  it('answers not_found for a process that is not published, or a version that does not exist', async () => {
    expect((await h.fail('start_run', { process: 'no-such-process', inputs: {} }, CAST.ann)).code).toBe('not_found');
    expect((await h.fail('start_run', { process: 'intake-form', version: 7, inputs: GOOD }, CAST.ann)).code).toBe('not_found');
  });

  it('refuses a process with an initiator step when an agent starts it, and lets a person start it', async () => {
    const e = await h.fail('start_run', { process: 'welcome-pack', inputs: { newcomer: 'Sam' } }, CAST.agent);
    expect(e.code).toBe('invalid');
    expect(e.issues?.length).toBeGreaterThan(0);

    const v = await h.start('welcome-pack', { newcomer: 'Sam' }, CAST.cat);
    expect(v.run.startedBy).toBe(CAST.cat);
    const c = await h.claim(v.run.id, 'pick_gift');
    const after = await h.ok('submit', { token: c.token, output: { gift: 'A mug' }, summary: 'Picked a mug from the catalogue.' }, CAST.agent);
    expect(states(after)).toEqual({ pick_gift: 'done', sign_card: 'waiting', sent: null });
    expect.soft(after.run.state, 'only a person is pending: the returned view says waiting (§3.5, §4)').toBe('waiting');
    expect((await h.view(v.run.id)).run.state).toBe('waiting');
    const wi = h.item(after, 'sign_card');
    expect(wi.assignedTo).toEqual({ person: CAST.cat });
    expect(wi.decide.decisions).toEqual(['completed', 'failed']);
    // Only the initiator sees it.
    const inbox = await h.ok('get_work', {}, CAST.cat);
    expect(inbox.items.map((i: { workItem: { id: string } }) => i.workItem.id)).toContain(wi.id);
    const other = await h.ok('get_work', {}, CAST.ann);
    expect(other.items.map((i: { workItem: { id: string } }) => i.workItem.id)).not.toContain(wi.id);
    const done = await h.decide(after, 'sign_card', 'completed', CAST.cat);
    expect(done.run).toMatchObject({ state: 'ended', outcome: 'sent' });
  });

  it('pins the version a run started with for life; later runs take the latest unless one is asked for', async () => {
    const ours = await Harness.open({ groups: { 'desk-team': [CAST.ann] }, processes: [{ folder: 'intake-form', roles: { desk: 'desk-team' } }] });
    const v1run = await ours.start('intake-form', GOOD);
    expect(v1run.run.version).toBe(1);

    // Version 2: a new archive step and new wording, published from a folder of the same name.
    const dir = path.join(path.dirname(ours.root), 'v2', 'intake-form');
    await fs.mkdir(dir, { recursive: true });
    const text = (await fs.readFile(path.join(FIXTURES, 'intake-form', 'PROCESS.md'), 'utf8'))
      .replace('  - id: triaged\n', '  - id: archive\n    agent: Archive the request.\n  - id: triaged\n')
      .replace('# Intake form', '# Intake form, version two');
    await fs.writeFile(path.join(dir, 'PROCESS.md'), text);
    const published = await ours.publish(dir, { desk: 'desk-team' });
    expect(published.version).toBe(2);

    const listed = await ours.ok('list_processes', {}, CAST.ann);
    expect(listed.items.find((p: { name: string }) => p.name === 'intake-form').version).toBe(2);

    const latest = await ours.start('intake-form', GOOD);
    expect(latest.run.version).toBe(2);
    expect(latest.steps.map((s: { id: string }) => s.id)).toEqual(['triage', 'confirm', 'archive', 'triaged']);
    expect(latest.body).toContain('version two');
    const pinned = await ours.start('intake-form', GOOD, CAST.ann, { version: 1 });
    expect(pinned.run.version).toBe(1);
    expect(pinned.steps.map((s: { id: string }) => s.id)).toEqual(['triage', 'confirm', 'triaged']);

    // The run started on v1 keeps v1: its steps, its body, and it finishes without v2's archive step.
    const old = await ours.view(v1run.run.id);
    expect(old.run.version).toBe(1);
    expect(old.steps.map((s: { id: string }) => s.id)).toEqual(['triage', 'confirm', 'triaged']);
    expect(old.body).toBe(bodyOf('intake-form'));
    const c = await ours.claim(v1run.run.id, 'triage');
    const afterTriage = await ours.ok('submit', { token: c.token, output: { priority: 'p2' }, summary: 'Not urgent.' }, CAST.agent);
    const done = await ours.decide(afterTriage, 'confirm', 'completed', CAST.ann, { output: { confirmed: true } });
    expect(done.run).toMatchObject({ version: 1, state: 'ended', outcome: 'triaged' });
    expect(states(done)).toEqual({ triage: 'done', confirm: 'done', triaged: 'done' });
  });

  it('carries mode test into every get_work item, claim and work item; a live run says live', async () => {
    const v = await h.start('intake-form', GOOD, CAST.ann, { mode: 'test' });
    expect(v.run.mode).toBe('test');
    const live = await h.start('intake-form', GOOD, CAST.ann);

    const work = await h.ok('get_work', { limit: 100 }, CAST.agent);
    const testItem = work.items.find((i: { runId: string }) => i.runId === v.run.id);
    const liveItem = work.items.find((i: { runId: string }) => i.runId === live.run.id);
    expect(testItem.mode).toBe('test');
    expect(liveItem.mode).toBe('live');

    const c = await h.claim(v.run.id, 'triage');
    expect(c.mode).toBe('test');
    const lc = await h.claim(live.run.id, 'triage');
    expect(lc.mode).toBe('live');

    const after = await h.ok('submit', { token: c.token, output: { priority: 'p1' }, summary: 'Urgent: the requester starts Monday.' }, CAST.agent);
    expect(h.item(after, 'confirm').mode).toBe('test');
    const liveAfter = await h.ok('submit', { token: lc.token, output: { priority: 'p3' }, summary: 'Can wait.' }, CAST.agent);
    expect(Object.hasOwn(h.item(liveAfter, 'confirm'), 'mode')).toBe(false);

    const inbox = await h.ok('get_work', { limit: 100 }, CAST.cat);
    const mine = inbox.items.find((i: { runId: string }) => i.runId === v.run.id);
    expect(mine.mode).toBe('test');
    expect(mine.workItem.mode).toBe('test');
    const liveMine = inbox.items.find((i: { runId: string }) => i.runId === live.run.id);
    expect(liveMine.mode).toBe('live');
  });
});

/**
 * Out of office (issue 42), through the service on a real board: a person
 * hands their work to another until a time; the delegate sees it in get_work
 * and decides it in their own name, "for" the delegator, in the audit; four
 * eyes holds for both people, across renames; an operator ends it; it ends
 * by itself at its end; self, unknown people, a past end and cycles are
 * refused with every problem at once, changing nothing.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { renamePersonEverywhere } from '../../src/service/offboarding.js';
import { CAST, cleanupHarnesses, Harness, rid, type Data } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEND = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/spend');
// Mira (cat) is in finance and goes away; Jon (bob) is not in finance and stands in.
const MIRA = CAST.cat;
const JON = CAST.bob;

async function board(opts: { startedBy?: string; preparedBy?: string } = {}) {
  const h = await Harness.open({ groups: { finance: [CAST.ann, CAST.fin, MIRA] }, processes: [{ folder: SPEND, roles: { preparer: 'finance', approver: 'finance' } }] });
  await editManifest(h.board, CAST.operator, 'test.edit', (d) => {
    d.fourEyes = true;
    return 'test';
  });
  const started = await h.start('spend', { amount: 120 }, opts.startedBy ?? CAST.ann);
  const view = await h.decide(started, 'prepare', 'completed', opts.preparedBy ?? CAST.fin, { output: { purpose: 'Team lunch' } });
  return { h, view };
}

const until = (h: Harness, days = 7) => new Date(h.clock + days * 86_400_000).toISOString();
const approvalsOf = async (h: Harness, who: string, runId: string) => (await h.ok('get_work', {}, who)).items.filter((i: Data) => i.runId === runId).map((i: Data) => i.workItem.stepId);
async function auditLines(h: Harness, runId: string): Promise<Data[]> {
  return (await fs.readFile(path.join(h.root, 'runs', runId, 'audit.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('a delegate decides for the person away', () => {
  it('sees the delegator’s approval and approves it in their own name, for them; the audit names both', async () => {
    const { h, view } = await board();
    expect(await approvalsOf(h, JON, view.run.id)).toEqual([]);
    const set = await h.service.delegate({ from: MIRA, to: JON, until: until(h), note: 'Holiday' }, h.as(MIRA));
    expect(set).toMatchObject({ ok: true, data: { from: MIRA, to: JON, by: MIRA, note: 'Holiday' } });
    expect(await approvalsOf(h, JON, view.run.id)).toEqual(['approve']);
    const item = h.item(view, 'approve');
    const done = await h.ok('decide', { runId: view.run.id, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', note: 'Fine.', requestId: rid() }, JON);
    expect(done.run).toMatchObject({ state: 'ended', outcome: 'approved' });
    // The step records the delegate as the one who decided; the tool result has nothing added.
    expect(done.data.steps.approve).toMatchObject({ decision: 'approved', by: JON });
    expect(JSON.stringify(done)).not.toContain(MIRA);
    const line = (await auditLines(h, view.run.id)).find((l) => l.action === 'step.completed' && l.entity.endsWith('/approve'));
    expect(line).toMatchObject({ actor: JON, input: { changes: { note: 'Fine.', for: MIRA } } });
    // The delegation itself is an audited WORK.md edit naming both people.
    const boardLines = (await fs.readFile(path.join(h.root, 'audit/board.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(boardLines.at(-1)).toMatchObject({ actor: MIRA, action: 'delegation.set' });
    expect(JSON.stringify(boardLines.at(-1).input.changes)).toContain(`${MIRA} to ${JON}`);
  });

  it('a person in the group themselves still decides in their own name, with no "for"', async () => {
    const { h, view } = await board();
    await h.service.delegate({ from: MIRA, to: CAST.lee, until: until(h) }, h.as(MIRA));
    // Mira is away but may still decide her own work herself; it is recorded as hers alone.
    const item = h.item(view, 'approve');
    await h.ok('decide', { runId: view.run.id, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: rid() }, MIRA);
    const line = (await auditLines(h, view.run.id)).find((l) => l.action === 'step.completed' && l.entity.endsWith('/approve'));
    expect(line.actor).toBe(MIRA);
    expect(line.input?.changes?.for).toBeUndefined();
  });
});

describe('four eyes across delegation and renames', () => {
  it('a delegate may not approve a run they started, even for someone else', async () => {
    const { h, view } = await board({ startedBy: JON });
    await h.service.delegate({ from: MIRA, to: JON, until: until(h) }, h.as(MIRA));
    expect(await approvalsOf(h, JON, view.run.id)).toEqual([]);
    const item = h.item(view, 'approve');
    const no = await h.fail('decide', { runId: view.run.id, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: rid() }, JON);
    expect(no).toMatchObject({ code: 'forbidden', issues: ['four_eyes'] });
    expect(no.message).toContain('started this run');
  });

  it('a delegate may not approve what the delegator submitted', async () => {
    const { h, view } = await board({ preparedBy: MIRA });
    await h.service.delegate({ from: MIRA, to: JON, until: until(h) }, h.as(MIRA));
    expect(await approvalsOf(h, JON, view.run.id)).toEqual([]);
    const item = h.item(view, 'approve');
    const before = await h.snapshot();
    const no = await h.fail('decide', { runId: view.run.id, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: rid() }, JON);
    expect(no).toMatchObject({ code: 'forbidden', issues: ['four_eyes'] });
    expect(no.message).toContain(`${MIRA} completed step prepare`);
    expect(await h.snapshot()).toEqual(before);
  });

  it('holds after both are renamed: the delegation follows them, and so does four eyes', async () => {
    const { h, view } = await board({ startedBy: JON });
    await h.service.delegate({ from: MIRA, to: JON, until: until(h) }, h.as(MIRA));
    const by = { actor: CAST.operator, osUser: null };
    await renamePersonEverywhere(h.service, by, JON, 'jon.park@example.com');
    await renamePersonEverywhere(h.service, by, MIRA, 'mira.okafor@example.com');
    expect(h.service.delegations()).toMatchObject([{ from: 'mira.okafor@example.com', to: 'jon.park@example.com' }]);
    const item = h.item(view, 'approve');
    const no = await h.fail('decide', { runId: view.run.id, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: rid() }, 'jon.park@example.com');
    expect(no).toMatchObject({ code: 'forbidden', issues: ['four_eyes'] });
    expect(no.message).toContain(`(as ${JON})`);
  });

  it('holds for a delegator renamed after submitting', async () => {
    const { h, view } = await board({ preparedBy: MIRA });
    await renamePersonEverywhere(h.service, { actor: CAST.operator, osUser: null }, MIRA, 'mira.okafor@example.com');
    await h.service.delegate({ from: 'mira.okafor@example.com', to: JON, until: until(h) }, h.as('mira.okafor@example.com'));
    const item = h.item(view, 'approve');
    const no = await h.fail('decide', { runId: view.run.id, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: rid() }, JON);
    expect(no).toMatchObject({ code: 'forbidden', issues: ['four_eyes'] });
    expect(no.message).toContain(`(as ${MIRA})`);
  });
});

describe('a delegation ends', () => {
  it('by itself at its end time', async () => {
    const { h, view } = await board();
    await h.service.delegate({ from: MIRA, to: JON, until: until(h, 2) }, h.as(MIRA));
    expect(await approvalsOf(h, JON, view.run.id)).toEqual(['approve']);
    h.advance('2d');
    expect(await approvalsOf(h, JON, view.run.id)).toEqual([]);
    expect(h.service.delegations()).toEqual([]);
    const item = h.item(view, 'approve');
    expect(await h.fail('decide', { runId: view.run.id, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: rid() }, JON)).toMatchObject({ code: 'forbidden' });
  });

  it('when an operator ends it; nobody else but the delegator may', async () => {
    const { h, view } = await board();
    await h.service.delegate({ from: MIRA, to: JON, until: until(h) }, h.as(MIRA));
    const stranger = await h.service.endDelegation(MIRA, h.as(CAST.lee));
    expect(stranger).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const byDelegate = await h.service.endDelegation(MIRA, h.as(JON));
    expect(byDelegate).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await h.service.endDelegation(MIRA, h.as(CAST.operator))).toEqual({ ok: true, data: { ended: true } });
    expect(await approvalsOf(h, JON, view.run.id)).toEqual([]);
    expect(await h.service.endDelegation(MIRA, h.as(CAST.operator))).toEqual({ ok: true, data: { ended: false } });
    const lines = (await fs.readFile(path.join(h.root, 'audit/board.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ actor: CAST.operator, action: 'delegation.ended' });
  });
});

describe('refused with every problem at once, changing nothing', () => {
  it('to oneself, to an unknown person, an end already past, someone else’s without being an operator', async () => {
    const { h } = await board();
    const before = await h.snapshot();
    const self = await h.service.delegate({ from: MIRA, to: MIRA, until: new Date(h.clock - 1000).toISOString() }, h.as(MIRA));
    expect(self).toMatchObject({ ok: false, error: { code: 'invalid' } });
    if (self.ok) throw new Error('accepted');
    expect(self.error.issues).toEqual(['to: a person cannot hand their work to themselves', expect.stringMatching(/^until: .* is already past$/)]);
    const unknown = await h.service.delegate({ from: MIRA, to: 'nobody@example.com', until: 'next week' }, h.as(MIRA));
    if (unknown.ok) throw new Error('accepted');
    expect(unknown.error.issues).toEqual(['to: nobody@example.com is not a person on this board', 'until: "next week" is not a time (e.g. 2026-12-12T09:00:00Z)']);
    const notMine = await h.service.delegate({ from: CAST.ann, to: JON, until: until(h) }, h.as(MIRA));
    expect(notMine).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await h.snapshot()).toEqual(before);
  });

  it('a cycle, named person by person', async () => {
    const { h } = await board();
    expect((await h.service.delegate({ from: MIRA, to: JON, until: until(h) }, h.as(MIRA))).ok).toBe(true);
    expect((await h.service.delegate({ from: JON, to: CAST.lee, until: until(h) }, h.as(JON))).ok).toBe(true);
    const before = await h.snapshot();
    const cycle = await h.service.delegate({ from: CAST.lee, to: MIRA, until: until(h) }, h.as(CAST.operator));
    if (cycle.ok) throw new Error('accepted');
    expect(cycle.error.issues).toEqual([`to: that would be a cycle: ${CAST.lee} → ${MIRA} → ${JON} → ${CAST.lee}`]);
    expect(await h.snapshot()).toEqual(before);
  });
});

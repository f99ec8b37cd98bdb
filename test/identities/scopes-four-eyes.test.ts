/**
 * Least privilege for agents and four eyes for approvals (issue 17), through
 * the service on a real board: an agent limited in WORK.md to some processes
 * sees, starts and claims only those; with `fourEyes` on, the person who
 * started a run or completed an earlier step of it cannot decide its
 * approvals, and another member of the group can.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { renamePersonEverywhere } from '../../src/service/offboarding.js';
import { CAST, cleanupHarnesses, CLAIM_REVIEW_SUBMISSION, Harness, rid, type Data } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEND = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/spend');

async function setManifest(h: Harness, edit: (d: Record<string, any>) => void): Promise<void> {
  await editManifest(h.board, CAST.operator, 'test.edit', (d) => {
    edit(d as Record<string, any>);
    return 'test';
  });
}

describe('an agent limited to some processes', () => {
  async function scoped() {
    const h = await Harness.open({
      groups: { finance: [CAST.fin] },
      processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }, { folder: 'two-payments' }],
    });
    await setManifest(h, (d) => {
      d.agents = [{ id: CAST.agent, processes: ['claim-review'] }, { id: CAST.rival }];
    });
    const review = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    const invoice = (await h.ok('start_run', { process: 'two-payments', inputs: {}, requestId: rid() }, CAST.rival)).run.id as string;
    return { h, review, invoice };
  }

  it('get_work shows only the steps of its processes; an unscoped agent sees both', async () => {
    const { h, review, invoice } = await scoped();
    const mine = (await h.ok('get_work', {}, CAST.agent)).items.map((i: Data) => i.runId);
    expect(mine).toEqual([review.run.id]);
    const theirs = (await h.ok('get_work', {}, CAST.rival)).items.map((i: Data) => i.runId).sort();
    expect(theirs).toEqual([review.run.id, invoice].sort());
  });

  it('claiming or starting outside the scope is forbidden with the reason, and changes nothing', async () => {
    const { h, invoice } = await scoped();
    const before = await h.snapshot();
    const claim = await h.fail('claim', { runId: invoice, stepId: 'invoice', requestId: rid() }, CAST.agent);
    expect(claim.code).toBe('forbidden');
    expect(claim.message).toContain('claim-review');
    const start = await h.fail('start_run', { process: 'two-payments', inputs: {}, requestId: rid() }, CAST.agent);
    expect(start.code).toBe('forbidden');
    expect(start.issues).toEqual(["process: two-payments is outside this agent's scope"]);
    expect(await h.snapshot()).toEqual(before);
  });

  it('inside its scope it works as before', async () => {
    const { h, review } = await scoped();
    const claimed = await h.claim(review.run.id, 'check');
    const done = await h.ok('submit', { token: claimed.token, ...CLAIM_REVIEW_SUBMISSION, requestId: rid() }, CAST.agent);
    expect(done.steps.find((s: Data) => s.id === 'check').state).toBe('done');
  });

  it('a scope set while the agent is connected applies from its next call', async () => {
    const { h, invoice } = await scoped();
    await setManifest(h, (d) => {
      d.agents = [{ id: CAST.agent }, { id: CAST.rival, processes: ['claim-review'] }];
    });
    expect((await h.fail('claim', { runId: invoice, stepId: 'invoice', requestId: rid() }, CAST.rival)).code).toBe('forbidden');
    expect((await h.ok('claim', { runId: invoice, stepId: 'invoice', requestId: rid() }, CAST.agent)).token).toBeTruthy();
  });

  it('sending an event into a run of another process is forbidden and changes nothing (issue 25, item 9)', async () => {
    const { h, review, invoice } = await scoped();
    const before = await h.snapshot();
    const sent = await h.fail('send_event', { runId: invoice, name: 'ping', requestId: rid() }, CAST.agent);
    expect(sent).toMatchObject({ code: 'forbidden', issues: ["process: two-payments is outside this agent's scope"] });
    expect(await h.snapshot()).toEqual(before);
    expect(await h.ok('send_event', { runId: review.run.id, name: 'ping', requestId: rid() }, CAST.agent)).toEqual({ consumedBy: null });
  });

  it('a claim taken before the scope narrowed cannot be renewed, submitted or escalated from the next call (issue 25, item 9)', async () => {
    const { h, invoice } = await scoped();
    const claim = await h.claim(invoice, 'invoice', CAST.rival);
    await setManifest(h, (d) => {
      d.agents = [
        { id: CAST.agent, processes: ['claim-review'] },
        { id: CAST.rival, processes: ['claim-review'] },
      ];
    });
    const before = await h.snapshot();
    const outside = { code: 'forbidden', issues: ["process: two-payments is outside this agent's scope"] };
    expect(await h.fail('renew', { token: claim.token, requestId: rid() }, CAST.rival)).toMatchObject(outside);
    expect(await h.fail('submit', { token: claim.token, output: { number: 'INV-1' }, summary: 'Raised.', requestId: rid() }, CAST.rival)).toMatchObject(outside);
    expect(await h.fail('escalate', { token: claim.token, note: 'stuck', requestId: rid() }, CAST.rival)).toMatchObject(outside);
    expect(await h.snapshot()).toEqual(before);
    // run_ended still comes first.
    await h.ok('cancel', { runId: invoice, reason: 'Duplicate.', requestId: rid() }, CAST.operator);
    expect(await h.fail('submit', { token: claim.token, output: { number: 'INV-1' }, summary: 'Raised.', requestId: rid() }, CAST.rival)).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
    expect(await h.fail('send_event', { runId: invoice, name: 'ping', requestId: rid() }, CAST.agent)).toMatchObject({ code: 'conflict', issues: ['run_ended'] });
  });
});

describe('four eyes on approvals', () => {
  async function spend(fourEyes: boolean | string[]) {
    const h = await Harness.open({ groups: { finance: [CAST.ann, CAST.fin, CAST.cat] }, processes: [{ folder: SPEND, roles: { preparer: 'finance', approver: 'finance' } }] });
    if (fourEyes !== false) await setManifest(h, (d) => (d.fourEyes = fourEyes));
    const started = await h.start('spend', { amount: 120 }, CAST.ann);
    const prepared = await h.decide(started, 'prepare', 'completed', CAST.fin, { output: { purpose: 'Team lunch' } });
    return { h, view: prepared };
  }

  it('the initiator and the earlier step’s completer are forbidden, saying why; the item stays open for another member', async () => {
    const { h, view } = await spend(true);
    const item = h.item(view, 'approve');
    const args = { runId: view.run.id, workItemId: item.id, snapshot: item.snapshot, decision: 'approved' };
    const byInitiator = await h.fail('decide', { ...args, requestId: rid() }, CAST.ann);
    expect(byInitiator).toMatchObject({ code: 'forbidden', issues: ['four_eyes'] });
    expect(byInitiator.message).toContain('started this run');
    const byPreparer = await h.fail('decide', { ...args, requestId: rid() }, CAST.fin);
    expect(byPreparer).toMatchObject({ code: 'forbidden', issues: ['four_eyes'] });
    expect(byPreparer.message).toContain('completed step prepare');
    const byOther = await h.ok('decide', { ...args, requestId: rid() }, CAST.cat);
    expect(byOther.run).toMatchObject({ state: 'ended', outcome: 'approved' });
  });

  it('get_work does not offer the approval to those it forbids', async () => {
    const { h, view } = await spend(['spend']);
    const approvalsFor = async (who: string) => (await h.ok('get_work', {}, who)).items.filter((i: Data) => i.runId === view.run.id).map((i: Data) => i.workItem.stepId);
    expect(await approvalsFor(CAST.ann)).toEqual([]);
    expect(await approvalsFor(CAST.fin)).toEqual([]);
    expect(await approvalsFor(CAST.cat)).toEqual(['approve']);
  });

  it('follows a person through renames: the renamed initiator and preparer are still forbidden and not offered it (issue 25, item 10)', async () => {
    const { h, view } = await spend(true);
    const by = { actor: CAST.operator, osUser: null };
    await renamePersonEverywhere(h.service, by, CAST.ann, 'ann.renamed@example.com');
    await renamePersonEverywhere(h.service, by, CAST.fin, 'fin.b@example.com');
    await renamePersonEverywhere(h.service, by, 'fin.b@example.com', 'fin.c@example.com');
    const item = h.item(view, 'approve');
    const args = { runId: view.run.id, workItemId: item.id, snapshot: item.snapshot, decision: 'approved' };
    const byInitiator = await h.fail('decide', { ...args, requestId: rid() }, 'ann.renamed@example.com');
    expect(byInitiator).toMatchObject({ code: 'forbidden', issues: ['four_eyes'] });
    expect(byInitiator.message).toContain(`started this run (as ${CAST.ann})`);
    const byPreparer = await h.fail('decide', { ...args, requestId: rid() }, 'fin.c@example.com');
    expect(byPreparer).toMatchObject({ code: 'forbidden', issues: ['four_eyes'] });
    expect(byPreparer.message).toContain(`completed step prepare of this run (as ${CAST.fin})`);
    for (const who of ['ann.renamed@example.com', 'fin.c@example.com']) expect((await h.ok('get_work', {}, who)).items).toEqual([]);
    expect((await h.ok('decide', { ...args, requestId: rid() }, CAST.cat)).run).toMatchObject({ state: 'ended', outcome: 'approved' });
  });

  it('without the policy (or for a process it does not name) the initiator may approve, as core-2 allows', async () => {
    for (const policy of [false, ['another-process']] as const) {
      const { h, view } = await spend(policy as boolean | string[]);
      const done = await h.decide(view, 'approve', 'approved', CAST.ann);
      expect(done.run.outcome).toBe('approved');
    }
  });
});

describe('doctor and four eyes', () => {
  it('names an approval whose group has nobody left that four eyes allows', async () => {
    const { doctorFindings } = await import('../../src/service/doctor.js');
    const h = await Harness.open({ groups: { finance: [CAST.ann, CAST.fin] }, processes: [{ folder: SPEND, roles: { preparer: 'finance', approver: 'finance' } }] });
    await setManifest(h, (d) => (d.fourEyes = true));
    const started = await h.start('spend', { amount: 5 }, CAST.ann);
    const view = await h.decide(started, 'prepare', 'completed', CAST.fin, { output: { purpose: 'Paper' } });
    const findings = await doctorFindings(h.board, h.service);
    expect(findings.filter((f: { kind: string }) => f.kind === 'four-eyes')).toEqual([expect.objectContaining({ where: `${view.run.id}/approve` })]);
    // Renamed, they are the same people: still nobody left.
    for (const who of [CAST.ann, CAST.fin]) await renamePersonEverywhere(h.service, { actor: CAST.operator, osUser: null }, who, `new.${who}`);
    expect((await doctorFindings(h.board, h.service)).filter((f: { kind: string }) => f.kind === 'four-eyes')).toEqual([expect.objectContaining({ where: `${view.run.id}/approve` })]);
  });

  it('counts a member who is away as left only while their stand-in may decide it', async () => {
    const { doctorFindings } = await import('../../src/service/doctor.js');
    // Ann started the run and Fin prepared it: Ed alone may approve it.
    const h = await Harness.open({ groups: { finance: [CAST.ann, CAST.fin, CAST.ed] }, processes: [{ folder: SPEND, roles: { preparer: 'finance', approver: 'finance' } }] });
    await setManifest(h, (d) => {
      d.fourEyes = true;
      d.people = d.people.map((p: { email: string }) => (p.email === CAST.ed ? { ...p, name: 'Ed Stone' } : p.email === CAST.fin ? { ...p, name: 'Fin Okafor' } : p));
    });
    const started = await h.start('spend', { amount: 5 }, CAST.ann);
    const view = await h.decide(started, 'prepare', 'completed', CAST.fin, { output: { purpose: 'Paper' } });
    const fourEyes = async () => (await doctorFindings(h.board, h.service, new Date(h.clock))).filter((f: { kind: string }) => f.kind === 'four-eyes');
    expect(await fourEyes()).toEqual([]);
    const until = new Date(h.clock + 7 * 86_400_000).toISOString();
    // Ed is away and hands his work to Fin, who prepared it: nobody who is in can approve it.
    expect((await h.service.delegate({ from: CAST.ed, to: CAST.fin, until }, h.as(CAST.ed))).ok).toBe(true);
    const found = await fourEyes();
    expect(found).toEqual([expect.objectContaining({ where: `${view.run.id}/approve` })]);
    expect(found[0]!.detail).toContain('nobody who is in can approve it: Ed Stone is out of office until');
    expect(found[0]!.detail).toContain('and hands their work to Fin Okafor, whom four eyes bars');
    // The delegate really cannot decide it: the item is not offered to Fin.
    expect((await h.ok('get_work', {}, CAST.fin)).items.filter((i: Data) => i.runId === view.run.id)).toEqual([]);
    // Handed to Bob instead, someone four eyes allows: the finding goes.
    expect((await h.service.delegate({ from: CAST.ed, to: CAST.bob, until }, h.as(CAST.ed))).ok).toBe(true);
    expect(await fourEyes()).toEqual([]);
    expect((await h.ok('get_work', {}, CAST.bob)).items.filter((i: Data) => i.runId === view.run.id).length).toBe(1);
  });
});

/**
 * Every one of the fourteen tools on runs of a flow-1 process, results
 * checked against our result schemas (schemas/results) always, and with the
 * arguments against the upstream JSON Schemas (../shared/schemas/core-2,
 * which are closed) when they are there: what the profile adds rides only in
 * claim `extensions`, so a blocked run, a woken one and an urgent one answer
 * the core's shapes. The harness validates every result as it is called;
 * this file also checks the arguments it sends, and at the end that all
 * fourteen tools were called.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { argumentIssues, CAST, cleanupHarnesses, HAS_SCHEMAS, Harness, recorded, rid, TOOL_NAMES, type Data } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

describe(`every tool on a flow-1 process, against our result schemas${HAS_SCHEMAS ? ' and the upstream ones' : ' (the upstream ones are absent: ../shared/schemas/core-2)'}`, () => {
  it("answers the core's shapes for a blocked, a woken and an urgent run", async () => {
    const h = await Harness.open({
      groups: { legal: [CAST.lee], finance: [CAST.fin] },
      processes: [
        { folder: 'contract-approval', roles: { legal: 'legal' } },
        { folder: 'supplier-payment', roles: { finance: 'finance' } },
      ],
    });
    const send = async (tool: string, args: Record<string, unknown>, who: string, refused?: string): Promise<Data> => {
      expect(argumentIssues(tool, args), `${tool} arguments we send`).toEqual([]);
      const r = await h.call(tool, args, who);
      if (refused) {
        expect(r.ok ? 'ok' : r.error.code, tool).toBe(refused);
        return undefined;
      }
      if (!r.ok) throw new Error(`${tool}: ${JSON.stringify(r.error)}`);
      return r.data;
    };

    expect((await send('describe', {}, CAST.agent)).profiles).toContain('flow-1');
    await send('list_processes', {}, CAST.ann);
    const contract = await send('start_run', { process: 'contract-approval', inputs: { supplier: 'Acme' }, requestId: rid() }, CAST.ann);
    const blocked = await send('start_run', { process: 'supplier-payment', inputs: { supplier: 'Acme', amount: 5, urgency: 'urgent', after: [contract.run.id] }, requestId: rid() }, CAST.ann);
    await send('start_run', { process: 'supplier-payment', inputs: { supplier: 'Acme', amount: 5, after: ['r-00000000000000000000000000'] }, requestId: rid() }, CAST.ann, 'invalid');
    await send('get_run', { runId: blocked.run.id }, CAST.fin);
    await send('claim', { runId: blocked.run.id, stepId: 'prepare', requestId: rid() }, CAST.agent, 'conflict');
    await send('send_event', { runId: blocked.run.id, name: 'paperwork', data: { pages: 3 }, requestId: rid() }, CAST.agent);
    await send('list_runs', {}, CAST.ann);
    await send('get_work', {}, CAST.fin);

    // The blocker's approval wakes the payment: its view is the one decide returns for the contract.
    const review = (await send('get_run', { runId: contract.run.id }, CAST.lee)).workItems[0];
    await send('decide', { runId: contract.run.id, workItemId: review.id, snapshot: review.snapshot, decision: 'approved', requestId: rid() }, CAST.lee);
    const release = (await send('get_work', {}, CAST.fin)).items[0].workItem;
    await send('decide', { runId: blocked.run.id, workItemId: release.id, snapshot: release.snapshot, decision: 'approved', requestId: rid() }, CAST.fin);
    expect((await send('get_work', {}, CAST.agent)).items.map((i: Data) => i.runId)).toEqual([blocked.run.id]);
    const c = await send('claim', { runId: blocked.run.id, stepId: 'prepare', requestId: rid() }, CAST.agent);
    expect(c.extensions['flow-1']).toEqual({ priority: 40, priorityName: 'urgent', blockedBy: [contract.run.id] });
    const r = await send('renew', { token: c.token, progress: 'File drafted.', requestId: rid() }, CAST.agent);
    await send('upload', { fileName: 'pay.txt', contentType: 'text/plain', contentBase64: Buffer.from('pay').toString('base64'), requestId: rid() }, CAST.agent);
    await send('escalate', { token: r.token, note: 'The bank file format changed.', requestId: rid() }, CAST.agent);
    const esc = (await send('get_run', { runId: blocked.run.id }, CAST.operator)).workItems[0];
    await send('decide', { runId: blocked.run.id, workItemId: esc.id, snapshot: esc.snapshot, decision: 'returned', note: 'Use the old format.', requestId: rid() }, CAST.operator);
    const again = await send('claim', { runId: blocked.run.id, stepId: 'prepare', requestId: rid() }, CAST.agent);
    const done = await send('submit', { token: again.token, output: { reference: 'PAY-1' }, summary: 'Prepared the file.', requestId: rid() }, CAST.agent);
    expect(done.run).toMatchObject({ state: 'ended', outcome: 'paid' });

    // A blocked run cancelled by an operator.
    const other = await send('start_run', { process: 'contract-approval', inputs: { supplier: 'Other' }, requestId: rid() }, CAST.ann);
    const waiting = await send('start_run', { process: 'supplier-payment', inputs: { supplier: 'Other', amount: 1, after: [other.run.id] }, requestId: rid() }, CAST.ann);
    await send('cancel', { runId: waiting.run.id, reason: 'Not needed.', requestId: rid() }, CAST.operator);

    const called = new Set(recorded.filter((x) => x.ok && (x.validated || !HAS_SCHEMAS)).map((x) => x.tool));
    expect(TOOL_NAMES.filter((t) => !called.has(t))).toEqual([]);
  });

  it("answers the core's shapes for a parent, its children (one and a fan-out) and a follow-on run", async () => {
    const h = await Harness.open({
      groups: { legal: [CAST.lee], it: [CAST.fin] },
      processes: [
        { folder: 'contract-approval', roles: { legal: 'legal' } },
        { folder: 'purchase' },
        { folder: 'equipment-order' },
        { folder: 'access-request', roles: { it: 'it' } },
        { folder: 'onboarding', roles: { it: 'it' } },
        { folder: 'hiring', roles: { it: 'it' } },
      ],
    });
    const send = async (tool: string, args: Record<string, unknown>, who: string): Promise<Data> => {
      expect(argumentIssues(tool, args), `${tool} arguments we send`).toEqual([]);
      const r = await h.call(tool, args, who);
      if (!r.ok) throw new Error(`${tool}: ${JSON.stringify(r.error)}`);
      return r.data;
    };
    const childrenOf = async (runId: string, stepId: string): Promise<string[]> => {
      const text = await fs.readFile(path.join(h.root, 'runs', runId, `${stepId}.md`), 'utf8');
      return [...text.matchAll(/^ {2}- (r-[0-9a-z]{26})$/gm)].map((m) => m[1]!);
    };
    await send('list_processes', {}, CAST.ann);
    const p = await send('start_run', { process: 'purchase', inputs: { supplier: 'Acme', amount: 3 }, requestId: rid() }, CAST.ann);
    const [child] = await childrenOf(p.run.id, 'contract');
    const c = await send('get_run', { runId: child }, CAST.lee);
    await send('list_runs', {}, CAST.ann);
    await send('get_work', {}, CAST.lee);
    await send('decide', { runId: child, workItemId: c.workItems[0].id, snapshot: c.workItems[0].snapshot, decision: 'approved', requestId: rid() }, CAST.lee);
    const claim = await send('claim', { runId: p.run.id, stepId: 'pay', requestId: rid() }, CAST.agent);
    const done = await send('submit', { token: claim.token, output: { reference: 'PAY-1' }, summary: 'Paid.', requestId: rid() }, CAST.agent);
    expect(done.run).toMatchObject({ state: 'ended', outcome: 'paid' });

    const hire = await send('start_run', { process: 'hiring', inputs: { candidate: 'Mira Okafor', equipment: ['laptop', 'phone'], systems: ['mail'] }, requestId: rid() }, CAST.ann);
    const offer = hire.workItems[0];
    await send('decide', { runId: hire.run.id, workItemId: offer.id, snapshot: offer.snapshot, decision: 'approved', requestId: rid() }, CAST.fin);
    const onboarding = /followOns:\n {2}- (r-[0-9a-z]{26})/.exec(await fs.readFile(path.join(h.root, 'runs', hire.run.id, 'RUN.md'), 'utf8'))![1]!;
    await send('get_run', { runId: onboarding }, CAST.fin);
    for (const kid of await childrenOf(onboarding, 'equipment')) {
      const k = await send('claim', { runId: kid, stepId: 'order', requestId: rid() }, CAST.agent);
      await send('submit', { token: k.token, output: { reference: `PO-${kid}` }, summary: 'Ordered.', requestId: rid() }, CAST.agent);
    }
    await send('get_run', { runId: onboarding }, CAST.fin);
    await send('cancel', { runId: onboarding, reason: 'The candidate withdrew.', requestId: rid() }, CAST.operator);
    const [access] = await childrenOf(onboarding, 'access');
    expect((await send('get_run', { runId: access }, CAST.fin)).run.state).toBe('cancelled');
    await send('list_runs', {}, CAST.operator);
  });
});

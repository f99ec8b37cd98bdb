/**
 * A decision posted in the browser asks the service what it must and no
 * more: the run once (to build the call and, refused, the page again) and
 * `decide`, which checks for itself that the item is the person's and still
 * open. Before, the page also read up to five pages of the person's
 * `get_work` before deciding and again after a refusal. In process on a real
 * socket, with a real session and its CSRF token; the tools the web app
 * called are recorded from the service it was given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../src/service/service.js';
import { cookieName, csrfToken } from '../../src/web/security.js';
import { CAST, cleanupHarnesses, CLAIM_REVIEW_SUBMISSION, Harness, rid } from '../support/svc-harness.js';
import { inProcessWeb, sessionToken } from './http-support.js';

const CONFIG = { publicOrigin: null, secure: false };

let h: Harness;
let origin: string;
let close: (() => Promise<void>) | undefined;
const calls: string[] = [];

beforeAll(async () => {
  h = await Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });
  // Every tool the web app calls, in order (the harness's own calls go around this).
  const service: Service = Object.create(h.service);
  service.call = ((tool: string, args: unknown, actor: unknown, via: unknown) => {
    calls.push(tool);
    return (h.service.call as (...a: unknown[]) => unknown)(tool, args, actor, via);
  }) as Service['call'];
  ({ origin, close } = await inProcessWeb(service, CONFIG));
});

afterAll(async () => {
  await close?.();
  await cleanupHarnesses();
});

/** An approval of claim-review waiting for finance: its run id, work item and snapshot. */
async function waitingApproval(): Promise<{ runId: string; workItemId: string; snapshot: string }> {
  const started = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
  const claimed = await h.claim(started.run.id, 'check');
  await h.ok('submit', { token: claimed.token, ...CLAIM_REVIEW_SUBMISSION, requestId: rid() }, CAST.agent);
  const view = await h.view(started.run.id);
  const item = view.workItems[0]!;
  return { runId: started.run.id, workItemId: item.id, snapshot: item.snapshot };
}

async function decideAs(email: string, at: { runId: string; workItemId: string }, fields: Record<string, string>): Promise<{ status: number; location: string | null; text: string }> {
  const token = await sessionToken(h.board, email, origin);
  calls.length = 0;
  const res = await fetch(`${origin}/work/${at.runId}/${at.workItemId}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookieName(CONFIG)}=${token}`, origin },
    body: new URLSearchParams({ csrf: csrfToken(token), stepId: 'approve', requestId: rid(), ...fields }).toString(),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

describe('deciding in the browser', () => {
  it('an approval asks for the run once, then decides', async () => {
    const at = await waitingApproval();
    const res = await decideAs(CAST.fin, at, { decision: 'approved', snapshot: at.snapshot, note: 'Receipt matches.' });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/runs/${at.runId}?decided=${at.workItemId}`);
    expect(calls).toEqual(['get_run', 'decide']);
    expect((await h.view(at.runId)).data.steps.approve).toMatchObject({ decision: 'approved', note: 'Receipt matches.', by: CAST.fin });
  });

  it('a refused decision reads the run once more to show the form again, and decides nothing', async () => {
    const at = await waitingApproval();
    const res = await decideAs(CAST.fin, at, { decision: 'approved', snapshot: 'f'.repeat(64) });
    expect(res.status).toBe(409);
    expect(calls).toEqual(['get_run', 'decide', 'get_run']);
    expect(res.text).toContain('name="decision"');
    expect((await h.view(at.runId)).workItems.map((w: { id: string }) => w.id)).toEqual([at.workItemId]);
  });

  it('someone the item is not for is refused by decide itself, and nothing is decided', async () => {
    const at = await waitingApproval();
    const res = await decideAs(CAST.ann, at, { decision: 'approved', snapshot: at.snapshot });
    expect(res.status).toBe(403);
    expect(calls).toEqual(['get_run', 'decide', 'get_run']);
    expect((await h.view(at.runId)).workItems.map((w: { id: string }) => w.id)).toEqual([at.workItemId]);
  });
});

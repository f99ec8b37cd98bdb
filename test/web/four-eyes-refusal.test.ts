/**
 * A person whom four eyes keeps from an approval is told so in words on the
 * page, the way Slack tells them: no email, no step id, no issue code, and
 * the approval stays open. In process on a real socket, with a real session
 * and its CSRF token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { cookieName, csrfToken } from '../../src/web/security.js';
import { CAST, cleanupHarnesses, CLAIM_REVIEW_SUBMISSION, Harness, rid } from '../support/svc-harness.js';
import { inProcessWeb, sessionToken } from './http-support.js';

const CONFIG = { publicOrigin: null, secure: false };

let h: Harness;
let origin: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  h = await Harness.open({ groups: { finance: [CAST.fin, CAST.bob] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });
  await editManifest(h.board, 'test', 'fourEyes.set', (d) => {
    d.fourEyes = true;
    return 'four eyes';
  });
  ({ origin, close } = await inProcessWeb(h.service, CONFIG));
});

afterAll(async () => {
  await close?.();
  await cleanupHarnesses();
});

describe('four eyes on the decision page', () => {
  it('refuses the run’s starter in words, changes nothing, and leaves the approval to another', async () => {
    // Fin starts the claim; the agent checks it; the approval goes to finance, Fin among them.
    const started = await h.ok('start_run', { process: 'claim-review', inputs: { claimant: CAST.ann, amount: 10 }, requestId: rid() }, CAST.fin);
    const runId = (started as { run: { id: string } }).run.id;
    const claimed = await h.claim(runId, 'check');
    await h.ok('submit', { token: claimed.token, ...CLAIM_REVIEW_SUBMISSION, requestId: rid() }, CAST.agent);
    const item = (await h.view(runId)).workItems[0]!;

    const token = await sessionToken(h.board, CAST.fin, origin);
    const res = await fetch(`${origin}/work/${runId}/${item.id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookieName(CONFIG)}=${token}`, origin },
      body: new URLSearchParams({ csrf: csrfToken(token), stepId: 'approve', requestId: rid(), decision: 'approved', snapshot: item.snapshot }).toString(),
    });
    // The page's own words (the header names who is signed in, as on every page).
    const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(await res.text())?.[1] ?? '';
    expect(res.status).toBe(403);
    expect(main).toContain('Four eyes: you started this run or did one of its earlier steps');
    expect(main).toContain('Nothing was changed.');
    for (const id of [CAST.fin, runId, item.id, 'four_eyes', 'step approve']) expect(main).not.toContain(id);

    // Nothing decided: the approval is still open, and Bob may decide it.
    expect((await h.view(runId)).workItems.map((w: { id: string }) => w.id)).toEqual([item.id]);
    await h.ok('decide', { runId, workItemId: item.id, decision: 'approved', snapshot: item.snapshot, requestId: rid() }, CAST.bob);
    expect((await h.view(runId)).data.steps.approve).toMatchObject({ decision: 'approved', by: CAST.bob });
  });
});

/**
 * Issue 25, item 1, through the service on a real board: an approval's note
 * is in get_run's run data (valid against the upstream schemas, which the
 * harness checks on every call) and on the run page, where earlier decisions
 * are shown. The page is rendered as the web app renders it, without a browser.
 */
import { h as el } from 'preact';
import { render } from 'preact-render-to-string';
import { afterAll, describe, expect, it } from 'vitest';
import { RunPage } from '../../src/web/pages/run.js';
import { CAST, cleanupHarnesses, CLAIM_REVIEW_SUBMISSION, Harness, rid } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

describe('an approval with a note', () => {
  it('get_run shows the note with the decision, and the run page prints it', async () => {
    const h = await Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });
    const started = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    const claimed = await h.claim(started.run.id, 'check');
    const checked = await h.ok('submit', { token: claimed.token, ...CLAIM_REVIEW_SUBMISSION, requestId: rid() }, CAST.agent);
    const note = 'OK to pay. Receipt matches.';
    await h.decide(checked, 'approve', 'approved', CAST.fin, { note });
    const view = await h.ok('get_run', { runId: started.run.id }, CAST.fin);
    expect(view.data.steps.approve).toEqual({ decision: 'approved', note, by: CAST.fin, at: h.iso(), history: [] });
    const html = render(el(RunPage, { frame: { title: 'run', me: null, assetVersion: 'x' }, view, process: null, name: 'run', timeline: null, flow: null, map: null }));
    expect(html).toContain(`<blockquote class="note">${note}</blockquote>`);
  });
});

/**
 * The operators' pages in a real browser against a real `workboard serve`:
 * the escalations queue and its items (returned with a note, completed in
 * the agent's place), cancelling a run after a confirmation, sending an
 * event, doctor's findings as the CLI reports them; and a person who is not
 * an operator refused every one of them. axe-core on every page, and
 * screenshots at 1280 and 390 px.
 */
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { addPerson, addToGroup, removeFromGroup } from '../../src/board/people.js';
import { ARTIFACTS, axeProblems, browserSuite, HAVE_BROWSER, HELPER, NO_BROWSER_REASON, payoutAwaitingApproval, PEOPLE, republish, rid, runView, signedIn, shot } from './web-support.js';

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

const BIN = fileURLToPath(new URL('../../bin/workboard.js', import.meta.url));
const LONELY = `---
name: lonely
description: An approval for a group that may be empty.
steps:
  - id: look
    person: approver
    approve: Look at it.
    next: done
  - id: done
    finish: done
---
Lonely.
`;

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const;

describe.skipIf(!HAVE_BROWSER)(`the operators' pages in a real browser${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  const suite = browserSuite();

  /** A payout run whose draft the agent escalated with a note: a work item for the operators. */
  async function escalated(payee: string): Promise<{ runId: string; itemId: string }> {
    const s = await suite.wb.service.call('start_run', { process: 'payout', inputs: { payee, amount: 50 }, requestId: rid() }, HELPER);
    const runId = (s as any).data.run.id as string;
    const claim = await suite.wb.service.call('claim', { runId, stepId: 'draft', requestId: rid() }, HELPER);
    const esc = await suite.wb.service.call('escalate', { token: (claim as any).data.token, note: `I cannot find the invoice for ${payee}.`, requestId: rid() }, HELPER);
    if (!esc.ok) throw new Error(JSON.stringify(esc));
    const item = (await runView(suite.wb, runId)).workItems.find((w: any) => w.stepId === 'draft');
    return { runId, itemId: item.id };
  }

  async function signalWaiting(): Promise<string> {
    const s = await suite.wb.service.call('start_run', { process: 'signal', inputs: { ticket: 'T-1', owner: PEOPLE.ben }, requestId: rid() }, HELPER);
    return (s as any).data.run.id as string;
  }

  it("a person who is not an operator gets 403 for the operators' pages, sees no operator forms, and a hand-made cancel is refused by the service", async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Not-An-Operator');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operators' }).count()).toBe(0);
    for (const where of ['/operators', '/operators/doctor']) {
      const res = await page.goto(`${suite.wb.base}${where}`);
      expect(res!.status()).toBe(403);
      const said = await page.locator('main').textContent();
      expect(said).toContain("Only the board's operators see this page, and Ana Silva is not one of them. If you need it, ask one of them: ops@example.com.");
      expect(said).not.toMatch(/workboard |operator add/);
      expect(await axeProblems(page)).toEqual([]);
    }
    await page.goto(`${suite.wb.base}/runs/${runId}`);
    expect(await page.locator('form[action$="/cancel"], form[action$="/event"]').count()).toBe(0);
    const csrf = await page.locator('form.signout input[name="csrf"]').inputValue();
    const cancel = await page.request.post(`${suite.wb.base}/runs/${runId}/cancel`, {
      headers: { origin: suite.wb.base },
      form: { csrf, reason: 'Not mine to cancel.', confirm: 'yes', requestId: rid() },
    });
    expect(cancel.status()).toBe(403);
    expect(await cancel.text()).toContain('only an operator cancels a run');
    const event = await page.request.post(`${suite.wb.base}/runs/${runId}/event`, { headers: { origin: suite.wb.base }, form: { csrf, name: 'go-ahead', requestId: rid() } });
    expect(event.status()).toBe(403);
    expect((await runView(suite.wb, runId)).run.state).not.toBe('cancelled');
    await ctx.close();
  });

  it('the escalations queue lists what agents escalated; an item returned with a note goes back to the agent with it', async () => {
    const { runId, itemId } = await escalated('Return-Me');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ops);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operators' }).click();
    await page.waitForURL(`${suite.wb.base}/operators`);
    const row = page.locator('li.item', { has: page.locator(`a[href="/work/${runId}/${itemId}"]`) });
    expect(await row.textContent()).toContain('Escalated by helper');
    expect(await row.textContent()).toContain('I cannot find the invoice for Return-Me.');
    // The run is named by its title, as My work names it, not by its process alone.
    expect(await row.locator('.run-name').innerText()).toMatch(/^Payout · Return-Me/);
    // Only escalations: the approval waiting on another run is not in the operators' queue.
    expect(await page.locator('ol.items li').allTextContents()).not.toContain(expect.stringContaining('Approve the payout'));
    expect(await axeProblems(page)).toEqual([]);
    await row.getByRole('link', { name: 'Draft the payout' }).click();
    await page.waitForURL(`${suite.wb.base}/work/${runId}/${itemId}`);
    expect(await page.locator('main').textContent()).toContain('Escalated to the operators');
    expect(await page.locator('main').textContent()).toContain('by helper');
    expect(await axeProblems(page)).toEqual([]);
    await page.getByLabel(/^Note/).fill('The invoice is INV-7 in the shared folder.');
    await page.getByRole('button', { name: 'Return to the agent' }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}\\?done=`));
    const work = await suite.wb.service.call('get_work', { process: 'payout', limit: 100 }, HELPER);
    const again = (work as any).data.items.find((i: any) => i.runId === runId);
    expect(again.stepId).toBe('draft');
    expect(again.handoff.returned).toMatchObject({ note: 'The invoice is INV-7 in the shared folder.', by: PEOPLE.ops });
    await page.goto(`${suite.wb.base}/operators`);
    expect(await page.locator(`a[href="/work/${runId}/${itemId}"]`).count()).toBe(0);
    await ctx.close();
  });

  it("an operator completes an escalated agent step in the agent's place, and the run moves on", async () => {
    const { runId, itemId } = await escalated('Complete-Me');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ops);
    await page.goto(`${suite.wb.base}/work/${runId}/${itemId}`);
    await page.getByLabel('Memo').fill('Paid against INV-9.');
    await page.getByRole('button', { name: 'Complete in its place' }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}\\?done=`));
    const v = await runView(suite.wb, runId);
    expect(v.data.steps.draft).toMatchObject({ output: { memo: 'Paid against INV-9.' }, by: PEOPLE.ops });
    expect(v.steps.find((s: any) => s.id === 'approve').state).toBe('waiting');
    await ctx.close();
  });

  it('cancels a run with a reason after a confirmation; no reason is refused at the field', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Cancel-Me');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ops);
    await page.goto(`${suite.wb.base}/runs/${runId}`);
    expect(await axeProblems(page)).toEqual([]);
    const [noReason] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/cancel')), page.getByRole('button', { name: 'Cancel the run…' }).click()]);
    expect(noReason.status()).toBe(422);
    expect(await page.locator('#f-cancel-reason-issues').textContent()).toContain('reason');
    expect(await axeProblems(page)).toEqual([]);
    await page.getByLabel('Reason (required)').fill('The payee asked us to stop.');
    await page.getByRole('button', { name: 'Cancel the run…' }).click();
    expect(await page.locator('main > h1').textContent()).toBe('Cancel Payout · Cancel-Me · 120?');
    expect(await page.locator('main').textContent()).toContain('The payee asked us to stop.');
    expect(await axeProblems(page)).toEqual([]);
    expect((await runView(suite.wb, runId)).run.state).toBe('waiting'); // nothing yet: the approval still waits
    await page.getByRole('button', { name: 'Yes, cancel the run' }).click();
    await page.waitForURL(`${suite.wb.base}/runs/${runId}?cancelled=1`);
    expect(await page.locator('main').textContent()).toContain('The run was cancelled');
    const v = await runView(suite.wb, runId);
    expect(v.run.state).toBe('cancelled');
    expect(v.run.ended).toMatchObject({ by: PEOPLE.ops, note: 'The payee asked us to stop.' });
    expect(await page.locator('form[action$="/cancel"]').count()).toBe(0); // an ended run offers no operator forms
    await ctx.close();
  });

  it('sends an event with JSON data to a waiting run; data that is not a JSON object is refused at its field', async () => {
    const runId = await signalWaiting();
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ops);
    await page.goto(`${suite.wb.base}/runs/${runId}`);
    expect(await page.locator('#f-event-name-desc').textContent()).toBe('This run waits for go-ahead.');
    await page.getByLabel('Event name').fill('go-ahead');
    await page.getByLabel(/^Data/).fill('{"approved": tru');
    await page.getByRole('button', { name: 'Send the event' }).click();
    expect(await page.locator('#f-event-data-issues').textContent()).toContain('data: not JSON');
    expect(await page.getByLabel('Event name').inputValue()).toBe('go-ahead');
    expect(await axeProblems(page)).toEqual([]);
    // A bad name is the service's to refuse, shown at the name.
    await page.getByLabel('Event name').fill('Go Ahead');
    await page.getByLabel(/^Data/).fill('');
    await page.getByRole('button', { name: 'Send the event' }).click();
    expect(await page.locator('#f-event-name-issues').textContent()).toContain('name');
    expect((await runView(suite.wb, runId)).steps.find((s: any) => s.id === 'hold').state).toBe('waiting');
    await page.getByLabel('Event name').fill('go-ahead');
    await page.getByLabel(/^Data/).fill('{"approved": true, "by": "ci"}');
    await page.getByRole('button', { name: 'Send the event' }).click();
    await page.waitForURL(`${suite.wb.base}/runs/${runId}?event=1&step=hold`);
    expect(await page.locator('main').textContent()).toContain('The waiting step "Hold" received it.');
    const v = await runView(suite.wb, runId);
    expect(v.data.steps.hold.output).toEqual({ approved: true, by: 'ci' });
    expect(v.steps.find((s: any) => s.id === 'ack').state).toBe('waiting');
    expect(await page.locator('#f-event-name-desc').count()).toBe(0); // nothing waits for an event any more
    await ctx.close();
  });

  it('writes screenshots of the queue, a run with the operator forms and the doctor page at 1280 and 390 px', async () => {
    await escalated('Screenshot');
    const runId = await signalWaiting();
    for (const [label, viewport] of VIEWPORTS) {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ops, viewport);
      for (const [name, where] of [
        ['operators', '/operators'],
        ['run-operator', `/runs/${runId}`],
        ['doctor', '/operators/doctor'],
      ] as const) {
        await page.goto(`${suite.wb.base}${where}`);
        await shot(page, { path: path.join(ARTIFACTS, `${name}-${label}.png`), fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
      }
      await ctx.close();
    }
  });

  it('the doctor page shows every finding `workboard doctor` reports, work assigned to nobody among them', async () => {
    // An approval for a group that has lost its only member: nobody can take it.
    await addPerson(suite.wb.board, 'test', 'gone@example.com');
    await addToGroup(suite.wb.board, 'test', 'ghosts', ['gone@example.com']);
    await republish(suite.wb, 'lonely', LONELY, { approver: 'ghosts' });
    await removeFromGroup(suite.wb.board, 'test', 'ghosts', ['gone@example.com']);
    const s = await suite.wb.service.call('start_run', { process: 'lonely', inputs: {}, requestId: rid() }, HELPER);
    const runId = (s as any).data.run.id as string;
    const cli = async () => {
      const out = await promisify(execFile)(process.execPath, [BIN, '--board', suite.wb.root, '--json', 'doctor']).catch((e: { stdout: string }) => e);
      return (JSON.parse(out.stdout) as { data: { findings: { kind: string; where: string; detail: string }[] } }).data.findings;
    };
    const findings = await cli();
    expect(findings.filter((f) => f.kind === 'nobody').map((f) => f.where)).toEqual([`${runId}/look`]);
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ops);
    await page.goto(`${suite.wb.base}/operators/doctor`);
    const nobody = page.locator('section.findings', { has: page.getByRole('heading', { name: 'Work assigned to nobody' }) });
    expect(await nobody.textContent()).toContain(`${runId}/look: work item`);
    expect(await nobody.textContent()).toContain('group ghosts, which has no one on this board');
    const shown = await page.locator('section.findings li').allTextContents();
    for (const f of findings) expect(shown).toContain(`${f.where}: ${f.detail}`);
    expect(shown).toHaveLength(findings.length);
    expect(await axeProblems(page)).toEqual([]);
    await shot(page, { path: path.join(ARTIFACTS, 'doctor-findings-desktop.png'), fullPage: true });
    await ctx.close();
  });

  it("the doctor page shows serve --git-sync's state in words: the last good sync, the last failure in the remote's words, the next try", async () => {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const record = {
      pid: process.pid,
      host: hostname(),
      everyMs: 30_000,
      runs: 9,
      failures: 2,
      failingInARow: 2,
      lastGoodAt: iso(now - 3 * 3600_000),
      lastFailureAt: iso(now - 60_000),
      lastFailure: 'origin declined the push to main (pre-receive hook declined), saying: “main is protected”',
      declined: true,
      nextTryAt: iso(now + 60_000),
    };
    await writeFile(path.join(suite.wb.root, '.work/git-sync.json'), JSON.stringify(record));
    try {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ops);
      await page.goto(`${suite.wb.base}/operators/doctor`);
      const state = page.locator('section.sync-state');
      expect(await state.getByRole('heading').textContent()).toBe('Sync with the git remote: failing');
      const said = await state.locator('li').allTextContents();
      expect(said[0]).toMatch(/^Last good sync 3 hours ago \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\)\.$/);
      expect(said[1]).toMatch(/^Failing: 2 tries in a row; last failure (just now|1 minute ago) .*: origin declined the push to main \(pre-receive hook declined\), saying: “main is protected”$/);
      expect(said[2]).toMatch(/^Next try in (under a minute|1 minute) .*, backing off to 120 s after 2 failures \(every 30 s while syncs succeed\)\.$/);
      // Said once: the failing finding `workboard doctor` lists is this section on the page.
      expect(await page.getByRole('heading', { name: 'Sync with the git remote failing' }).count()).toBe(0);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, 'doctor-git-sync-desktop.png'), fullPage: true });
      await ctx.close();
    } finally {
      await rm(path.join(suite.wb.root, '.work/git-sync.json'), { force: true });
    }
  });
});

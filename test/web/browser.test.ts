/**
 * The people's web app in a real browser (Debian's chromium through
 * playwright-core) against a real `workboard serve --http` process: signing
 * in, the inbox, deciding (approve, reject with a note, a task with every
 * field type and a file), refusals (not_accepted at each field, stale,
 * already_decided, another group, cross-origin posts, an injected script),
 * the keyboard alone, axe-core on every page, and screenshots.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../support/tmp-board.js';
import { createLoginLink } from '../../src/web/sessions.js';
import { agentDoes, ARTIFACTS, axeProblems, browserSuite, HAVE_BROWSER, HELPER, NO_BROWSER_REASON, payoutAwaitingApproval, PEOPLE, rid, runView, signedIn, tabTo, shot } from './web-support.js';

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

describe.skipIf(!HAVE_BROWSER)(`the web app in a real browser${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  const suite = browserSuite();

  const workItemOf = async (runId: string, stepId: string) => (await runView(suite.wb, runId)).workItems.find((w: any) => w.stepId === stepId);

  it('signs in with a link once; a second use of the link fails; an agent cannot get a link', async () => {
    const ctx = await suite.browser.newContext();
    const page = await ctx.newPage();
    const link = await createLoginLink(suite.wb.board, PEOPLE.ana, suite.wb.base);
    await page.goto(link);
    expect(await axeProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Sign in as ana@example.com' }).click();
    await page.waitForURL(`${suite.wb.base}/work`);
    expect(page.url()).not.toContain('code=');
    expect(await page.locator('h1').textContent()).toBe('My work');
    const cookie = (await ctx.cookies()).find((c) => c.name === 'wb_session')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    // The same link again, in a fresh browser: refused.
    const other = await suite.browser.newContext();
    const p2 = await other.newPage();
    const res = await p2.goto(link);
    expect(res!.status()).toBe(400);
    expect(await p2.locator('main').textContent()).toContain('used, expired or not one of ours');
    await other.close();
    await ctx.close();
    await expect(createLoginLink(suite.wb.board, 'helper', suite.wb.base)).rejects.toThrow(/agent/);
  });

  it('shows the inbox, opens a work item, approves it, and the run moves on', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Approve-Me');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    const wi = await workItemOf(runId, 'approve');
    const item = page.locator(`a[href="/work/${runId}/${wi.id}"]`);
    expect(await item.count()).toBe(1);
    const row = page.locator('li.item', { has: item });
    expect(await row.textContent()).toContain('Approve-Me');
    expect(await axeProblems(page)).toEqual([]);
    await item.click();
    expect(await page.locator('main').textContent()).toContain('Payout for Approve-Me');
    expect(await axeProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}\\?decided=`));
    expect(await page.locator('main').textContent()).toContain('Your decision was recorded');
    expect(await axeProblems(page)).toEqual([]);
    const v = await runView(suite.wb, runId);
    expect(v.run.state).toBe('ended');
    expect(v.run.outcome).toBe('paid');
    expect(v.data.steps.approve.decision).toBe('approved');
    expect(v.data.steps.approve.by).toBe(PEOPLE.ana);
    await ctx.close();
  });

  it('rejects with a note: the note is required, and the returned-to step gets it', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Reject-Me');
    const wi = await workItemOf(runId, 'approve');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ben);
    await page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
    await page.getByRole('button', { name: 'Reject' }).click();
    // No note: the service's issue is shown at the note.
    expect(await page.locator('#f-note-issues').textContent()).toContain('note: required');
    await page.getByLabel(/^Note/).fill('The memo does not say which invoice.');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}`));
    const work = await suite.wb.service.call('get_work', { process: 'payout', limit: 100 }, HELPER);
    const mine = (work as any).data.items.find((i: any) => i.runId === runId);
    expect(mine.stepId).toBe('draft');
    expect(mine.handoff.returned.note).toBe('The memo does not say which invoice.');
    expect(mine.handoff.returned.by).toBe(PEOPLE.ben);
    await ctx.close();
  });

  it('completes a task with every field type and a file; a bad submission first shows each issue at its field', async () => {
    const start = await suite.wb.service.call('start_run', { process: 'intake', inputs: { supplier: 'Acme' }, requestId: rid() }, HELPER);
    const runId = (start as any).data.run.id as string;
    const wi = await workItemOf(runId, 'record');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.cy);
    await page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
    expect(await axeProblems(page)).toEqual([]);
    // First a submission the service refuses: legalName and owner left out, a route with no file.
    await page.getByLabel('Employees').fill('12');
    await page.locator('input[name="next"][value="accepted"]').check();
    await page.getByRole('button', { name: 'Complete' }).click();
    expect(page.url()).toBe(`${suite.wb.base}/work/${runId}/${wi.id}`);
    expect(await page.locator('#f-output-legalName-issues').textContent()).toContain('Legal name: missing');
    expect(await page.locator('#f-output-owner-issues').textContent()).toContain('Owner: missing');
    expect(await page.locator('#ev-issues').textContent()).toMatch(/evidence/);
    expect(await page.getByLabel('Employees').inputValue()).toBe('12'); // what was typed is kept
    expect(await axeProblems(page)).toEqual([]);
    // Now everything.
    await page.getByLabel('Legal name').fill('Acme Trading Ltd');
    await page.locator('input[name="output.vatRegistered"][value="true"]').check();
    await page.getByLabel('Founded').fill('2001-02-03');
    await page.getByLabel('Reviewed at (UTC)').fill('2026-11-30T10:15:00');
    await page.getByLabel('tier').selectOption({ label: 'Gold' });
    await page.getByLabel('Aliases 1').fill('Acme');
    await page.getByRole('button', { name: 'Add a row to Aliases' }).click();
    await page.getByLabel('Aliases 2').fill('ACME Co');
    await page.getByLabel('Address: name 1').fill('city');
    await page.getByLabel('Address: value 1').fill('Lisbon');
    await page.getByLabel('Owner').selectOption(PEOPLE.ana);
    await page.getByLabel('Why (optional)').fill('Meets the policy.');
    const file = path.join(await tmpDir('wb-web-file-'), 'signed-form.pdf');
    writeFileSync(file, '%PDF-1.4 signed form');
    await page.getByLabel('Files').setInputFiles(file);
    await page.getByRole('button', { name: 'Complete' }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}\\?done=`));
    const v = await runView(suite.wb, runId);
    expect(v.run.outcome).toBe('accepted');
    const rec = v.data.steps.record;
    expect(rec.output).toEqual({
      legalName: 'Acme Trading Ltd',
      employees: 12,
      vatRegistered: true,
      founded: '2001-02-03',
      reviewedAt: '2026-11-30T10:15:00Z',
      tier: 'gold',
      aliases: ['Acme', 'ACME Co'],
      address: { city: 'Lisbon' },
      owner: PEOPLE.ana,
    });
    expect(rec.next).toBe('accepted');
    expect(rec.evidence).toHaveLength(1);
    // The file downloads from the run page as an attachment with its type.
    const ref = rec.evidence[0].ref as string;
    const download = await page.request.get(`${suite.wb.base}/runs/${runId}/files/${ref}`);
    expect(download.status()).toBe(200);
    expect(download.headers()['content-disposition']).toMatch(/^attachment; filename="signed-form.pdf"/);
    expect(download.headers()['content-type']).toBe('application/pdf');
    expect(await download.text()).toBe('%PDF-1.4 signed form');
    await ctx.close();
  });

  it('a decision on data that changed since the page opened is stale: the page says what changed and the retry works', async () => {
    const start = await suite.wb.service.call('start_run', { process: 'split', inputs: {}, requestId: rid() }, HELPER);
    const runId = (start as any).data.run.id as string;
    const wi = await workItemOf(runId, 'signoff');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    await page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
    await page.getByLabel(/^Note/).fill('Looked at the release.'); // typing: the page no longer reloads itself
    // Meanwhile, another session (the agent, in this test's process) changes the run's data.
    await agentDoes(suite.wb, runId, 'fetch', { count: 3 });
    await page.locator('#live:not([hidden])').waitFor(); // the live banner says so
    expect(await page.locator('#live').textContent()).toContain('This page changed');
    await page.getByRole('button', { name: 'Approve' }).click();
    const main = page.locator('main');
    expect(await main.textContent()).toContain('The run changed since you opened this page');
    expect(await page.locator('table.changes').textContent()).toContain('steps.fetch');
    expect(await axeProblems(page)).toEqual([]);
    expect((await runView(suite.wb, runId)).data.steps.signoff).toBeUndefined(); // nothing was decided
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}\\?decided=`));
    expect((await runView(suite.wb, runId)).run.outcome).toBe('done');
    await ctx.close();
  });

  it('a second member of the group learns who already decided', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Twice');
    const wi = await workItemOf(runId, 'approve');
    const a = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    const b = await signedIn(suite.browser, suite.wb, PEOPLE.ben);
    await a.page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
    await b.page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
    await b.page.getByLabel(/^Note/).fill('Fine by me.'); // ben is typing, so his page waits for him
    await a.page.getByRole('button', { name: 'Approve' }).click();
    await a.page.waitForURL(new RegExp(`/runs/${runId}`));
    await b.page.locator('#live:not([hidden])').waitFor();
    await b.page.getByRole('button', { name: 'Approve' }).click();
    const text = await b.page.locator('main').textContent();
    expect(text).toContain('Already decided');
    expect(text).toContain('Ana Silva approved');
    await a.ctx.close();
    await b.ctx.close();
  });

  it('live: an open inbox shows new work without a reload by hand; an open work item shows it was decided elsewhere', async () => {
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ben);
    const runId = await payoutAwaitingApproval(suite.wb, 'Live-One');
    const wi = await workItemOf(runId, 'approve');
    await page.locator(`a[href="/work/${runId}/${wi.id}"]`).waitFor(); // the inbox reloaded itself
    const other = await signedIn(suite.browser, suite.wb, PEOPLE.ben);
    await other.page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
    const ana = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    await ana.page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
    await ana.page.getByRole('button', { name: 'Approve' }).click();
    await ana.page.waitForURL(new RegExp(`/runs/${runId}`));
    await other.page.getByRole('heading', { name: 'Already decided' }).waitFor();
    expect(await other.page.locator('main').textContent()).toContain('Ana Silva approved');
    await page.locator(`a[href="/work/${runId}/${wi.id}"]`).waitFor({ state: 'detached' }); // and it left the inbox
    for (const c of [ctx, other.ctx, ana.ctx]) await c.close();
  });

  it('live: a change that lands after the page was rendered but before its live stream started still reloads it', async () => {
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ben);
    // Hold the page's stream back until the change is committed: the gap a slow connection leaves.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/events?*', async (route) => {
      await held;
      await route.continue();
    });
    await page.reload();
    const runId = await payoutAwaitingApproval(suite.wb, 'In-The-Gap');
    const wi = await workItemOf(runId, 'approve');
    expect(await page.locator(`a[href="/work/${runId}/${wi.id}"]`).count()).toBe(0); // rendered before the run existed
    release();
    await page.locator(`a[href="/work/${runId}/${wi.id}"]`).waitFor();
    await ctx.close();
  });

  it('a person of another group gets no access to the item by its URL, and a post is refused by the service', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Not-Yours');
    const wi = await workItemOf(runId, 'approve');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.cy);
    expect(await page.locator(`a[href="/work/${runId}/${wi.id}"]`).count()).toBe(0);
    const res = await page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
    expect(res!.status()).toBe(403);
    expect(await page.locator('form.decide').count()).toBe(0);
    // A hand-made post with cy's own valid CSRF token (taken from cy's page): the service says forbidden.
    const csrf = await page.locator('form.signout input[name="csrf"]').inputValue();
    const post = await page.request.post(`${suite.wb.base}/work/${runId}/${wi.id}`, {
      headers: { origin: suite.wb.base },
      multipart: { csrf, snapshot: wi.snapshot, stepId: 'approve', requestId: rid(), decision: 'approved' },
    });
    expect(post.status()).toBe(403);
    expect(await post.text()).toContain('not assigned this work item');
    expect((await runView(suite.wb, runId)).data.steps.approve).toBeUndefined();
    await ctx.close();
  });

  it('refuses a form posted from another origin, and nothing changes', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Cross');
    const wi = await workItemOf(runId, 'approve');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    const csrf = await page.locator('form.signout input[name="csrf"]').inputValue();
    // Another site (another port on this machine) serves a form aimed at the app, even with the right token.
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><form method="post" action="${suite.wb.base}/work/${runId}/${wi.id}">
        <input name="csrf" value="${csrf}"><input name="snapshot" value="${wi.snapshot}"><input name="requestId" value="${rid()}">
        <button name="decision" value="approved">Win a prize</button></form>`);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', () => r()));
    const port = (evil.address() as { port: number }).port;
    await page.goto(`http://127.0.0.1:${port}/`);
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().includes(`/work/${runId}`)), page.getByRole('button', { name: 'Win a prize' }).click()]);
    expect(response.status()).toBe(403);
    expect(await page.locator('main').textContent()).toContain('not sent from a page of this site');
    expect((await runView(suite.wb, runId)).data.steps.approve).toBeUndefined();
    evil.close();
    await ctx.close();
  });

  it('shows a script in a step body as text, and the CSP blocks an inline script injected into the page', async () => {
    const start = await suite.wb.service.call('start_run', { process: 'shady', inputs: {}, requestId: rid() }, HELPER);
    const runId = (start as any).data.run.id as string;
    const wi = await workItemOf(runId, 'look');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    const violations: string[] = [];
    await page.exposeFunction('__reportViolation', (d: string) => violations.push(d));
    await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) => (window as any).__reportViolation(e.violatedDirective)));
    const res = await page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(res!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await page.locator('.todo').textContent()).toContain('<script>window.__pwned = true</script>');
    expect(await page.locator('.todo script, .todo img').count()).toBe(0);
    // Inject an inline script as an attacker who got markup in would: it must not run.
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__pwned = true';
      document.body.appendChild(s);
    });
    await page.waitForFunction(() => true);
    expect(await page.evaluate(() => (window as any).__pwned === true)).toBe(false);
    expect(violations.some((d) => d.startsWith('script-src'))).toBe(true);
    await ctx.close();
  });

  it('the whole decide flow works by keyboard alone', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Keyboard');
    const wi = await workItemOf(runId, 'approve');
    const ctx = await suite.browser.newContext();
    const page = await ctx.newPage();
    await page.goto(await createLoginLink(suite.wb.board, PEOPLE.ben, suite.wb.base));
    await tabTo(page, 'button[type="submit"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${suite.wb.base}/work`);
    await tabTo(page, `a[href="/work/${runId}/${wi.id}"]`);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${suite.wb.base}/work/${runId}/${wi.id}`);
    await tabTo(page, '#f-note');
    await page.keyboard.type('Needs the invoice number.');
    await tabTo(page, 'button[value="rejected"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/runs/${runId}`));
    const v = await runView(suite.wb, runId);
    expect(v.data.steps.approve.decision).toBe('rejected');
    expect(v.data.steps.approve.note).toBe('Needs the invoice number.');
    await ctx.close();
  });

  it('writes screenshots of the inbox, a work item and a run page at desktop and phone widths', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Screenshot');
    const wi = await workItemOf(runId, 'approve');
    for (const [label, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana, viewport);
      await shot(page, { path: path.join(ARTIFACTS, `inbox-${label}.png`), fullPage: true });
      await page.goto(`${suite.wb.base}/work/${runId}/${wi.id}`);
      await shot(page, { path: path.join(ARTIFACTS, `work-item-${label}.png`), fullPage: true });
      await page.goto(`${suite.wb.base}/runs/${runId}`);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `run-${label}.png`), fullPage: true });
      // Nothing wider than the screen on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
      await ctx.close();
    }
  });
});

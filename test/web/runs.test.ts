/**
 * Runs and processes in a real browser against a real `workboard serve`:
 * the runs list with its filters and pages, the run page it links to, the
 * processes with their versions and maps, starting a run from the generated
 * form (a refusal first, shown at its field), and a signed-out visitor sent
 * to sign in and then on to the page they asked for. axe-core on every page,
 * and screenshots at 1280 and 390 px.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLoginLink } from '../../src/web/sessions.js';
import {
  agentDoes,
  ARTIFACTS,
  axeProblems,
  person,
  browserSuite,
  HAVE_BROWSER,
  HELPER,
  NO_BROWSER_REASON,
  PAYOUT_TEXT,
  payoutAwaitingApproval,
  PEOPLE,
  republish,
  rid,
  runView,
  signedIn,
  shot,
} from './web-support.js';

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const;

describe.skipIf(!HAVE_BROWSER)(`runs and processes in a real browser${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  const suite = browserSuite();
  const payouts: string[] = [];

  beforeAll(async () => {
    // 27 payout runs (more than one page of 25), one of them ended, and an intake run.
    for (let i = 0; i < 27; i++) {
      const s = await suite.wb.service.call('start_run', { process: 'payout', inputs: { payee: `Payee-${i}`, amount: 100 + i }, requestId: rid() }, HELPER);
      payouts.push((s as any).data.run.id);
    }
    await suite.wb.service.call('cancel', { runId: payouts[3]!, reason: 'A duplicate.', requestId: rid() }, { kind: 'person', email: PEOPLE.ops, operator: true });
    await suite.wb.service.call('start_run', { process: 'intake', inputs: { supplier: 'Acme' }, requestId: rid() }, HELPER);
  });

  /** The runs listed, by the ids their links lead to (the links read as the runs' names). */
  const runIdsShown = async (page: Page) => page.locator('table.runs tbody th a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!.replace('/runs/', '')));

  it('lists runs newest first, filters by process, state and inputs, and pages through them', async () => {
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ben);
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.waitForURL(`${suite.wb.base}/runs`);
    expect(await axeProblems(page)).toEqual([]);
    const first = await runIdsShown(page);
    expect(first).toHaveLength(25);
    expect(first[0]).not.toBe(payouts[26]); // the intake run was started last
    expect(await page.locator('table.runs tbody tr').first().textContent()).toContain('Intake · Acme');

    // By process, through the form.
    await page.getByLabel('Process').selectOption('payout');
    await page.getByRole('button', { name: 'Filter' }).click();
    const page1 = await runIdsShown(page);
    expect(page1).toEqual([...payouts].reverse().slice(0, 25));
    await page.getByRole('link', { name: 'Next page' }).click();
    const page2 = await runIdsShown(page);
    expect(page2).toEqual([...payouts].reverse().slice(25));
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    expect(await page.getByLabel('Process').inputValue()).toBe('payout'); // the filter stays on later pages
    expect(await axeProblems(page)).toEqual([]);

    // By state.
    await page.goto(`${suite.wb.base}/runs?state=cancelled`);
    expect(await runIdsShown(page)).toEqual([payouts[3]]);

    // By inputs, as key=value lines: a number is compared as a number.
    await page.goto(`${suite.wb.base}/runs`);
    await page.getByLabel(/^Started with/).fill('payee=Payee-7\namount=107');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await runIdsShown(page)).toEqual([payouts[7]]);
    await page.getByLabel(/^Started with/).fill('payee=Payee-7\namount=999');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await runIdsShown(page)).toEqual([]);
    expect(await page.locator('main').textContent()).toContain('No run matches these filters');

    // Malformed lines are each named, and no list is shown.
    await page.getByLabel(/^Started with/).fill('payee\nnonsense');
    const [res] = await Promise.all([page.waitForResponse((r) => r.url().includes('/runs?')), page.getByRole('button', { name: 'Filter' }).click()]);
    expect(res.status()).toBe(422);
    const issues = await page.locator('#filter-issues li').allTextContents();
    expect(issues).toEqual(['Started with: "payee" is not a field and its value, such as payee = Sam', 'Started with: "nonsense" is not a field and its value, such as payee = Sam']);
    // The filter's words are a person's, not "Inputs (one key=value a line)".
    expect(await page.locator('form.runs-filter').innerText()).not.toMatch(/key=value|Inputs/);
    expect(await axeProblems(page)).toEqual([]);
    await ctx.close();
  });

  it('opens a run from the list: its steps, its map and its audit timeline verified as read', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'From-The-List');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    await page.goto(`${suite.wb.base}/runs?inputs=${encodeURIComponent('payee=From-The-List')}`);
    await page.locator(`table.runs a[href="/runs/${runId}"]`).click();
    await page.waitForURL(`${suite.wb.base}/runs/${runId}`);
    const main = page.locator('main');
    expect(await main.textContent()).toContain('Verified as read');
    const timeline = await page.locator('ol.timeline li').allTextContents();
    // One line per audit event of the run, in order, as the service's own chain has them.
    expect(timeline.length).toBeGreaterThanOrEqual(3);
    expect(timeline[0]).toContain('helper started Payout v1');
    expect(timeline.some((t) => t.includes('helper claimed “Draft the payout”'))).toBe(true);
    const map = page.locator('figure.map img');
    await map.evaluate((img: HTMLImageElement) => img.decode());
    expect(await map.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
    expect(await axeProblems(page)).toEqual([]);
    await ctx.close();
  });

  it('says a rejected approval as rejected, in the steps table and the timeline, with the note whole', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Rejected-Once');
    const work = await suite.wb.service.call('get_work', { process: 'payout', limit: 100 }, person(PEOPLE.ana));
    const item = (work as any).data.items.find((w: any) => w.runId === runId).workItem;
    const note = 'The memo names the wrong cost centre; the payee also asked for the payment to go to their second account, which we have not verified yet.';
    const decided = await suite.wb.service.call('decide', { runId, workItemId: item.id, decision: 'rejected', note, snapshot: item.snapshot, requestId: rid() }, person(PEOPLE.ana));
    expect(decided.ok, JSON.stringify(decided)).toBe(true);
    for (const [name, viewport] of VIEWPORTS) {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ben, viewport);
      await page.goto(`${suite.wb.base}/runs/${runId}`);
      const approval = page.locator('table.stack tbody tr', { has: page.locator('th', { hasText: 'Approve the payout' }) });
      expect(await approval.locator('td[data-label="State"]').textContent()).toBe('Rejected');
      const timeline = await page.locator('ol.timeline li').allTextContents();
      expect(timeline.some((t) => t.includes('Ana Silva rejected “Approve the payout when the memo explains it” → back to “Draft the payout”') && t.includes(note))).toBe(true);
      expect(timeline.join('\n')).not.toMatch(/step (rejected|completed)/);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `run-rejected-${name}.png`), fullPage: true });
      await ctx.close();
    }
  });

  it('shows the approver of a sent-back run the earlier rejection, note whole, among the earlier steps', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Sent-Back');
    const first = (await runView(suite.wb, runId)).workItems.find((w: any) => w.stepId === 'approve');
    const note = 'Name the cost centre in the memo, please.';
    const rejected = await suite.wb.service.call('decide', { runId, workItemId: first.id, decision: 'rejected', note, snapshot: first.snapshot, requestId: rid() }, person(PEOPLE.ana));
    expect(rejected.ok, JSON.stringify(rejected)).toBe(true);
    await agentDoes(suite.wb, runId, 'draft', { memo: 'Payout for Sent-Back, cost centre 4410' });
    const again = (await runView(suite.wb, runId)).workItems.find((w: any) => w.stepId === 'approve');
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ben);
    await page.goto(`${suite.wb.base}/work/${runId}/${again.id}`);
    const earlier = page.locator('section.step-record', { has: page.locator('h3', { hasText: 'Approve the payout when the memo explains it (earlier rounds)' }) });
    expect(await earlier.count()).toBe(1);
    expect(await earlier.locator('blockquote.note').textContent()).toBe(note);
    expect(await earlier.textContent()).toContain('Rejected by Ana Silva');
    expect(await axeProblems(page)).toEqual([]);
    await ctx.close();
  });

  it('shows processes with their versions and maps', async () => {
    await republish(suite.wb, 'payout', PAYOUT_TEXT.replace('description: An agent drafts a payout;', 'description: An agent drafts a payout (v2);'), { approver: 'approvers' });
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    await page.getByRole('link', { name: 'Processes', exact: true }).click();
    await page.waitForURL(`${suite.wb.base}/processes`);
    expect(await axeProblems(page)).toEqual([]);
    const names = await page.locator('ol.items h2 a').allTextContents();
    expect(names).toEqual(['Intake', 'Payout', 'Shady', 'Signal', 'Split']);
    const payout = page.locator('li.item', { has: page.locator('a[href="/processes/payout"]') });
    expect(await payout.textContent()).toContain('(v2)');
    expect(await payout.getByRole('link', { name: /^v\d of payout$/ }).allTextContents()).toEqual(['v1', 'v2']);

    // Version 1 is still there, with its own map.
    await payout.getByRole('link', { name: 'v1 of payout' }).click();
    expect(await page.locator('main > h1').textContent()).toBe('Payout');
    expect(await page.locator('main .small-id').textContent()).toBe('payout, version 1');
    expect(await page.locator('main').textContent()).toContain('An older version: the latest is v2');
    const img = page.locator('figure.map img');
    expect(await img.getAttribute('src')).toBe('/processes/payout/v1/map.svg');
    await img.evaluate((i: HTMLImageElement) => i.decode());
    expect(await img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBeGreaterThan(100);
    const svg = await page.request.get(`${suite.wb.base}/processes/payout/v2/map.svg`);
    expect(svg.status()).toBe(200);
    expect(svg.headers()['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(await svg.text()).toContain('version 2');
    expect((await page.request.get(`${suite.wb.base}/processes/payout/v9/map.svg`)).status()).toBe(404);
    expect((await page.request.get(`${suite.wb.base}/processes/nothing-here`)).status()).toBe(404);
    expect(await axeProblems(page)).toEqual([]);
    await ctx.close();
  });

  it('starts a run from the form generated from the inputs: a refusal at its field first, then the new run page', async () => {
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana);
    await page.goto(`${suite.wb.base}/processes/signal`);
    expect(await axeProblems(page)).toEqual([]);
    // The person input is a choice of the board's people.
    const options = await page.getByLabel('Owner').locator('option').allTextContents();
    expect(options).toEqual(['choose a person…', 'Ana Silva (ana@example.com)', 'ben@example.com', 'cy@example.com', 'ops@example.com']);
    await page.getByLabel('Owner').selectOption(PEOPLE.cy);
    const [refused] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/processes/signal/start')), page.getByRole('button', { name: 'Start a run of version 1' }).click()]);
    expect(refused.status()).toBe(422);
    expect(await page.locator('#f-inputs-ticket-issues').textContent()).toContain('Ticket: missing');
    expect(await page.getByLabel('Owner').inputValue()).toBe(PEOPLE.cy); // what was chosen is kept
    expect(await axeProblems(page)).toEqual([]);
    expect(((await suite.wb.service.call('list_runs', { process: 'signal' }, HELPER)) as any).data.items).toEqual([]);

    await page.getByLabel('Ticket').fill('T-42');
    await page.locator('input[name="inputs.urgent"][value="true"]').check();
    await page.getByRole('button', { name: 'Start a run of version 1' }).click();
    await page.waitForURL(/\/runs\/r-[0-9a-z]{26}\?started=1$/);
    expect(await page.locator('main').textContent()).toContain('The run started');
    const runId = /\/runs\/(r-[0-9a-z]{26})/.exec(page.url())![1]!;
    const v = await runView(suite.wb, runId);
    expect(v.run.process).toBe('signal');
    expect(v.run.startedBy).toBe(PEOPLE.ana);
    expect(v.data.inputs).toEqual({ ticket: 'T-42', owner: PEOPLE.cy, urgent: true });
    expect(v.steps.find((s: any) => s.id === 'hold').state).toBe('waiting');
    expect(await axeProblems(page)).toEqual([]);
    await ctx.close();
  });

  it('sends a signed-out visitor of a run, a work item or the operators to sign in, then on to the page asked for', async () => {
    const runId = await payoutAwaitingApproval(suite.wb, 'Signed-Out');
    const wi = (await runView(suite.wb, runId)).workItems[0];
    for (const [where, who] of [
      [`/runs/${runId}`, PEOPLE.ben],
      [`/work/${runId}/${wi.id}`, PEOPLE.ana],
      ['/operators', PEOPLE.ops],
    ] as const) {
      const ctx = await suite.browser.newContext();
      const page = await ctx.newPage();
      const res = await page.goto(`${suite.wb.base}${where}`);
      expect(res!.status()).toBe(401);
      const text = await page.locator('main').textContent();
      expect(text).toContain('Ask an operator of this board to send you one');
      expect(text).not.toMatch(/workboard |login-link/);
      expect(text).toContain('once you are signed in, you land on it');
      expect(await axeProblems(page)).toEqual([]);
      await page.goto(await createLoginLink(suite.wb.board, who, suite.wb.base));
      await page.getByRole('button', { name: /Sign in as/ }).click();
      await page.waitForURL(`${suite.wb.base}${where}`);
      expect(page.url()).toBe(`${suite.wb.base}${where}`);
      await ctx.close();
    }
  });

  it('writes screenshots of the runs list, the processes and a process page at 1280 and 390 px', async () => {
    for (const [label, viewport] of VIEWPORTS) {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana, viewport);
      for (const [name, where] of [
        ['runs', '/runs?process=payout'],
        ['processes', '/processes'],
        ['process', '/processes/signal'],
      ] as const) {
        await page.goto(`${suite.wb.base}${where}`);
        if (name === 'process') await page.locator('figure.map img').evaluate((i: HTMLImageElement) => i.decode());
        await shot(page, { path: path.join(ARTIFACTS, `${name}-${label}.png`), fullPage: true });
        // Nothing wider than the screen: wide tables scroll inside their own box.
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
      }
      await ctx.close();
    }
  });
});

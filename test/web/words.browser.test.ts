/**
 * The web app in the people's language (issue 27), in Debian's chromium at
 * 1280 and 390 px: the My work card shows what the agent found and marks a
 * warning; names replace emails and labels replace keys; web addresses open
 * in a new tab and a javascript: value stays text; on a phone the findings
 * come before the decision and a bar at the bottom jumps to it; the full-size
 * map opens with the current step in view; a task's route is chosen by its
 * words and its reason defaults to them; an escalation's two actions are two
 * forms; axe-core finds nothing serious on any of these pages. Screenshots of
 * each page go to test-artifacts/web/.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createLoginLink } from '../../src/web/sessions.js';
import { agentDoes, ARTIFACTS, axeProblems, browserSuite, HAVE_BROWSER, HELPER, NO_BROWSER_REASON, PEOPLE, republish, rid, runView, signedIn, type WebBoard, shot } from './web-support.js';

const EXPENSE = `---
name: expense-claim
description: An agent checks an expense claim against the travel policy; an approver decides.
inputs:
  claimant: person
  amount: { type: number, description: Amount claimed in EUR }
  receiptUrl: { type: string, description: Link to the receipt }
steps:
  - id: review
    agent: Check the claim against the travel policy.
    output:
      withinPolicy: { type: boolean, description: Within the travel policy }
      category: { type: string, one_of: [travel, meals, other] }
  - id: approve
    person: approver
    approve: Approve the claim when the receipt supports it.
    due: 2d
    on_reject: review
    next: paid
  - id: paid
    finish: paid
---
# Expense claim

An agent checks a claim against the travel policy, then an approver decides.
`;

const TRIP = `---
name: trip
description: A clerk plans a trip and says which way it goes.
inputs:
  traveller: person
steps:
  - id: plan
    person: clerk
    task: Plan the trip and say how it goes ahead.
    output:
      nights: { type: number, description: Nights away (nights) }
    next:
      - { to: book, when: The traveller goes as planned }
      - { to: waiting_list, when: No seat is free yet }
  - id: book
    finish: booked
  - id: waiting_list
    finish: waiting
---
# Trip planning
`;

const LINKED = `---
name: linked-claim
description: An agent checks a receipt it links to; an approver decides.
steps:
  - id: review
    agent: Check the receipt.
    output: { ok: boolean }
    evidence: [link]
  - id: approve
    person: approver
    approve: Approve when the receipt supports it.
    next: paid
  - id: paid
    finish: paid
---
# Linked claim
`;

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const;

async function claimAwaitingApproval(wb: WebBoard, amount: number, withinPolicy: boolean, receiptUrl: string): Promise<{ runId: string; itemId: string }> {
  const start = await wb.service.call('start_run', { process: 'expense-claim', inputs: { claimant: PEOPLE.ana, amount, receiptUrl }, requestId: rid() }, HELPER);
  if (!start.ok) throw new Error(JSON.stringify(start));
  const runId = (start.data as { run: { id: string } }).run.id;
  await agentDoes(wb, runId, 'review', { withinPolicy, category: 'travel' });
  const item = (await runView(wb, runId)).workItems.find((w: { stepId: string }) => w.stepId === 'approve');
  return { runId, itemId: item.id };
}

/** Whether the element's box lies inside the viewport as it is scrolled now. */
async function inViewport(page: Page, selector: string): Promise<boolean> {
  return page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
    });
}

describe.skipIf(!HAVE_BROWSER)(`the web app in words, at 1280 and 390 px${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  const suite = browserSuite();
  let flagged: { runId: string; itemId: string };
  let fine: { runId: string; itemId: string };

  it('publishes the processes these tests read', async () => {
    await republish(suite.wb, 'expense-claim', EXPENSE, { approver: 'approvers' });
    await republish(suite.wb, 'trip', TRIP, { clerk: 'clerks' });
    flagged = await claimAwaitingApproval(suite.wb, 1240, false, 'https://receipts.example.com/r/1240');
    fine = await claimAwaitingApproval(suite.wb, 184.5, true, 'https://receipts.example.com/r/184');
  });

  it('on a phone (mobile emulation), a long evidence link wraps: nothing scrolls sideways and the bar to the decision is whole on screen', async () => {
    await republish(suite.wb, 'linked-claim', LINKED, { approver: 'approvers' });
    const start = await suite.wb.service.call('start_run', { process: 'linked-claim', inputs: {}, requestId: rid() }, HELPER);
    const runId = (start as any).data.run.id as string;
    const claim = await suite.wb.service.call('claim', { runId, stepId: 'review', requestId: rid() }, HELPER);
    const longLink = `https://receipts.example.com/scans/2026/12/${'a1b2c3d4e5'.repeat(14)}.pdf?download=true&signature=${'f'.repeat(64)}`;
    const sub = await suite.wb.service.call(
      'submit',
      { token: (claim as any).data.token, output: { ok: true }, evidence: [{ kind: 'link', ref: longLink }], summary: 'The receipt matches.', requestId: rid() },
      HELPER,
    );
    expect(sub.ok, JSON.stringify(sub)).toBe(true);
    const item = (await runView(suite.wb, runId)).workItems.find((w: { stepId: string }) => w.stepId === 'approve');
    const ctx = await suite.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 });
    const page = await ctx.newPage();
    await page.goto(await createLoginLink(suite.wb.board, PEOPLE.ana, suite.wb.base));
    await page.getByRole('button', { name: /Sign in as/ }).click();
    await page.waitForURL(`${suite.wb.base}/work`);
    await page.goto(`${suite.wb.base}/work/${runId}/${item.id}`);
    expect(await page.locator(`a[href="${longLink}"]`).count()).toBe(1);
    const sizes = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      innerHeight: window.innerHeight,
      visual: window.visualViewport!.width,
    }));
    expect(sizes).toEqual({ scrollWidth: 390, innerWidth: 390, innerHeight: 844, visual: 390 });
    const bar = await page.locator('a.action-bar').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    });
    expect(bar.left).toBeGreaterThanOrEqual(0);
    expect(bar.right).toBeLessThanOrEqual(390);
    expect(bar.top).toBeGreaterThan(0);
    expect(bar.bottom).toBeLessThanOrEqual(844);
    expect(await axeProblems(page)).toEqual([]);
    await shot(page, { path: path.join(ARTIFACTS, 'words-long-link-phone.png') });
    await ctx.close();
  });

  for (const [label, viewport] of VIEWPORTS) {
    it(`${label}: the My work card names the step and the run in words, shows the verdict and marks the warning`, async () => {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana, viewport);
      const card = (c: { runId: string; itemId: string }) => page.locator('li.item', { has: page.locator(`a[href="/work/${c.runId}/${c.itemId}"]`) });
      const bad = card(flagged);
      const good = card(fine);
      // The step's title from its instructions, the run by its key inputs: no ids, no emails, no keys.
      expect(await bad.locator('h2 a').textContent()).toBe('Approve the claim when the receipt supports it');
      expect(await bad.locator('h2 .kind').textContent()).toBe('Approval');
      expect(await bad.locator('.run-name').textContent()).toBe('Expense claim · Ana Silva · 1,240.00 EUR');
      expect(await good.locator('.run-name').textContent()).toBe('Expense claim · Ana Silva · 184.50 EUR');
      const text = (await bad.textContent())!;
      for (const machine of ['ana@example.com', 'withinPolicy', 'expense-claim', 'approve:', flagged.runId]) expect(text).not.toContain(machine);
      // The verdict under its label; a "No" is marked by a sign and a word, not by colour alone.
      const verdict = bad.locator('dl.found div', { hasText: 'Within the travel policy' });
      expect(await verdict.locator('dd').textContent()).toBe('⚠ Warning: No');
      expect(await verdict.getAttribute('class')).toBe('warning');
      expect(await bad.getAttribute('class')).toContain('has-warning');
      expect(await good.locator('dl.found div', { hasText: 'Within the travel policy' }).locator('dd').textContent()).toBe('Yes');
      expect(await good.locator('.warning').count()).toBe(0);
      expect(await good.getAttribute('class')).not.toContain('has-warning');
      expect(await bad.locator('dl.found div', { hasText: 'Category' }).locator('dd').textContent()).toBe('Travel');
      // The due time in words, the exact time in the viewer's zone on hover.
      const due = bad.locator('time');
      expect(await due.textContent()).toMatch(/^in (2 days|\d+ hours)$/);
      expect(await due.getAttribute('title')).toMatch(/\d{4}, \d{2}:\d{2}/);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `words-inbox-${label}.png`), fullPage: true });
      await ctx.close();
    });

    it(`${label}: the work item puts what was found before the decision, links open in a new tab, and the decision stays in reach`, async () => {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana, viewport);
      await page.goto(`${suite.wb.base}/work/${flagged.runId}/${flagged.itemId}`);
      expect(await page.locator('main > h1').textContent()).toBe('Approve the claim when the receipt supports it');
      expect(await page.locator('.crumbs').textContent()).toContain('Expense claim · Ana Silva · 1,240.00 EUR');
      expect(await page.getByRole('heading', { name: 'Decide' }).count()).toBe(1);
      // Labels from the descriptions, people by name, amounts with their unit.
      const inputs = page.locator('section[aria-labelledby="inputs-h"]');
      expect(await inputs.locator('dt').allTextContents()).toEqual(['Claimant', 'Amount claimed in EUR', 'Link to the receipt']);
      expect(await inputs.locator('dd').first().textContent()).toBe('Ana Silva');
      expect(await inputs.locator('dd span[title="ana@example.com"]').count()).toBe(1);
      expect(await inputs.locator('dd').nth(1).textContent()).toBe('1,240.00 EUR');
      // The receipt opens in a new tab, with no opener and no referrer.
      const receipt = inputs.locator('a[href="https://receipts.example.com/r/1240"]');
      expect(await receipt.getAttribute('target')).toBe('_blank');
      expect(await receipt.getAttribute('rel')).toBe('noopener noreferrer');
      await ctx.route('https://receipts.example.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Receipt</title>' }));
      const [tab] = await Promise.all([ctx.waitForEvent('page'), receipt.click()]);
      await tab.waitForLoadState();
      expect(tab.url()).toBe('https://receipts.example.com/r/1240');
      expect(await tab.evaluate(() => window.opener)).toBeNull();
      await tab.close();
      // What was found comes first in reading order; on a phone above the form, on a desktop beside it.
      const found = (await page.locator('#found-h').boundingBox())!;
      const form = (await page.locator('form#decide').boundingBox())!;
      if (label === 'phone') expect(found.y + found.height).toBeLessThan(form.y);
      else expect(found.x + found.width).toBeLessThan(form.x);
      expect(await page.locator('section.found-section .warning').textContent()).toContain('Warning: No');
      if (label === 'phone') {
        // The bar at the bottom is on screen from the start and jumps to the buttons, without a script.
        await page.evaluate(() => window.scrollTo(0, 0));
        expect(await inViewport(page, 'a.action-bar')).toBe(true);
        expect(await inViewport(page, 'form#decide button[value="approved"]')).toBe(false);
        await page.locator('a.action-bar').click();
        await page.waitForFunction(() => location.hash === '#decision');
        expect(await inViewport(page, 'form#decide h2')).toBe(true);
        // Halfway through the findings the bar is still there.
        await page.evaluate(() => window.scrollTo(0, 300));
        expect(await inViewport(page, 'a.action-bar')).toBe(true);
      } else {
        expect(await page.locator('a.action-bar').isVisible()).toBe(false);
      }
      expect(await axeProblems(page)).toEqual([]);
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, { path: path.join(ARTIFACTS, `words-work-item-${label}.png`), fullPage: true });
      await ctx.close();
    });

    it(`${label}: a javascript: value is shown as text, never as a link`, async () => {
      // A run that waits for an event, so it stays out of the cards the other tests read.
      const start = await suite.wb.service.call('start_run', { process: 'signal', inputs: { ticket: 'javascript:alert(1)', owner: PEOPLE.ben }, requestId: rid() }, HELPER);
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana, viewport);
      await page.goto(`${suite.wb.base}/runs/${(start as any).data.run.id}`);
      const inputs = page.locator('section[aria-labelledby="inputs-h"]');
      expect(await inputs.textContent()).toContain('javascript:alert(1)');
      expect(await page.locator('a[href^="javascript"]').count()).toBe(0);
      await ctx.close();
    });

    it(`${label}: the full-size map opens from the work item with the current step ringed and in view, and zooms`, async () => {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana, viewport);
      await page.goto(`${suite.wb.base}/work/${flagged.runId}/${flagged.itemId}`);
      await page.getByRole('link', { name: 'Open the map full size' }).click();
      await page.waitForURL(`${suite.wb.base}/runs/${flagged.runId}/map#here`);
      expect(await page.locator('main > h1').textContent()).toBe('Map of this run of Expense claim');
      expect(await page.locator('main').textContent()).toContain('The run is at');
      // The ring is inside the part of the scrolling box that shows.
      const visible = async () =>
        page.evaluate(() => {
          const box = document.querySelector('[data-map]')!.getBoundingClientRect();
          const r = document.getElementById('here')!.getBoundingClientRect();
          return r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
        });
      expect(await visible()).toBe(true);
      const svg = page.locator('[data-map] svg');
      const before = Number(await svg.getAttribute('width'));
      await page.getByRole('button', { name: 'Zoom in' }).click();
      expect(Number(await svg.getAttribute('width'))).toBeGreaterThan(before);
      expect(await visible()).toBe(true);
      await page.getByRole('button', { name: 'Full size' }).click();
      expect(Number(await svg.getAttribute('width'))).toBe(before);
      // The drawing itself is the run's map image.
      const img = await page.request.get(`${suite.wb.base}/runs/${flagged.runId}/map.svg`);
      expect(img.headers()['content-type']).toContain('image/svg+xml');
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `words-map-${label}.png`), fullPage: false });
      await ctx.close();
    });

    it(`${label}: the run page and the runs list name the run, its steps and people in words, in rows a phone can read`, async () => {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ana, viewport);
      await page.goto(`${suite.wb.base}/runs/${flagged.runId}`);
      expect(await page.locator('main > h1').textContent()).toBe('Expense claim · Ana Silva · 1,240.00 EUR');
      const rows = page.locator('section[aria-labelledby="steps-table-h"] tbody tr');
      expect(await rows.locator('th').allTextContents()).toEqual(['Check the claim against the travel policy', 'Approve the claim when the receipt supports it', 'Paid']);
      expect(await rows.first().locator('td[data-label="Kind"]').textContent()).toBe('Agent');
      if (label === 'phone') {
        // Each value sits on one line under its column's name: no word is split across lines.
        const oneLine = await page.locator('section[aria-labelledby="steps-table-h"] td[data-label="Kind"]').evaluateAll((tds) => tds.map((td) => td.getBoundingClientRect().height < 40));
        expect(oneLine.every(Boolean)).toBe(true);
      }
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `words-run-${label}.png`), fullPage: true });
      await page.goto(`${suite.wb.base}/runs?process=expense-claim`);
      expect(await page.locator('table.runs tbody th a').allTextContents()).toContain('Expense claim · Ana Silva · 1,240.00 EUR');
      expect(await axeProblems(page)).toEqual([]);
      await page.goto(`${suite.wb.base}/processes/expense-claim`);
      expect(await page.locator('main > h1').textContent()).toBe('Expense claim');
      expect(await page.getByLabel('Amount claimed in EUR').count()).toBe(1);
      // A web address is typed on one line, with the phone's keyboard for addresses.
      const link = page.getByLabel('Link to the receipt');
      expect(await link.evaluate((el) => [el.tagName, el.getAttribute('inputmode')])).toEqual(['INPUT', 'url']);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `words-process-${label}.png`), fullPage: true });
      await page.getByRole('link', { name: 'Open the map full size' }).click();
      await page.waitForURL(/\/processes\/expense-claim\/v1\/map$/);
      expect(await page.locator('[data-map] svg image').count()).toBe(1);
      expect(await axeProblems(page)).toEqual([]);
      await ctx.close();
    });

    it(`${label}: a task's route is chosen by its words, the reason defaults to them, and the task says Complete`, async () => {
      const start = await suite.wb.service.call('start_run', { process: 'trip', inputs: { traveller: PEOPLE.ana }, requestId: rid() }, HELPER);
      const runId = (start as any).data.run.id as string;
      const item = (await runView(suite.wb, runId)).workItems[0];
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.cy, viewport);
      await page.goto(`${suite.wb.base}/work/${runId}/${item.id}`);
      expect(await page.getByRole('heading', { name: 'Complete', exact: true }).count()).toBe(1);
      expect(await page.getByRole('heading', { name: 'Decide' }).count()).toBe(0);
      expect(await page.locator('main').textContent()).not.toContain('waiting_list');
      expect(await page.locator('main').textContent()).toContain('Left empty, the words of the choice you picked are recorded as the reason');
      await page.getByLabel('Nights away (nights)').fill('3');
      await page.getByLabel(/^No seat is free yet/).check();
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `words-task-${label}.png`), fullPage: true });
      await page.getByRole('button', { name: 'Complete', exact: true }).click();
      await page.waitForURL(new RegExp(`/runs/${runId}\\?done=`));
      expect(await page.locator('.notice.ok').textContent()).toContain('Your work was recorded');
      expect(await page.locator('main').textContent()).not.toContain('Your decision was recorded');
      const v = await runView(suite.wb, runId);
      expect(v.data.steps.plan).toMatchObject({ output: { nights: 3 }, next: 'waiting_list', reason: 'No seat is free yet', by: PEOPLE.cy });
      // The recorded route and its reason each read on a line of their own on the run page, never glued into one sentence.
      expect(await page.locator('p.route').allTextContents()).toEqual(['Next: Waiting list', 'Why: No seat is free yet']);
      await ctx.close();
    });
  }

  it("times say the exact moment in the board's zone on hover and, for a viewer elsewhere, in their own zone too", async () => {
    for (const [timezoneId, zone] of [
      ['America/New_York', /\b(EST|EDT)$/],
      ['Asia/Kolkata', /GMT\+5:30$/],
    ] as const) {
      const ctx = await suite.browser.newContext({ timezoneId, locale: 'en-US' });
      const page = await ctx.newPage();
      await page.goto(await createLoginLink(suite.wb.board, PEOPLE.ana, suite.wb.base));
      await page.getByRole('button', { name: /Sign in as/ }).click();
      await page.waitForURL(`${suite.wb.base}/work`);
      const due = page.locator('li.item', { has: page.locator(`a[href="/work/${flagged.runId}/${flagged.itemId}"]`) }).locator('time');
      const at = new Date((await due.getAttribute('datetime'))!);
      // The title is the moment the datetime attribute names, as a clock in that zone shows it.
      const hour = new Intl.DateTimeFormat('en-US', { timeZone: timezoneId, hour: 'numeric', minute: '2-digit' }).format(at);
      const title = (await due.getAttribute('title'))!;
      // The board's zone (UTC here) first, as its emails and the CLI say it; then the viewer's own.
      expect(title).toMatch(/^\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC \(.* where you are\)$/);
      const own = /\((.*) where you are\)$/.exec(title)![1]!;
      expect(own).toMatch(zone);
      expect(own).toContain(hour);
      await ctx.close();
    }
  });

  it('an escalation offers Return to the agent and Complete in its place as two separate forms', async () => {
    const start = await suite.wb.service.call(
      'start_run',
      { process: 'expense-claim', inputs: { claimant: PEOPLE.ana, amount: 75, receiptUrl: 'https://receipts.example.com/r/75' }, requestId: rid() },
      HELPER,
    );
    const runId = (start as any).data.run.id as string;
    const claim = await suite.wb.service.call('claim', { runId, stepId: 'review', requestId: rid() }, HELPER);
    const esc = await suite.wb.service.call('escalate', { token: (claim as any).data.token, note: 'The receipt is unreadable.', requestId: rid() }, HELPER);
    if (!esc.ok) throw new Error(JSON.stringify(esc));
    const item = (await runView(suite.wb, runId)).workItems.find((w: any) => w.stepId === 'review');
    for (const [label, viewport] of VIEWPORTS) {
      const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ops, viewport);
      await page.goto(`${suite.wb.base}/work/${runId}/${item.id}`);
      const back = page.locator('form#return');
      const instead = page.locator('form#decide');
      expect(await back.locator('h2').textContent()).toBe('Return to the agent');
      expect(await instead.locator('h2').textContent()).toBe('Complete in its place');
      // Each form carries only its own action: a note to return, every output to complete.
      expect(await back.locator('button[name="decision"]').evaluateAll((b) => b.map((x) => (x as HTMLButtonElement).value))).toEqual(['returned']);
      expect(await instead.locator('button[name="decision"]').evaluateAll((b) => b.map((x) => (x as HTMLButtonElement).value))).toEqual(['completed']);
      expect(await back.locator('[name^="output."]').count()).toBe(0);
      expect(await instead.locator('textarea[name="note"]').count()).toBe(0);
      expect(await instead.getByText('Within the travel policy').count()).toBeGreaterThan(0);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `words-escalation-${label}.png`), fullPage: true });
      await ctx.close();
    }
    const { ctx, page } = await signedIn(suite.browser, suite.wb, PEOPLE.ops);
    await page.goto(`${suite.wb.base}/work/${runId}/${item.id}`);
    await page.getByLabel('Note for the agent (required)').fill('Ask the claimant for a clearer photo.');
    await page.getByRole('button', { name: 'Return to the agent' }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}\\?done=`));
    const work = await suite.wb.service.call('get_work', { process: 'expense-claim', limit: 100 }, HELPER);
    expect((work as any).data.items.find((i: any) => i.runId === runId).handoff.returned).toMatchObject({ note: 'Ask the claimant for a clearer photo.', by: PEOPLE.ops });
    await ctx.close();
  });
});

/**
 * Out of office in a real browser (issue 42): Ana hands her approvals to Cy
 * on the out-of-office page, Cy finds the payout on My work marked "For Ana
 * Silva", approves it on its page, and the run's timeline says "cy@… approved
 * for Ana Silva". At 1280 px and on a phone (390 px, mobile emulation), with
 * axe-core finding nothing serious and nothing scrolling sideways; the
 * screenshots are in docs/web/.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createLoginLink } from '../../src/web/sessions.js';
import { axeProblems, browserSuite, HAVE_BROWSER, NO_BROWSER_REASON, payoutAwaitingApproval, PEOPLE, shot, DOCS_WEB } from './web-support.js';

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

const VIEWS = [
  ['desktop', { viewport: { width: 1280, height: 900 } }],
  ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }],
] as const;

describe.skipIf(!HAVE_BROWSER)(`out of office in a browser${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  const suite = browserSuite();

  async function open(who: string, options: (typeof VIEWS)[number][1]): Promise<Page> {
    const ctx = await suite.browser.newContext(options);
    const page = await ctx.newPage();
    await page.goto(await createLoginLink(suite.wb.board, who, suite.wb.base));
    await page.getByRole('button', { name: /Sign in as/ }).click();
    await page.waitForURL(`${suite.wb.base}/work`);
    return page;
  }

  const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  for (const [label, options] of VIEWS) {
    it(`${label}: hand work over, see it marked on the delegate's My work, decide it for the person away`, async () => {
      const runId = await payoutAwaitingApproval(suite.wb, `Lee ${label}`);
      const ana = await open(PEOPLE.ana, options);
      await ana.getByRole('link', { name: /Out of office\? Hand your work to someone/ }).click();
      await ana.waitForURL(`${suite.wb.base}/out-of-office`);
      await ana.getByLabel('Who stands in for you').selectOption(PEOPLE.cy);
      await ana.getByLabel(/Back on/).fill(new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10));
      await ana.getByLabel(/A note for the team/).fill('Holiday');
      await ana.getByRole('button', { name: 'Hand over my work' }).click();
      await ana.waitForURL(`${suite.wb.base}/out-of-office?done=set`);
      expect(await ana.locator('main').innerText()).toContain('You are out of office');
      expect(await axeProblems(ana)).toEqual([]);
      expect(await sideways(ana)).toBe(0);
      await shot(ana, { path: path.join(DOCS_WEB, `out-of-office-${label}.png`), fullPage: true });

      const cy = await open(PEOPLE.cy, options);
      const card = cy.locator('li.item', { hasText: `Lee ${label}` });
      await expect.poll(() => card.count()).toBe(1);
      expect(await card.locator('.on-behalf').innerText()).toBe('For Ana Silva, out of office: you decide it for them');
      expect(await axeProblems(cy)).toEqual([]);
      expect(await sideways(cy)).toBe(0);
      await shot(cy, { path: path.join(DOCS_WEB, `inbox-delegated-${label}.png`), fullPage: true });

      await card.getByRole('link').first().click();
      await cy.waitForURL(/\/work\/r-/);
      expect(await cy.locator('main .on-behalf').innerText()).toBe('For Ana Silva, out of office: you decide it in your name, for them');
      expect(await axeProblems(cy)).toEqual([]);
      expect(await sideways(cy)).toBe(0);
      await cy.getByRole('button', { name: 'Approve' }).click();
      await cy.waitForURL(new RegExp(`/runs/${runId}\\?decided=`));
      expect(await cy.locator('ol.timeline').innerText()).toMatch(/cy@example\.com approved for Ana Silva/);

      // Ana comes back: the operator-free way, from her own page.
      await ana.goto(`${suite.wb.base}/out-of-office`);
      await ana.getByRole('button', { name: 'I am back: end it now' }).click();
      await ana.waitForURL(`${suite.wb.base}/out-of-office?done=ended`);
      expect(await ana.locator('main').innerText()).not.toContain('You are out of office');
      await ana.context().close();
      await cy.context().close();
    });
  }
});

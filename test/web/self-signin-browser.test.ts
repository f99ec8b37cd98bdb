/**
 * Self-service sign-in in Debian's chromium, at 1280 and 390 px: a person
 * signed out opens the link of a real notification email, is offered the
 * form at once, asks for a link, reads it from the SMTP test server, signs
 * in with it and lands on the work item; a stranger's address shows the
 * very same page. axe-core finds no serious or critical violation on the
 * pages on the way, and each is kept as a screenshot in test-artifacts/web/.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { until } from '../support/until.js';
import { smtpServer, type Mail, type Smtp } from '../notify/support.js';
import { ARTIFACTS, HAVE_BROWSER, NO_BROWSER_REASON, PEOPLE, axeProblems, browserSuite, payoutAwaitingApproval, shot } from './web-support.js';

const TITLE = 'Finance desk';
const VIEWPORTS = [
  { label: 'desktop', viewport: { width: 1280, height: 900 } },
  { label: 'phone', viewport: { width: 390, height: 844 } },
];

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

describe.skipIf(!HAVE_BROWSER)('signing in by oneself, in a browser', () => {
  const suite = browserSuite();
  let smtp: Smtp;
  beforeAll(async () => {
    smtp = await smtpServer();
    await editManifest(suite.wb.board, 'test', 'notifications.set', (d) => {
      d.title = TITLE;
      d.notifications = { baseUrl: suite.wb.base, email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port } } };
      return 'notifications';
    });
    return () => smtp.close();
  });

  const isLink = (m: Mail) => m.subject === `Your sign-in link for ${TITLE}`;
  const linkOf = (m: Mail, re: RegExp) => re.exec(m.text)?.[0];

  /** The page's main text, with the address typed put aside: what a person reads. */
  const reads = async (page: Page, address: string) => (await page.locator('main').innerText()).split(address).join('<address>');

  for (const { label, viewport } of VIEWPORTS) {
    it(`at ${viewport.width} px: from a notification's link, signed out, to the work item through an emailed link`, async () => {
      const { wb, browser } = suite;
      const run = await payoutAwaitingApproval(wb);
      const itemLink = new RegExp(`${wb.base}/work/${run}/w-[0-9a-z]+`);
      const notice = await until(() => smtp.mails.find((m) => m.to.includes(PEOPLE.ana) && !isLink(m) && itemLink.test(m.text)), 30_000);
      const target = linkOf(notice, itemLink)!;

      const ctx = await browser.newContext({ viewport });
      const page = await ctx.newPage();
      await page.goto(target);
      await expect(page.getByRole('heading', { name: 'Email me a sign-in link' }).isVisible()).resolves.toBe(true);
      const field = page.getByLabel('Your email address');
      expect(await field.inputValue()).toBe('');
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `signin-${label}.png`), fullPage: true });

      // Sent empty: the problem is said at the field, and the page stays accessible.
      await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
      await page.getByText('Enter your email address.').waitFor();
      expect(await page.getByLabel('Your email address').getAttribute('aria-invalid')).toBe('true');
      expect(await axeProblems(page)).toEqual([]);

      const before = smtp.mails.filter((m) => isLink(m) && m.to.includes(PEOPLE.ana)).length;
      await field.fill(PEOPLE.ana);
      await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
      await page.getByText('Check your email').waitFor();
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(ARTIFACTS, `signin-sent-${label}.png`), fullPage: true });
      const known = await reads(page, PEOPLE.ana);

      // Someone else, in another browser, types an address nobody on the board has: the same page.
      const other = await browser.newContext({ viewport });
      const stranger = await other.newPage();
      await stranger.goto(target);
      await stranger.getByLabel('Your email address').fill('zed@example.com');
      await stranger.getByRole('button', { name: 'Email me a sign-in link' }).click();
      await stranger.getByText('Check your email').waitFor();
      expect(await reads(stranger, 'zed@example.com')).toBe(known);
      await other.close();

      const mail = await until(() => smtp.mails.filter((m) => isLink(m) && m.to.includes(PEOPLE.ana))[before], 30_000);
      const link = linkOf(mail, /http:\/\/\S+\/signin\?code=\S+/)!;
      await page.goto(link);
      expect(await page.locator('main').innerText()).toContain('This link signs you in as Ana Silva (ana@example.com). It works once.');
      expect(await axeProblems(page)).toEqual([]);
      await page.getByRole('button', { name: `Sign in as ${PEOPLE.ana}` }).click();
      await page.waitForURL(target);
      expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
      expect(await page.getByRole('heading', { level: 1, name: 'Sign in' }).count()).toBe(0);
      expect(await page.getByText('Approve the payout when the memo explains it').first().isVisible()).toBe(true);
      expect(smtp.mails.some((m) => m.to.includes('zed@example.com'))).toBe(false);
      await ctx.close();
    });
  }
});

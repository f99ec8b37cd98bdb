/**
 * A decision made in Slack shows on the run page (issue 42), in Debian's
 * chromium at 1280 and 390 px (the phone in mobile emulation): Ana approves a payout with the Slack message's
 * button (a click signed as Slack signs it, to a real serve --http); the run
 * page then says the run is paid, and its timeline says "Ana Silva approved
 * … in Slack". axe-core finds nothing serious. Screenshots go to docs/web/.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureBuilt } from '../support/cli-run.js';
import { buttonClick, postInteraction } from '../support/slack-api.js';
import { until } from '../support/until.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { axeProblems, HAVE_BROWSER, launch, NO_BROWSER_REASON, PEOPLE, release, runView, signedIn, shot, DOCS_WEB } from './web-support.js';
import { approvalPosted, SECRET, slackBoard, USERS, type SlackBoard } from './slack-support.js';

describe.skipIf(!HAVE_BROWSER)(`a decision made in Slack on the run page${HAVE_BROWSER ? '' : ` (${NO_BROWSER_REASON})`}`, () => {
  let sb: SlackBoard;
  let browser: Browser;
  beforeAll(async () => {
    await ensureBuilt();
    sb = await slackBoard();
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await release(browser);
    await sb?.stop();
    await cleanupTmp();
  });

  it('shows the approval made through Slack, by name, in the run and its timeline', async () => {
    const { runId, message } = await approvalPosted(sb, 'Sam');
    expect((await postInteraction(sb.wb.base, buttonClick(USERS.ana, message, 'wb.approve'), SECRET)).status).toBe(200);
    await until(async () => ((await runView(sb.wb, runId)).run.outcome === 'paid' ? true : undefined), 20_000);
    for (const [name, viewport, emulate] of [
      ['desktop', { width: 1280, height: 900 }, {}],
      ['phone', { width: 390, height: 844 }, { isMobile: true, hasTouch: true, deviceScaleFactor: 2 }],
    ] as const) {
      const { ctx, page } = await signedIn(browser, sb.wb, PEOPLE.ben, viewport, emulate);
      await page.goto(`${sb.wb.base}/runs/${runId}`);
      const timeline = page.locator('ol.timeline');
      await expect.poll(() => timeline.innerText()).toMatch(/Ana Silva approved “Approve the payout when the memo explains it” in Slack/);
      expect(await page.locator('main').innerText()).toMatch(/paid/i);
      expect(await axeProblems(page)).toEqual([]);
      // Nothing scrolls sideways, on the phone in mobile emulation too.
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      await timeline.scrollIntoViewIfNeeded();
      await shot(page, { path: path.join(DOCS_WEB, `run-slack-${name}.png`), fullPage: false });
      await ctx.close();
    }
  });
});

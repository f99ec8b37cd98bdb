/**
 * A work item's reminder ladder in words, on its page and on My work: after
 * two reminders a real `serve --http` sent (spans of seconds), the page says
 * "Reminded twice; goes to the finance leads in 4 hours." Debian's chromium
 * at 1280 px and at 390 px in mobile emulation, axe-core on both; the
 * screenshots go to docs/web/. A test run's item shows no ladder.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { addToGroup, editManifest } from '../../src/board/people.js';
import { createLoginLink } from '../../src/web/sessions.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { until } from '../support/until.js';
import {
  agentDoes,
  axeProblems,
  HAVE_BROWSER,
  HELPER,
  launch,
  NO_BROWSER_REASON,
  PAYOUT_TEXT,
  PEOPLE,
  release,
  republish,
  rid,
  serveBoard,
  startBoard,
  stopServer,
  type WebBoard,
  shot,
  DOCS_WEB,
} from './web-support.js';

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

const SENTENCE = 'Reminded twice; goes to the finance leads in 4 hours.';

describe.skipIf(!HAVE_BROWSER)(`a work item's reminder ladder${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  let wb: WebBoard;
  let browser: Browser;
  let live: string;
  let test: string;

  const startPayout = async (payee: string, mode?: 'test') => {
    const start = await wb.service.call('start_run', { process: 'payout', inputs: { payee, amount: 120 }, requestId: rid(), ...(mode ? { mode } : {}) }, HELPER);
    if (!start.ok) throw new Error(JSON.stringify(start));
    const runId = (start.data as { run: { id: string } }).run.id;
    await agentDoes(wb, runId, 'draft', { memo: `Payout for ${payee}` });
    return runId;
  };

  beforeAll(async () => {
    const first = await startBoard();
    await first.stop();
    // The approval without a due time: the ladder counts from when it opens.
    await republish(first, 'payout', PAYOUT_TEXT.replace('    due: 2d\n', ''), { approver: 'approvers' });
    await addToGroup(first.board, 'test', 'finance-leads', [PEOPLE.cy]);
    await editManifest(first.board, 'test', 'reminders.set', (d) => {
      d.reminders = { ladders: { payout: { steps: { approve: { after: { every: '2s', times: 2 }, escalate: { after: '4h', to: 'finance-leads' } } } } } };
      return 'reminders';
    });
    const { server, base } = await serveBoard(first.root);
    wb = { ...first, server, base, stop: () => stopServer(server) };
    live = await startPayout('Sam Reed');
    test = await startPayout('Tess Trial', 'test');
    // serve sends both reminders (2 s and 4 s after the approval opened).
    await until(async () => ((await wb.service.ladderSentence(live, await itemOf(live))) === SENTENCE ? true : undefined), 30_000, 100);
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await release(browser);
    await wb?.stop();
    await cleanupTmp();
  });

  async function itemOf(runId: string): Promise<string> {
    const r = await wb.service.call('get_run', { runId }, { kind: 'person', email: PEOPLE.ops, operator: true });
    if (!r.ok) throw new Error(JSON.stringify(r));
    return (r.data as { workItems: { id: string }[] }).workItems[0]!.id;
  }

  it.each([
    ['desktop', { viewport: { width: 1280, height: 900 } }],
    ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }],
  ] as const)('%s: the item page and My work say where the ladder stands, in words', async (name, options) => {
    const ctx = await browser.newContext(options);
    const page = await ctx.newPage();
    await page.goto(await createLoginLink(wb.board, PEOPLE.ben, wb.base));
    await page.getByRole('button', { name: /Sign in as/ }).click();
    await page.waitForURL(`${wb.base}/work`);

    // My work: the live item's card says it; the test run's card has no ladder.
    const cards = page.locator('li.item');
    const liveCard = cards.filter({ hasText: 'Sam Reed' });
    await expect.poll(() => liveCard.locator('.ladder').textContent()).toBe(SENTENCE);
    expect(await cards.filter({ hasText: 'Tess Trial' }).locator('.ladder').count()).toBe(0);
    expect(await axeProblems(page)).toEqual([]);
    await shot(page, { path: path.join(DOCS_WEB, `reminders-inbox-${name}.png`), fullPage: true });

    // The item page: the sentence under the item's line, nothing sideways on a phone.
    await page.goto(`${wb.base}/work/${live}/${await itemOf(live)}`);
    expect(await page.locator('main .ladder').textContent()).toBe(SENTENCE);
    const box = await page.locator('main .ladder').boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(options.viewport.width);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(options.viewport.width);
    expect(await axeProblems(page)).toEqual([]);
    await shot(page, { path: path.join(DOCS_WEB, `reminders-item-${name}.png`), fullPage: name === 'desktop' });

    await page.goto(`${wb.base}/work/${test}/${await itemOf(test)}`);
    expect(await page.locator('main .ladder').count()).toBe(0);
    await ctx.close();
  });
});

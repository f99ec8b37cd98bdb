/**
 * Issue 42's page slips in a real browser (Debian's chromium, 1280 and 390 px,
 * the phone in mobile emulation) against a real `workboard serve`: the list of
 * versions keeps its distance from the start form, the full-size map opens
 * with its lane names in view, the Runs filter asks in words, and the
 * operators' queue names a run by its title. axe-core on each page.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createLoginLink } from '../../src/web/sessions.js';
import { ARTIFACTS, axeProblems, browserSuite, HAVE_BROWSER, NO_BROWSER_REASON, payoutAwaitingApproval, PEOPLE } from './web-support.js';

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 900 }, {}],
  ['phone', { width: 390, height: 844 }, { isMobile: true, hasTouch: true, deviceScaleFactor: 3 }],
] as const;

describe.skipIf(!HAVE_BROWSER)(`issue 42's page slips in a real browser${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  const suite = browserSuite();

  async function open(who: string, viewport: { width: number; height: number }, mobile: object): Promise<Page> {
    // A context with the phone's emulation where asked, signed in through a real login link.
    const c = await suite.browser.newContext({ viewport, ...mobile });
    const page = await c.newPage();
    await page.goto(await createLoginLink(suite.wb.board, who, suite.wb.base));
    await page.getByRole('button', { name: /Sign in as/ }).click();
    await page.waitForURL(`${suite.wb.base}/work`);
    return page;
  }

  for (const [label, viewport, mobile] of VIEWPORTS) {
    it(`keeps "Versions" clear of the start form at ${viewport.width} px`, async () => {
      const page = await open(PEOPLE.ana, viewport, mobile);
      await page.goto(`${suite.wb.base}/processes/payout`);
      const nav = await page.getByRole('navigation', { name: 'Versions' }).boundingBox();
      const start = await page.locator('.columns').first().boundingBox();
      console.log(`${label}: ${Math.round(start!.y - (nav!.y + nav!.height))} px between Versions and the start form`);
      expect(start!.y - (nav!.y + nav!.height)).toBeGreaterThanOrEqual(12);
      expect(await axeProblems(page)).toEqual([]);
      await page.screenshot({ path: path.join(ARTIFACTS, `slips-process-${label}.png`) });
      await page.context().close();
    });

    it(`opens the full-size map with the current step in view, and the lane names too where both fit, at ${viewport.width} px`, async () => {
      const runId = await payoutAwaitingApproval(suite.wb, `Map-${label}`);
      const page = await open(PEOPLE.ana, viewport, mobile);
      await page.goto(`${suite.wb.base}/runs/${runId}/map`);
      await page.locator('#here').waitFor({ state: 'attached' });
      const seen = await page.evaluate(() => {
        const box = document.querySelector('[data-map]')!.getBoundingClientRect();
        const ring = document.getElementById('here')!.getBoundingClientRect();
        return {
          scrollLeft: document.querySelector('[data-map]')!.scrollLeft,
          ringInside: ring.left >= box.left - 1 && ring.right <= box.right + 1,
          ringRight: ring.right - box.left + document.querySelector('[data-map]')!.scrollLeft,
          boxWidth: box.width,
        };
      });
      // The ring is in view; when it fits in the box from the map's left edge, the map is not scrolled sideways, so the lanes' names show.
      expect(seen.ringInside).toBe(true);
      if (seen.ringRight <= seen.boxWidth) expect(seen.scrollLeft).toBe(0);
      if (label === 'desktop') expect(seen.scrollLeft).toBe(0);
      expect(await axeProblems(page)).toEqual([]);
      await page.context().close();
    });
  }

  it('asks the Runs filter in words, not "Inputs (one key=value a line)"', async () => {
    const page = await open(PEOPLE.ben, { width: 1280, height: 900 }, {});
    await page.goto(`${suite.wb.base}/runs`);
    const form = await page.locator('form.runs-filter').innerText();
    expect(form).toContain('Started with');
    expect(form).not.toMatch(/key=value|Inputs/);
    expect(await page.getByLabel('Started with').getAttribute('name')).toBe('inputs');
    expect(await axeProblems(page)).toEqual([]);
    await page.context().close();
  });
});

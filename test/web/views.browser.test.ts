/**
 * Issue 40's pages in a real browser (Debian's chromium through
 * playwright-core) against a real `workboard serve --http` on a copy of the
 * example board: a supplier payment blocked by its contract approval says
 * "Blocked" on its run page and names the contract by its title, linked;
 * My work lists finance's approvals most urgent first; the Runs page opens on
 * WORK.md's first saved view, a board of columns by priority, and the picker
 * leads to the others. At 1280 and 390 px, axe-core finds nothing serious or
 * critical; screenshots in docs/web/.
 */
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { Service } from '../../src/service/service.js';
import { ensureBuilt, ROOT } from '../support/cli-run.js';
import { axeProblems, HAVE_BROWSER, launch, NO_BROWSER_REASON, release, serveBoard, signedIn, stopServer, shot, DOCS_WEB } from './web-support.js';

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

const MIRA = 'mira@example.com';
const JON = 'jon@example.com';
const VIEWPORTS = [
  ['desktop', 1280],
  ['phone', 390],
] as const;
let n = 0;
const rid = () => `views-browser-${process.pid}-${++n}`;

describe.skipIf(!HAVE_BROWSER)(`blocked runs, priority and saved views in a real browser${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  let dir: string;
  let server: ChildProcess;
  let base: string;
  let browser: Browser;
  let board: Board;
  let service: Service;
  const runs = { contract: '', blocked: '', low: '', normal: '', urgent: '' };

  const start = async (process: string, inputs: Record<string, unknown>): Promise<string> => {
    const r = await service.call('start_run', { process, inputs, requestId: rid() }, { kind: 'person', email: JON, operator: false });
    if (!r.ok) throw new Error(JSON.stringify(r));
    return r.data.run.id;
  };

  beforeAll(async () => {
    await ensureBuilt();
    dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'wb-views-web-')), 'board');
    cpSync(path.join(ROOT, 'examples/board'), dir, { recursive: true, filter: (src) => path.basename(src) !== '.work' });
    board = await Board.open(dir);
    service = await Service.open(board);
    runs.contract = await start('contract-approval', { supplier: 'Nordlicht Logistics', contractUrl: 'https://contracts.example.com/nordlicht-2027.pdf', value: 48000 });
    runs.blocked = await start('supplier-payment', { supplier: 'Nordlicht Logistics', amount: 12000, invoiceUrl: 'https://invoices.example.com/nl-0042.pdf', urgency: 'high', after: [runs.contract] });
    runs.low = await start('supplier-payment', { supplier: 'Papierwerk', amount: 310.4, invoiceUrl: 'https://invoices.example.com/pw-17.pdf', urgency: 'low' });
    runs.normal = await start('supplier-payment', { supplier: 'Kaffee & Co', amount: 86.2, invoiceUrl: 'https://invoices.example.com/kc-5.pdf' });
    runs.urgent = await start('supplier-payment', { supplier: 'Stadtwerke', amount: 2250, invoiceUrl: 'https://invoices.example.com/sw-12.pdf', urgency: 'urgent' });
    ({ server, base } = await serveBoard(dir));
    browser = await launch();
  }, 300_000);

  afterAll(async () => {
    await release(browser);
    await stopServer(server);
    if (dir) rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  const signedInAt = async (who: string, width: number): Promise<Page> => (await signedIn(browser, { board, base }, who, { width, height: 900 })).page;

  const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  for (const [label, width] of VIEWPORTS) {
    it(`${label}: a blocked payment's page says Blocked and names its contract by title, linked, with where it stands`, async () => {
      const page = await signedInAt(MIRA, width);
      await page.goto(`${base}/runs/${runs.blocked}`);
      await expect(page.locator('.blocked-tag').first().textContent()).resolves.toBe('Blocked');
      const section = page.locator('section[aria-labelledby="flow-h"]');
      await expect(section.locator('h2').textContent()).resolves.toBe('Blocked');
      const link = section.locator(`a[href="/runs/${runs.contract}"]`);
      await expect(link.textContent()).resolves.toBe('Contract approval · 48,000.00 EUR · Nordlicht Logistics');
      expect(await section.textContent()).toContain('Priority: High');
      expect(await noSideScroll(page)).toBe(true);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(DOCS_WEB, `blocked-run-${label}.png`), fullPage: true });
      await page.context().close();
    });

    it(`${label}: My work lists finance's approvals most urgent first, the blocked payment not among them`, async () => {
      const page = await signedInAt(MIRA, width);
      await page.goto(`${base}/work?view=all`);
      const names = await page.locator('li.item .run-name').allTextContents();
      expect(names).toEqual(['Supplier payment · 2,250.00 EUR · Stadtwerke · Urgent', 'Supplier payment · 86.20 EUR · Kaffee & Co', 'Supplier payment · 310.40 EUR · Papierwerk · Low']);
      await expect(page.locator('.view-picker a[aria-current="page"]').textContent()).resolves.toBe('All my work');
      expect(await noSideScroll(page)).toBe(true);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(DOCS_WEB, `work-priority-${label}.png`), fullPage: true });
      await page.context().close();
    });

    it(`${label}: Runs opens on the first saved view, a board of columns by priority; the picker leads to who each run waits for`, async () => {
      const page = await signedInAt(MIRA, width);
      await page.goto(`${base}/runs`);
      await expect(page.locator('.view-picker a[aria-current="page"]').textContent()).resolves.toBe('Open work by priority');
      const columns = page.locator('.view-column');
      const heads = (await columns.locator('h2').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
      expect(heads).toEqual(['Urgent 1', 'High 1', 'Normal 2', 'Low 1']);
      expect(await columns.nth(1).locator('.view-run a').allTextContents()).toEqual(['Supplier payment · 12,000.00 EUR · Nordlicht Logistics · High']);
      expect(await columns.nth(1).locator('.blocked-tag').textContent()).toBe('Blocked');
      expect(await noSideScroll(page)).toBe(true);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(DOCS_WEB, `runs-view-board-${label}.png`), fullPage: true });

      await page.getByRole('link', { name: 'Who each run waits for' }).click();
      await page.waitForURL(`${base}/runs?view=waiting-on`);
      const waiting = (await page.locator('.view-column h2').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
      expect(waiting).toEqual(['Waiting for the finance group 3', 'Waiting for other runs 1', 'Waiting for the legal group 1']);
      expect(await axeProblems(page)).toEqual([]);
      await page.context().close();
    });
  }

  it('once legal approves the contract, the payment wakes (under serve) and joins My work in its place by priority', async () => {
    const view = await service.call('get_run', { runId: runs.contract }, { kind: 'person', email: 'ana@example.com', operator: false });
    if (!view.ok) throw new Error(JSON.stringify(view));
    const item = view.data.workItems[0]!;
    const decided = await service.call(
      'decide',
      { runId: runs.contract, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: rid() },
      { kind: 'person', email: 'ana@example.com', operator: false },
    );
    expect(decided.ok, JSON.stringify(decided)).toBe(true);
    const page = await signedInAt(MIRA, 1280);
    await page.goto(`${base}/work?view=all`);
    expect(await page.locator('li.item .run-name').allTextContents()).toEqual([
      'Supplier payment · 2,250.00 EUR · Stadtwerke · Urgent',
      'Supplier payment · 12,000.00 EUR · Nordlicht Logistics · High',
      'Supplier payment · 86.20 EUR · Kaffee & Co',
      'Supplier payment · 310.40 EUR · Papierwerk · Low',
    ]);
    await page.goto(`${base}/work`);
    const heads = (await page.locator('.view-column > h2').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(heads).toEqual(['Urgent 1', 'High 1', 'Normal 1', 'Low 1']);
    expect(await axeProblems(page)).toEqual([]);
    await shot(page, { path: path.join(DOCS_WEB, 'work-view-board-desktop.png'), fullPage: true });
    await page.context().close();
  });
});

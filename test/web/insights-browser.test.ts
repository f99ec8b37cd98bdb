/**
 * The Insights page in a real browser (Debian's chromium through
 * playwright-core) against a real `workboard serve --http` on a board made by
 * bench/gen-insights.mjs: the figures shown are the generator's, the GET form
 * filters, a bar of a chart leads to exactly the runs behind it, the charts
 * break no CSP rule, a person outside the process's groups sees none of it,
 * axe-core finds nothing serious at 1280 and 390 px; screenshots in docs/web/.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { addPerson, addToGroup } from '../../src/board/people.js';
import { createLoginLink } from '../../src/web/sessions.js';
import { ensureBuilt } from '../support/cli-run.js';
import { axeProblems, HAVE_BROWSER, launch, NO_BROWSER_REASON, release, serveBoard, stopServer, shot, DOCS_WEB } from './web-support.js';

if (!HAVE_BROWSER) console.warn(NO_BROWSER_REASON);

const MIRA = 'mira@example.com';
const JON = 'jon@example.com';
const OUTSIDER = 'kim@example.com';

describe.skipIf(!HAVE_BROWSER)(`the Insights page in a real browser${HAVE_BROWSER ? '' : ` (skipped: ${NO_BROWSER_REASON})`}`, () => {
  let dir: string;
  let gen: any;
  let expected: (accounts: unknown[], now: number, o: { tests: boolean }) => any;
  let server: ChildProcess;
  let base: string;
  let browser: Browser;
  let board: Board;

  beforeAll(async () => {
    await ensureBuilt();
    const mod = await import('../../bench/gen-insights.mjs');
    dir = mkdtempSync(path.join(os.tmpdir(), 'wb-insights-web-'));
    gen = await mod.generateInsightsBoard(dir, { runs: 40 });
    expected = mod.expected;
    board = await Board.open(dir);
    await addPerson(board, 'test', OUTSIDER, 'Kim Outsider');
    await addToGroup(board, 'test', 'editors', [OUTSIDER]);
    ({ server, base } = await serveBoard(dir));
    browser = await launch();
  }, 300_000);

  afterAll(async () => {
    await release(browser);
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  });

  async function signedIn(who: string, width: number): Promise<{ page: Page; csp: string[] }> {
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await ctx.newPage();
    const csp: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
    });
    await page.goto(await createLoginLink(board, who, base));
    await page.getByRole('button', { name: /Sign in as/ }).click();
    await page.waitForURL(`${base}/work`);
    return { page, csp };
  }

  /** The figure shown beside a term of the "In short" list. */
  const shortFigure = (page: Page, term: string) => page.locator(`dl.pairs dt:text-is("${term}") + dd`).innerText();

  for (const [label, width] of [
    ['desktop', 1280],
    ['phone', 390],
  ] as const) {
    it(`renders the generator's figures with four charts and their tables, inside the CSP, at ${width} px`, async () => {
      const { page, csp } = await signedIn(MIRA, width);
      await page.getByRole('link', { name: 'Insights' }).click();
      await page.waitForURL(`${base}/insights`);
      const e = expected(gen.accounts, Date.now(), { tests: false });
      expect(await shortFigure(page, 'Runs started')).toBe(String(e.runs.started));
      expect(await shortFigure(page, 'Open')).toBe(String(e.runs.open));
      expect(await shortFigure(page, 'Claims that expired')).toBe(String(e.leaseExpiries));
      expect(await page.locator('figure.chart .chart-svg:visible svg').count()).toBe(4);
      expect(await page.locator('figure.chart details table').count()).toBe(4);
      // The charts are drawn: bars with links, each one described for a screen reader.
      expect(await page.locator('figure.chart .chart-svg:visible svg a path[aria-label]').count()).toBeGreaterThan(10);
      expect(await page.locator('[style]').count()).toBe(0);
      expect(await axeProblems(page)).toEqual([]);
      await shot(page, { path: path.join(DOCS_WEB, `insights-${label}.png`), fullPage: true });
      expect(csp).toEqual([]);
      await page.context().close();
    });
  }

  /** Each visible chart's axis titles, tick labels and drawn versus shown size, and its smallest text's size as shown. */
  const chartsShown = (page: Page) =>
    page.locator('figure.chart .chart-svg:visible svg').evaluateAll((svgs) =>
      svgs.map((svg) => {
        const texts = [...svg.querySelectorAll('text')];
        const shown = svg.getBoundingClientRect().width;
        const drawn = Number(svg.getAttribute('width'));
        return {
          section: svg.closest('section')!.getAttribute('aria-labelledby'),
          titles: [...svg.querySelectorAll('.role-axis-title text')].map((t) => t.textContent),
          ticks: [...svg.querySelectorAll('.role-axis-label text')].map((t) => t.textContent ?? ''),
          labels: [...svg.querySelectorAll('.role-axis-label')].map((g) =>
            [...g.querySelectorAll('text')].map((t) => [...t.querySelectorAll('tspan')].map((x) => x.textContent).join(' ') || t.textContent),
          ),
          scale: shown / drawn,
          smallestPx: Math.min(...texts.map((t) => Number.parseFloat(t.getAttribute('font-size') ?? getComputedStyle(t).fontSize))) * (shown / drawn),
          overflows: svg.getBoundingClientRect().right > document.documentElement.clientWidth,
        };
      }),
    );

  for (const width of [1280, 390]) {
    it(`draws counts on whole-number axes, times in a unit that fits, and text readable at ${width} px`, async () => {
      const { page } = await signedIn(MIRA, width);
      await page.goto(`${base}/insights`);
      const charts = await chartsShown(page);
      expect(charts.map((c) => c.section)).toEqual(['throughput', 'cycle', 'waiting', 'rework']);
      console.log(
        `Insights at ${width} px: ${charts.map((c) => `${c.section} drawn at ${(c.scale * 100).toFixed(0)}%, smallest text ${c.smallestPx.toFixed(1)} px, axis ${c.titles.join(' / ')}`).join('; ')}`,
      );
      for (const c of charts) {
        // The text of a chart is never shrunk below 12 px, and no chart reaches past the screen's edge.
        expect(c.smallestPx, c.section ?? '').toBeGreaterThanOrEqual(12);
        expect(c.overflows, c.section ?? '').toBe(false);
        // No tick reads like 0.000000: at most two decimals.
        expect(
          c.ticks.filter((t) => /\.\d{3,}/.test(t)),
          c.section ?? '',
        ).toEqual([]);
      }
      const byName = new Map(charts.map((c) => [c.section, c]));
      // Counts: whole numbers only.
      for (const name of ['throughput', 'rework']) {
        const numeric = byName.get(name)!.ticks.filter((t) => /^[\d.,]+$/.test(t));
        expect(numeric.length, name).toBeGreaterThan(1);
        expect(
          numeric.filter((t) => t.includes('.')),
          name,
        ).toEqual([]);
      }
      // The generator's steps take minutes to days: the time axes say their unit, the unit the data fits.
      expect(byName.get('cycle')!.titles).toContain('hours');
      expect(byName.get('waiting')!.titles).toContain('days waited');
      // Step names are whole (wrapped, not cut at 20 characters).
      const stepNames = byName
        .get('cycle')!
        .labels.flat()
        .filter((t) => /[A-Za-z]/.test(t ?? ''));
      expect(stepNames.some((t) => (t ?? '').startsWith('Approve the payout'))).toBe(true);
      expect(stepNames.filter((t) => (t ?? '').includes('…'))).toEqual([]);
      await page.context().close();
    });
  }

  it('shows a published process with no runs as zero figures in words, to an operator and to its own group', async () => {
    for (const who of [MIRA, JON]) {
      const { page } = await signedIn(who, 1280);
      await page.goto(`${base}/insights`);
      // The drop-down offers every published process the person may see, runs or not.
      expect(await page.locator('select[name=process] option').allInnerTexts()).toEqual(
        who === MIRA ? ['every process', 'Contract approval', 'Expense approval', 'Release notes', 'Supplier onboarding', 'Supplier payment'] : ['every process', 'Release notes'],
      );
      const res = await page.goto(`${base}/insights?process=release-notes`);
      expect(res!.status(), who).toBe(200);
      expect(await page.locator('.field-issues').count()).toBe(0);
      expect(await page.locator('.notice').first().innerText()).toContain('Release notes is published and has no runs yet');
      expect(await shortFigure(page, 'Runs started')).toBe('0');
      expect(await axeProblems(page)).toEqual([]);
      await page.context().close();
    }
  });

  it('filters with the plain GET form, and shows the process map shaded by time per step', async () => {
    const { page } = await signedIn(MIRA, 1280);
    await page.goto(`${base}/insights`);
    await page.locator('select[name=process]').selectOption('expense-approval');
    await page.getByLabel('Started from').fill('2026-09-14');
    await page.getByLabel('Started until').fill('2026-09-20');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/\/insights\?process=expense-approval&version=&since=2026-09-14&until=2026-09-20/);
    const e = expected(
      gen.accounts.filter((a: any) => a.startedAt >= Date.parse('2026-09-14T00:00:00Z') && a.startedAt < Date.parse('2026-09-21T00:00:00Z')),
      Date.now(),
      { tests: false },
    );
    expect(await shortFigure(page, 'Runs started')).toBe(String(e.runs.started));
    const img = page.locator('section[aria-labelledby="map"] img');
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 0)).toBe(true);
    const svg = await (await page.request.get(`${base}/insights/map.svg?process=expense-approval`)).text();
    expect(svg).toMatch(/g\[data-step="approve"\] rect\.card \{ fill: #[0-9a-f]{6}; \}/);
    // A bad filter is named, field by field, and nothing else is shown as if it were fine.
    await page.goto(`${base}/insights?since=yesterday&tests=maybe`);
    const issues = await page.locator('.field-issues').innerText();
    expect(issues).toContain('since: yesterday');
    expect(issues).toContain('tests: maybe');
    await page.context().close();
  });

  it('a bar leads to exactly the runs behind it, and each of those to its run page', async () => {
    const { page } = await signedIn(MIRA, 1280);
    await page.goto(`${base}/insights`);
    const e = expected(gen.accounts, Date.now(), { tests: false });
    const first = page.locator('section[aria-labelledby="throughput"] svg a').first();
    const href = await first.getAttribute('xlink:href');
    const week = /period=(\d{4}-W\d{2})/.exec(href ?? '')![1]!;
    expect(href).toContain('bar=started');
    await first.click();
    await page.waitForURL(/\/insights\/runs\?/);
    const rows = page.locator('table.runs tbody tr');
    expect(await rows.count()).toBe(e.weeks.started[week]);
    expect(await page.locator('h1').innerText()).toBe(`${e.weeks.started[week]} runs: runs started in week ${week}`);
    const ids = await rows.locator('.small-id').allInnerTexts();
    const live = new Set(gen.accounts.filter((a: any) => !a.test).map((a: any) => a.id));
    expect(ids.every((id) => live.has(id))).toBe(true);
    // Each run is named by its title (its process and key inputs in words), its id only beside it (issue 42, slip 5).
    const names = await rows.locator('th a').allInnerTexts();
    expect(names).toHaveLength(ids.length);
    for (const name of names) {
      expect(name).toMatch(/^[A-Z][a-z]+ [a-z]+ · \S/);
      expect(name).not.toMatch(/r-[0-9a-z]{26}|expense-approval|supplier-payment|contract-approval/);
    }
    await rows.first().getByRole('link').click();
    await page.waitForURL(new RegExp(`/runs/${ids[0]}$`));
    expect(await axeProblems(page)).toEqual([]);
    await page.context().close();
  });

  it('shows a person outside the process groups no figure of it, and says so for a process asked by name', async () => {
    const { page } = await signedIn(OUTSIDER, 1280);
    await page.goto(`${base}/insights`);
    expect(await shortFigure(page, 'Runs started')).toBe('0');
    // Kim is an editor: of the two processes she sees Release notes, which has no runs, and not Expense approval.
    expect(await page.locator('select[name=process] option').allInnerTexts()).toEqual(['every process', 'Release notes']);
    const res = await page.goto(`${base}/insights?process=expense-approval`);
    expect(res!.status()).toBe(422);
    expect(await page.locator('.field-issues').innerText()).toContain('you see figures of no process named expense-approval');
    const runs = await page.goto(`${base}/insights/runs?bar=rework&process=expense-approval&step=approve`);
    expect(runs!.status()).toBe(422);
    expect(await page.locator('table.runs').count()).toBe(0);
    await page.context().close();
    // Jon is neither an operator nor in finance either: he sees no figures of expense claims.
    const jon = await signedIn(JON, 1280);
    await jon.page.goto(`${base}/insights`);
    expect(await shortFigure(jon.page, 'Runs started')).toBe('0');
    await jon.page.context().close();
  });
});

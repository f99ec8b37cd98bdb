/**
 * The maps of docs/maps drawn by two renderers: Chromium (playwright-core and
 * Debian's chromium) and rsvg-convert (Debian's librsvg2-bin), which reads no
 * CSS custom properties and follows no colour scheme. At a few points of each
 * map (the page, a lane, a card, its stripe, Start, the current step) both
 * renderings show the colour the SVG gives that element, and it is not black.
 * Chromium lays every line of text out as wide as the map's own metrics say.
 * Each map is drawn fresh from its source; with WB_WRITE_MAPS=1 the SVGs and
 * both PNGs are written to docs/maps (`<name>.png` by Chromium,
 * `<name>.rsvg.png` by rsvg-convert, and a dark one by Chromium); of the
 * upstream vendor-check, only the PNGs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDraft } from '../../src/map/draft.js';
import { processMapSvg, runMapSvg, type RunMapView } from '../../src/map/index.js';
import { loadProcess } from '../../src/process/load.js';
import { textWidth } from '../../src/map/text.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';
import { CHROMIUM, HAVE_BROWSER, launch, release } from '../web/web-support.js';
import { ROOT, SHARED } from './sources.js';

const RSVG = '/usr/bin/rsvg-convert';
const HAVE_FONT = spawnSync('fc-list', [':family=Liberation Sans'], { encoding: 'utf8' }).stdout?.includes('Liberation Sans') ?? false;
const HAVE_RSVG = existsSync(RSVG);
const DOCS = path.join(ROOT, 'docs/maps');
const WRITE = process.env.WB_WRITE_MAPS === '1';
const why = [HAVE_BROWSER ? '' : `no browser at ${CHROMIUM}`, HAVE_RSVG ? '' : `no ${RSVG} (Debian's librsvg2-bin; .ci/run installs it)`].filter((x) => x !== '').join('; ');

const published = (file: string) => {
  const l = loadProcess(readFileSync(path.join(ROOT, file), 'utf8'), FULL_OFFER);
  if (!l.ok) throw new Error(JSON.stringify(l.issues));
  return l.process;
};
const EXPENSE = 'examples/board/processes/expense-approval/PROCESS.md';
const SUPPLIER = 'fixtures/valid/supplier-onboarding/PROCESS.md';
const expense = { roles: { 'finance-approver': 'finance' }, version: 1 };
const expenseLanes = { lanes: { groups: { finance: ['mira@example.com'] } } };
const supplier = { roles: { 'legal-counsel': 'legal', 'it-security': 'IT-security', 'procurement-lead': 'procurement', cfo: 'CFO' }, version: 1 };
const supplierLanes = {
  lanes: {
    groups: { legal: ['lee@example.com', 'noor@example.com'], 'IT-security': ['sam@example.com', 'kai@example.com', 'ada@example.com'], procurement: ['rui@example.com'], CFO: ['eve@example.com'] },
  },
};

/** A run's view as `get_run` gives it: each step's state, and what the completed ones decided. */
function view(steps: string[], states: Record<string, string>, data: RunMapView['data']['steps']): RunMapView {
  return { run: { state: 'waiting', outcome: null }, steps: steps.map((id) => ({ id, state: states[id] ?? null })), data: { steps: data } };
}

/** The maps in docs/maps, each drawn from its source. */
/** `upstream`: drawn from ../shared, so only its pictures go to docs/maps, never its text. */
const MAPS: { name: string; svg: () => Promise<string>; dark?: boolean; upstream?: boolean }[] = [
  { name: 'expense-approval', dark: true, svg: () => processMapSvg({ process: published(EXPENSE), ...expense }, expenseLanes) },
  {
    name: 'expense-approval-run',
    svg: () => {
      const p = published(EXPENSE);
      // Finance rejected once; the claim was reviewed again and is back with finance.
      const v = view(
        p.steps.map((s) => s.id),
        { review_claim: 'done', approve: 'waiting' },
        { review_claim: { next: 'approve', history: [{ next: 'approve' }] }, approve: { history: [{ decision: 'rejected' }] } },
      );
      return runMapSvg({ process: p, ...expense }, v, expenseLanes);
    },
  },
  {
    name: 'draft-with-problems',
    svg: () => {
      const d = loadDraft(
        '---\nname: typo\ndescription: A next that names no step.\nsteps:\n  - id: triage\n    agent: Sort the request.\n    next: aprove\n  - id: done\n    finish: done\n---\n',
        FULL_OFFER,
      );
      return processMapSvg({ process: d.process }, { problems: d.problems });
    },
  },
  { name: 'supplier-onboarding', dark: true, svg: () => processMapSvg({ process: published(SUPPLIER), ...supplier }, supplierLanes) },
  {
    name: 'supplier-onboarding-run',
    svg: () => {
      const p = published(SUPPLIER);
      // The questionnaire came back late after a chase; IT security sent gaps back once and decides again.
      const done = ['collect_documents', 'screen_sanctions', 'send_questionnaire', 'questionnaire_back', 'chase_supplier', 'last_call', 'remediation'];
      const v = view(
        p.steps.map((s) => s.id),
        { ...Object.fromEntries(done.map((s) => [s, 'done'])), security_review: 'waiting' },
        {
          screen_sanctions: { next: 'send_questionnaire' },
          security_review: { history: [{ decision: 'rejected' }] },
        },
      );
      return runMapSvg({ process: p, ...supplier }, v, supplierLanes);
    },
  },
  ...(existsSync(path.join(SHARED, 'vendor-check/PROCESS.md'))
    ? [
        {
          name: 'vendor-check',
          upstream: true,
          svg: async () => processMapSvg({ process: loadDraft(readFileSync(path.join(SHARED, 'vendor-check/PROCESS.md'), 'utf8'), FULL_OFFER).process, roles: {}, version: 1 }),
        },
      ]
    : []),
];

interface Probe {
  what: string;
  x: number;
  y: number;
  /** The colour the SVG gives the element there. */
  fill: string;
}

const num = (tag: string, name: string) => Number(new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]);
const fillOf = (tag: string) => /\sfill="(#[0-9a-f]{6})"/.exec(tag)![1]!;

/** Points inside elements no text or line covers: a lane's corner, a card's right margin, a stripe, Start above its word. */
function probes(svg: string): Probe[] {
  const first = (re: RegExp) => re.exec(svg)?.[0];
  const out: Probe[] = [{ what: 'page', x: 3, y: 3, fill: fillOf(first(/<rect class="bg"[^>]*>/)!) }];
  const lane = first(/<rect class="lane"[^>]*>/);
  if (lane) out.push({ what: 'lane', x: num(lane, 'x') + 3, y: num(lane, 'y') + num(lane, 'height') - 3, fill: fillOf(lane) });
  for (const [what, re] of [
    ['card', /<rect class="card( problem)?"[^>]*>/],
    ['current step', /<rect class="card now"[^>]*>/],
  ] as const) {
    const r = first(re);
    if (r) out.push({ what, x: num(r, 'x') + num(r, 'width') - 5, y: num(r, 'y') + num(r, 'height') / 2, fill: fillOf(r) });
  }
  const stripe = first(/<rect class="stripe-[a-z]+"[^>]*>/);
  if (stripe) out.push({ what: 'stripe', x: num(stripe, 'x') + 2, y: num(stripe, 'y') + num(stripe, 'height') / 2, fill: fillOf(stripe) });
  const start = first(/<circle class="start"[^>]*>/);
  if (start) out.push({ what: 'Start', x: num(start, 'cx'), y: num(start, 'cy') - 14, fill: fillOf(start) });
  return out;
}

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

describe.skipIf(why !== '')(`maps drawn by Chromium and by rsvg-convert${why ? ` (skipped: ${why})` : ''}`, () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await launch();
    dir = WRITE ? DOCS : mkdtempSync(path.join(tmpdir(), 'wb-maps-'));
    mkdirSync(dir, { recursive: true });
  });
  afterAll(async () => {
    await release(browser);
  });

  async function chromium(svgFile: string, pngFile: string, scheme: 'light' | 'dark', size: { width: number; height: number }, attempt = 1): Promise<void> {
    const ctx = await browser.newContext({ viewport: { width: Math.ceil(size.width), height: Math.ceil(size.height) }, colorScheme: scheme, deviceScaleFactor: 1 });
    try {
      const page = await ctx.newPage();
      await page.goto(`file://${svgFile}`);
      await page.screenshot({ path: pngFile });
    } catch (e) {
      // Chromium under load can fail to give a frame ("Unable to capture screenshot"): that says nothing of the map, so try once more in a fresh page.
      if (attempt > 1 || !String(e).includes('Unable to capture screenshot')) throw e;
      return chromium(svgFile, pngFile, scheme, size, attempt + 1);
    } finally {
      await ctx.close();
    }
  }

  /** The colour at each point of each PNG, read in the browser from a canvas. */
  async function pixels(files: string[], at: { x: number; y: number }[]): Promise<number[][][]> {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const urls = files.map((f) => `data:image/png;base64,${readFileSync(f).toString('base64')}`);
    const got = await page.evaluate(
      async ({ urls, at }) =>
        Promise.all(
          urls.map(async (u) => {
            const img = new Image();
            img.src = u;
            await img.decode();
            const c = document.createElement('canvas');
            c.width = img.width;
            c.height = img.height;
            const g = c.getContext('2d')!;
            g.drawImage(img, 0, 0);
            return at.map((p) => [...g.getImageData(Math.round(p.x), Math.round(p.y), 1, 1).data.slice(0, 3)]);
          }),
        ),
      { urls, at },
    );
    await ctx.close();
    return got;
  }

  it.each(MAPS.map((m) => [m.name, m]))(
    '%s: both renderers draw its colours',
    async (name, m) => {
      const svg = await m.svg();
      const svgFile = path.join(m.upstream ? mkdtempSync(path.join(tmpdir(), 'wb-maps-')) : dir, `${name}.svg`);
      writeFileSync(svgFile, svg);
      const size = { width: num(svg, 'width'), height: num(svg, 'height') };
      const [byChromium, byRsvg] = [path.join(dir, `${name}.png`), path.join(dir, `${name}.rsvg.png`)];
      await chromium(svgFile, byChromium, 'light', size);
      const r = spawnSync(RSVG, ['--output', byRsvg, svgFile], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      if (m.dark) await chromium(svgFile, path.join(dir, `${name}-dark.png`), 'dark', size);

      const at = probes(svg);
      expect(at.map((p) => p.what)).toEqual(expect.arrayContaining(['page', 'lane', 'card', 'stripe', 'Start']));
      if (name.endsWith('-run')) expect(at.map((p) => p.what)).toContain('current step');
      const [c, v] = await pixels([byChromium, byRsvg], at);
      at.forEach((p, i) => {
        const want = rgb(p.fill);
        for (const [who, got] of [
          ['Chromium', c![i]!],
          ['rsvg-convert', v![i]!],
        ] as const) {
          const off = Math.max(...got.map((ch, k) => Math.abs(ch - want[k]!)));
          expect(off, `${who} at the ${p.what} (${p.x}, ${p.y}): ${got.join(',')} for ${p.fill}`).toBeLessThanOrEqual(12);
          expect(
            got.reduce((a, b) => a + b, 0),
            `${who} draws the ${p.what} black`,
          ).toBeGreaterThan(90);
        }
      });
    },
    60_000,
  );

  it.skipIf(!HAVE_FONT)(
    `Chromium lays each line of text out as wide as the map measured it${HAVE_FONT ? '' : ' (skipped: Liberation Sans is not installed; .ci/run installs fonts-liberation2)'}`,
    async () => {
      const svg = await MAPS.find((m) => m.name === 'supplier-onboarding-run')!.svg();
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'wb-maps-')), 'widths.svg');
      writeFileSync(file, svg);
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(`file://${file}`);
      const drawn = await page.evaluate(() =>
        [...document.querySelectorAll('text')].map((t) => ({
          text: t.textContent ?? '',
          size: Number(t.getAttribute('font-size')),
          bold: t.getAttribute('font-weight') === '700',
          width: t.getComputedTextLength(),
        })),
      );
      await ctx.close();
      expect(drawn.length).toBeGreaterThan(100);
      // Kerning can only draw the browser's line a little narrower than the sum of advances.
      for (const d of drawn.filter((x) => !/[^\x20-\x7e]/.test(x.text))) {
        const measured = textWidth(d.text, d.size, d.bold ? 'bold' : 'regular');
        expect(d.width, d.text).toBeLessThanOrEqual(measured + 0.5);
        expect(d.width, d.text).toBeGreaterThanOrEqual(measured * 0.97 - 0.5);
      }
    },
    60_000,
  );

  it('the dark theme is the browser’s only: there the page is dark', async () => {
    const svg = await MAPS[0]!.svg();
    const svgFile = path.join(mkdtempSync(path.join(tmpdir(), 'wb-maps-')), 'dark.svg');
    writeFileSync(svgFile, svg);
    const png = svgFile.replace(/svg$/, 'png');
    await chromium(svgFile, png, 'dark', { width: num(svg, 'width'), height: num(svg, 'height') });
    const [[page]] = (await pixels([png], [{ x: 3, y: 3 }])) as [[number[]]];
    expect(Math.max(...page)).toBeLessThan(40);
  }, 60_000);
});

/**
 * The Insights charts: Vega-Lite specs drawn to SVG on the server by vega's
 * headless renderer (no canvas, no script in the page). The SVG carries
 * attributes only, never a style attribute, so it sits inside the app's CSP
 * inline in the page, where each bar is a link to the runs behind it. Every
 * chart's numbers are also in a table beside it (pages/insights.tsx).
 */
import type { TopLevelSpec } from 'vega-lite';
import { FONT_FAMILY } from '../map/font.js';
import { textWidth, wrap } from '../map/text.js';

/** One bar: its place, its value, what it says to a screen reader and where it leads. */
export interface BarDatum {
  group: string;
  series: string;
  value: number;
  href: string;
  description: string;
}

/**
 * Two drawings of each chart: one for a wide screen, one that fits a phone's 390 px at its drawn size, so its
 * text stays at 13 px there instead of being shrunk to fit (the page shows one by its width, app.css).
 */
export type Fit = 'wide' | 'narrow';

const SIZES = {
  // label: the room a step's name has beside a row, wrapped on up to four lines; plot: the bars' own width.
  wide: { font: 14, label: 230, plot: 320, columns: 560 },
  narrow: { font: 13, label: 125, plot: 190, columns: 250 },
} as const;

function config(fit: Fit) {
  const font = SIZES[fit].font;
  return {
    background: 'white',
    font: FONT_FAMILY,
    axis: { labelFontSize: font, titleFontSize: font, labelColor: '#1f2328', titleColor: '#1f2328', titleFontWeight: 600 },
    legend: {
      labelFontSize: font,
      titleFontSize: font,
      labelColor: '#1f2328',
      titleColor: '#1f2328',
      orient: 'bottom',
      direction: 'horizontal',
      labelLimit: fit === 'wide' ? 260 : 150,
      columns: fit === 'wide' ? 0 : 2,
    },
    view: { stroke: null },
  } as const;
}

/** Colours with at least 3:1 contrast on white, told apart by more than hue alone in the tables beside them. */
const PALETTE = ['#1f6feb', '#bf3989', '#1a7f37', '#9a6700', '#8250df', '#cf222e', '#57606a'];

export type Orientation = 'columns' | 'rows';

export interface ChartSpec {
  title: string;
  /** What the value axis counts, in words ("runs", "minutes"). */
  measure: string;
  /** A count: the value axis has whole numbers only. */
  whole?: boolean;
  /** Groups in the order they are drawn, and the series within a group. */
  groups: string[];
  series: string[];
  data: BarDatum[];
  /** Columns for time (weeks), rows for named things (steps, agents). */
  orient: Orientation;
  /** Series side by side within a group, or stacked. */
  layout: 'beside' | 'stacked';
}

/** A row's name wrapped on up to four lines that fit the room beside the bars; vega draws an array as lines. */
const LINES = '\n';

function vegaLite(c: ChartSpec, fit: Fit): TopLevelSpec {
  const size = SIZES[fit];
  const rows = c.orient === 'rows';
  const wrapped = new Map(c.groups.map((g) => [g, rows ? wrap(g, size.label, size.font, 4).lines.join(LINES) : g]));
  const labelAxis = rows ? { labelLimit: size.label + 20, labelAngle: 0, labelExpr: "split(datum.label, '\\n')" } : { labelLimit: 230, labelAngle: fit === 'wide' ? -40 : -90 };
  const group = { field: 'group', type: 'nominal' as const, sort: c.groups.map((g) => wrapped.get(g) ?? g), title: null, axis: labelAxis };
  const top = Math.max(0, ...c.data.map((d) => d.value));
  // Whole numbers on a count's axis; an axis of nothing but zeros still runs from 0 to 1.
  const valueAxis = c.whole ? { tickMinStep: 1, format: 'd' } : { format: '~r' };
  const value = {
    field: 'value',
    type: 'quantitative' as const,
    title: c.measure,
    axis: valueAxis,
    ...(top === 0 ? { scale: { domain: [0, 1] } } : {}),
    ...(c.layout === 'stacked' ? { stack: 'zero' as const } : { stack: null }),
  };
  const offset = c.layout === 'beside' && c.series.length > 1 ? { field: 'series', type: 'nominal' as const, sort: c.series } : undefined;
  const encoding = {
    ...(rows ? { y: group, x: value, ...(offset ? { yOffset: offset } : {}) } : { x: group, y: value, ...(offset ? { xOffset: offset } : {}) }),
    color: {
      field: 'series',
      type: 'nominal' as const,
      sort: c.series,
      scale: { domain: c.series, range: PALETTE.slice(0, c.series.length) },
      title: null,
      ...(c.series.length < 2 ? { legend: null } : {}),
    },
    href: { field: 'href', type: 'nominal' as const },
    description: { field: 'description', type: 'nominal' as const },
  };
  const lines = Math.max(1, ...[...wrapped.values()].map((w) => w.split(LINES).length));
  const rowStep = Math.max(c.layout === 'beside' ? 18 * Math.max(1, c.series.length) + 8 : 28, lines * (size.font + 3) + 6);
  // With series beside each other the step is each series' own band: a row's room shared between them.
  const band = rows
    ? { height: { step: offset ? Math.ceil(rowStep / c.series.length) : rowStep }, width: size.plot }
    : { width: Math.max(fit === 'wide' ? 280 : 200, Math.min(size.columns, 44 * c.groups.length)), height: fit === 'wide' ? 240 : 200 };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    description: c.title,
    ...band,
    data: { values: c.data.map((d) => ({ ...d, group: wrapped.get(d.group) ?? d.group })) as unknown as Record<string, unknown>[] },
    mark: { type: 'bar', cursor: 'pointer' },
    encoding,
    config: config(fit),
  };
}

/** A text item of vega's scenegraph, as its text measure is handed it. */
interface TextItem {
  text?: unknown;
  fontSize?: number | string;
  fontWeight?: number | string;
}

type Measure = (item: TextItem, text?: unknown) => number;

const hasTextMetrics = (m: object): m is { textMetrics: { width: Measure } } => 'textMetrics' in m && typeof m.textMetrics === 'object' && m.textMetrics !== null && 'width' in m.textMetrics;

/**
 * Vega without a canvas guesses every character 0.8 em wide, so it cuts labels early and draws charts wider than
 * they are: text is measured instead with the font the charts are drawn in (the map's), as the wrapping is.
 */
const measured: Measure = (item, text) => {
  const raw = text ?? item.text;
  const s = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
  const size = item.fontSize === undefined ? 11 : Number(item.fontSize) || 0;
  return textWidth(s, size, item.fontWeight === 'bold' || Number(item.fontWeight) >= 600 ? 'bold' : 'regular');
};

/** The chart as an SVG element, drawn to fit a wide or a narrow screen. */
export async function chartSvg(c: ChartSpec, fit: Fit = 'wide'): Promise<string> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
  const scenegraph: object = vega;
  if (hasTextMetrics(scenegraph)) scenegraph.textMetrics.width = measured;
  const view = new vega.View(vega.parse(vl.compile(vegaLite(c, fit)).spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    // The drawn size stays (app.css shrinks it on a narrow screen); the SVG is no tab stop of its own, its links are.
    return svg.replace(/^<svg/, '<svg focusable="false"');
  } finally {
    view.finalize();
  }
}

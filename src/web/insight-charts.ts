/**
 * The Insights charts: Vega-Lite specs drawn to SVG on the server by vega's
 * headless renderer (no canvas, no script in the page). The SVG carries
 * attributes only, never a style attribute, so it sits inside the app's CSP
 * inline in the page, where each bar is a link to the runs behind it. Every
 * chart's numbers are also in a table beside it (pages/insights.tsx).
 */
import type { TopLevelSpec } from 'vega-lite';

/** One bar: its place, its value, what it says to a screen reader and where it leads. */
export interface BarDatum {
  group: string;
  series: string;
  value: number;
  href: string;
  description: string;
}

const CONFIG = {
  background: 'white',
  font: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif',
  axis: { labelFontSize: 14, titleFontSize: 14, labelColor: '#1f2328', titleColor: '#1f2328', titleFontWeight: 600 },
  legend: { labelFontSize: 14, titleFontSize: 14, labelColor: '#1f2328', titleColor: '#1f2328', orient: 'bottom', direction: 'horizontal', labelLimit: 260 },
  view: { stroke: null },
} as const;

/** Colours with at least 3:1 contrast on white, told apart by more than hue alone in the tables beside them. */
const PALETTE = ['#1f6feb', '#bf3989', '#1a7f37', '#9a6700', '#8250df', '#cf222e', '#57606a'];

export type Orientation = 'columns' | 'rows';

export interface ChartSpec {
  title: string;
  /** What the value axis counts, in words ("runs", "hours"). */
  measure: string;
  /** Groups in the order they are drawn, and the series within a group. */
  groups: string[];
  series: string[];
  data: BarDatum[];
  /** Columns for time (weeks), rows for named things (steps, agents). */
  orient: Orientation;
  /** Series side by side within a group, or stacked. */
  layout: 'beside' | 'stacked';
}

function vegaLite(c: ChartSpec): TopLevelSpec {
  const group = { field: 'group', type: 'nominal' as const, sort: c.groups, title: null, axis: { labelLimit: 230, labelAngle: c.orient === 'columns' ? -40 : 0 } };
  const value = { field: 'value', type: 'quantitative' as const, title: c.measure, ...(c.layout === 'stacked' ? { stack: 'zero' as const } : { stack: null }) };
  const offset = c.layout === 'beside' && c.series.length > 1 ? { field: 'series', type: 'nominal' as const, sort: c.series } : undefined;
  const encoding = {
    ...(c.orient === 'columns' ? { x: group, y: value, ...(offset ? { xOffset: offset } : {}) } : { y: group, x: value, ...(offset ? { yOffset: offset } : {}) }),
    color: { field: 'series', type: 'nominal' as const, sort: c.series, scale: { domain: c.series, range: PALETTE.slice(0, c.series.length) }, title: null, ...(c.series.length < 2 ? { legend: null } : {}) },
    href: { field: 'href', type: 'nominal' as const },
    description: { field: 'description', type: 'nominal' as const },
  };
  const band = c.orient === 'rows' ? { height: { step: c.layout === 'beside' ? 18 * Math.max(1, c.series.length) + 8 : 28 }, width: 320 } : { width: Math.max(280, Math.min(560, 44 * c.groups.length)), height: 240 };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    description: c.title,
    ...band,
    data: { values: c.data as unknown as Record<string, unknown>[] },
    mark: { type: 'bar', cursor: 'pointer' },
    encoding,
    config: CONFIG,
  };
}

/** The chart as an SVG element. */
export async function chartSvg(c: ChartSpec): Promise<string> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(vl.compile(vegaLite(c)).spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    // The drawn size stays (app.css shrinks it on a narrow screen); the SVG is no tab stop of its own, its links are.
    return svg.replace(/^<svg/, '<svg focusable="false"');
  } finally {
    view.finalize();
  }
}

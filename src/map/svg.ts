/**
 * The drawing: a laid-out map as a standalone SVG. Text stays text, every
 * card carries its full text as a tooltip, `<title>` and `<desc>` say in words
 * what the map shows. Colours are plain attributes for the light theme, so
 * any SVG 1.1 renderer draws it; a style switches them for a dark theme. With
 * a run's marks, done steps, the current step (named in the heading too),
 * rework counts and the path taken are drawn on top. Pure.
 */
import type { MapLayout, PlacedEdge, PlacedNode } from './layout.js';
import type { MapGraph } from './model.js';
import { OPEN_STATES, type RunMarks } from './run.js';
import { FONT_FAMILY } from './font.js';
import { CLOCK_INDENT, FONT, LANE_LINE, laneHeadShape, LINE, PAD, TITLE_WEIGHT } from './shapes.js';
import { wrap } from './text.js';

export const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n1 = (v: number) => Math.round(v * 10) / 10;

type Colours = { fill?: readonly [light: string, dark: string]; stroke?: readonly [light: string, dark: string] };

/**
 * Every paint on a map, light and dark. The light colours are written as
 * plain attributes (fill=, stroke=), which every SVG renderer draws; the dark
 * ones only in a prefers-color-scheme style, which overrides them where the
 * renderer follows the reader's theme. Later entries win where an element has
 * several (`edge edge-rejected edge-taken`).
 */
const C = {
  bg: ['#ffffff', '#0d1117'],
  ink: ['#1f2328', '#e6edf3'],
  muted: ['#59636e', '#9198a1'],
  lane: ['#f6f8fa', '#151b23'],
  rule: ['#d0d7de', '#3d444d'],
  card: ['#ffffff', '#151b23'],
  cardLine: ['#8c959f', '#656c76'],
  agent: ['#0969da', '#4493f8'],
  person: ['#8250df', '#ab7df8'],
  approve: ['#9a6700', '#d29922'],
  wait: ['#57606a', '#9198a1'],
  end: ['#1a7f37', '#3fb950'],
  bad: ['#cf222e', '#f85149'],
  taken: ['#0969da', '#4493f8'],
  now: ['#bc4c00', '#f0883e'],
  nowBg: ['#fff1e5', '#3d2410'],
  doneBg: ['#eef6ee', '#12261a'],
  chip: ['#eaeef2', '#262c36'],
  problemBg: ['#ffebe9', '#3c1618'],
} as const;

const PAINTS: Record<string, Colours> = {
  bg: { fill: C.bg },
  ink: { fill: C.ink },
  muted: { fill: C.muted },
  'bad-text': { fill: C.bad },
  'now-text': { fill: C.now },
  lane: { fill: C.lane, stroke: C.rule },
  'lane-alt': { fill: C.bg, stroke: C.rule },
  rule: { stroke: C.rule },
  card: { fill: C.card, stroke: C.cardLine },
  wait: { fill: C.card, stroke: C.wait },
  clock: { stroke: C.wait },
  end: { fill: C.card, stroke: C.end },
  'end-bad': { fill: C.card, stroke: C.bad },
  start: { fill: C.end },
  'start-text': { fill: C.bg },
  bar: { fill: C.ink },
  diamond: { fill: C.card, stroke: C.ink },
  'stripe-agent': { fill: C.agent },
  'stripe-task': { fill: C.person },
  'stripe-approve': { fill: C.approve },
  chip: { fill: C.chip },
  missing: { fill: C.problemBg, stroke: C.bad },
  problem: { fill: C.problemBg, stroke: C.bad },
  done: { fill: C.doneBg },
  now: { fill: C.nowBg, stroke: C.now },
  edge: { stroke: C.wait },
  'edge-rejected': { stroke: C.bad },
  'edge-failed': { stroke: C.bad },
  'edge-timeout': { stroke: C.approve },
  'edge-taken': { stroke: C.taken },
  arrow: { fill: C.wait },
  'arrow-bad': { fill: C.bad },
  'arrow-timeout': { fill: C.approve },
  'arrow-taken': { fill: C.taken },
  pill: { fill: C.bg, stroke: C.rule },
  'pill-bad': { fill: C.bg, stroke: C.bad },
};

/** ` class="a b" fill=… stroke=…`: the classes, and the light colours of the last paint that sets each. */
function paint(...names: string[]): string {
  const got: { fill?: string; stroke?: string } = {};
  for (const n of names) {
    const p = PAINTS[n];
    if (p?.fill) got.fill = p.fill[0];
    if (p?.stroke) got.stroke = p.stroke[0];
  }
  return ` class="${names.join(' ')}"${got.fill ? ` fill="${got.fill}"` : ''}${got.stroke ? ` stroke="${got.stroke}"` : ''}`;
}

const DARK = `@media (prefers-color-scheme: dark) {\n${Object.entries(PAINTS)
  .map(([n, p]) => `  .${n} { ${p.fill ? `fill:${p.fill[1]};` : ''}${p.stroke ? `${p.fill ? ' ' : ''}stroke:${p.stroke[1]};` : ''} }`)
  .join('\n')}\n}`;

const STATE_WORDS: Record<string, string> = {
  done: '✓ done',
  ready: 'now: ready to claim',
  claimed: 'now: claimed, in progress',
  waiting: 'now: waiting',
  failed: '✕ failed',
  cancelled: 'cancelled',
};

function stateWords(p: PlacedNode, st: string): string {
  if (st === 'waiting' && (p.node.kind === 'task' || p.node.kind === 'approve')) return 'now: a person decides';
  if (st === 'waiting' && p.node.kind === 'agent') return 'now: escalated to a person';
  return STATE_WORDS[st] ?? st;
}

const edgeClass: Record<string, string> = { rejected: 'edge-rejected', failed: 'edge-failed', timeout: 'edge-timeout' };
const edgeLook: Record<string, string> = { rejected: ' stroke-dasharray="7 4"', failed: ' stroke-dasharray="2 3" stroke-opacity="0.75"', timeout: ' stroke-dasharray="7 4"' };
const arrowOf: Record<string, string> = { rejected: 'bad', failed: 'bad', timeout: 'timeout' };

/** A line, or (`label`) the box with its label, drawn after every line so none crosses it. */
function drawEdge(e: PlacedEdge, id: string, marks: RunMarks | undefined, part: 'line' | 'label'): string[] {
  if (e.points.length < 2) return [];
  if (part === 'label') return e.label ? drawLabel(e) : [];
  const taken = marks?.taken.has(e.edge.id) ?? false;
  const d = e.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${n1(p.x)},${n1(p.y)}`).join(' ');
  const arrow = taken ? 'taken' : (arrowOf[e.edge.kind] ?? 'plain');
  const kind = edgeClass[e.edge.kind];
  const look = taken ? ' stroke-width="3.2"' : ` stroke-width="1.4"${edgeLook[e.edge.kind] ?? ''}`;
  return [`<path${paint('edge', ...(kind ? [kind] : []), ...(taken ? ['edge-taken'] : []))} fill="none"${look} d="${d}" marker-end="url(#${id}-arrow-${arrow})" data-edge="${esc(e.edge.id)}"/>`];
}

function drawLabel(e: PlacedEdge): string[] {
  const l = e.label!;
  const bad = e.edge.kind === 'rejected' || e.edge.kind === 'failed';
  const out = [`<g class="label" data-edge="${esc(e.edge.id)}"><rect${paint(bad ? 'pill-bad' : 'pill')} x="${n1(l.x)}" y="${n1(l.y)}" width="${n1(l.width)}" height="${n1(l.height)}" rx="4"/>`];
  l.lines.forEach((t, i) =>
    out.push(`<text${paint(bad ? 'bad-text' : 'ink')} x="${n1(l.x + l.width / 2)}" y="${n1(l.y + 3 + (i + 1) * LINE.label - 3.5)}" font-size="${FONT.label}" text-anchor="middle">${esc(t)}</text>`),
  );
  out.push('</g>');
  return out;
}

const BOLD = ' font-weight="700"';

/** Lines of text top-down from `y`, returning where the next line would start. */
function lines(out: string[], texts: string[], x: number, y: number, size: number, step: number, cls: string, more = ''): number {
  for (const t of texts) {
    out.push(`<text${paint(cls)} x="${n1(x)}" y="${n1(y + step - 4)}" font-size="${size}"${more}>${esc(t)}</text>`);
    y += step;
  }
  return y;
}

function tooltip(p: PlacedNode, extra: string[]): string {
  const n = p.node;
  return esc([n.tag, n.title, n.text, ...n.badges, ...n.problems.map((x) => `Problem: ${x}`), ...extra].filter((x) => x !== '').join('\n'));
}

function drawNode(p: PlacedNode, marks: RunMarks | undefined, linkTo: ((process: string) => string) | undefined): string[] {
  const n = p.node;
  const st = marks?.state.get(n.id);
  const now = st !== undefined && OPEN_STATES.has(st);
  const done = st === 'done';
  const rework = marks?.rework.get(n.id) ?? 0;
  const overdue = marks?.overdue.has(n.id) ?? false;
  const runNotes = [st ? stateWords(p, st) : '', rework ? `reworked ${rework}×` : '', overdue ? 'overdue' : ''].filter((x) => x !== '');
  const state = now ? ['now'] : done ? ['done'] : [];
  const cls = `node node-${n.kind}${done ? ' state-done' : ''}${now ? ' state-now' : ''}`;
  // flow-1: a node that starts runs of another process links to that process (docs/profile-flow-1.md "7. Lineage and rollup").
  const href = n.link !== undefined && linkTo ? linkTo(n.link) : undefined;
  const out = [
    `${href !== undefined ? `<a href="${esc(href)}">` : ''}<g class="${cls}" data-id="${esc(n.id)}"${n.step ? ` data-step="${esc(n.step)}"` : ''}${n.link !== undefined ? ` data-link="${esc(n.link)}"` : ''}><title>${tooltip(p, runNotes)}</title>`,
  ];
  const { x, y, width: w, height: h } = p;
  const cx = x + w / 2;
  const cy = y + h / 2;
  const edgeWidth = now ? ' stroke-width="3"' : '';
  switch (n.kind) {
    case 'start':
      out.push(
        `<circle${paint('start')} cx="${n1(cx)}" cy="${n1(cy)}" r="${w / 2}"/><text${paint('start-text')} x="${n1(cx)}" y="${n1(cy + 4)}" font-size="11"${BOLD} text-anchor="middle">Start</text>`,
      );
      break;
    case 'decision':
      out.push(
        `<polygon${paint('diamond', ...(n.problems.length ? ['problem'] : []))} stroke-width="1.5" points="${n1(cx)},${n1(y)} ${n1(x + w)},${n1(cy)} ${n1(cx)},${n1(y + h)} ${n1(x)},${n1(cy)}"/>`,
      );
      break;
    case 'fork':
    case 'join':
      out.push(`<rect${paint('bar')} x="${n1(x)}" y="${n1(y)}" width="${n1(w)}" height="${n1(h)}" rx="3"/>`);
      break;
    case 'end': {
      const bad = n.id.includes('#');
      out.push(
        `<rect${paint(n.problems.length ? 'problem' : bad ? 'end-bad' : 'end', ...(done ? ['done'] : []))} stroke-width="2" x="${n1(x)}" y="${n1(y)}" width="${n1(w)}" height="${n1(h)}" rx="${Math.min(18, h / 2)}"/>`,
      );
      const ty = lines(out, p.lines.title, cx, y + 8, FONT.title, LINE.title, bad ? 'bad-text' : 'ink', `${BOLD} text-anchor="middle"`);
      lines(out, p.lines.problems, x + PAD, ty, FONT.badge, LINE.badge, 'bad-text');
      break;
    }
    default: {
      const shape = n.kind === 'wait' ? 'wait' : n.kind === 'missing' ? 'missing' : 'card';
      const look = now ? edgeWidth : shape === 'card' ? ` stroke-width="${n.problems.length ? 2 : 1.2}"` : ` stroke-width="1.2" stroke-dasharray="${shape === 'wait' ? '4 3' : '5 3'}"`;
      out.push(`<rect${paint(shape, ...(n.problems.length && shape === 'card' ? ['problem'] : []), ...state)}${look} x="${n1(x)}" y="${n1(y)}" width="${n1(w)}" height="${n1(h)}" rx="8"/>`);
      if (shape === 'card') out.push(`<rect${paint(`stripe-${n.kind}`)} x="${n1(x)}" y="${n1(y + 6)}" width="4" height="${n1(h - 12)}" rx="2"/>`);
      const indent = n.kind === 'wait' ? CLOCK_INDENT : 0;
      if (n.kind === 'wait')
        out.push(
          `<circle${paint('clock')} fill="none" stroke-width="1.4" cx="${n1(x + PAD + 7)}" cy="${n1(y + 26)}" r="7"/><path${paint('clock')} fill="none" stroke-width="1.4" d="M${n1(x + PAD + 7)},${n1(y + 21)} V${n1(y + 26)} H${n1(x + PAD + 11)}"/>`,
        );
      // On a run map the line above the title says where the run is; the kind and id stay in the tooltip.
      const tag = runNotes.length ? runNotes.join(' · ') : p.lines.tag;
      let ty = lines(out, wrap(tag, w - 2 * PAD, FONT.tag, 1).lines, x + PAD, y + 8, FONT.tag, LINE.tag, now ? 'now-text' : 'muted');
      ty = lines(out, p.lines.title, x + PAD + indent, ty, FONT.title, LINE.title, 'ink', BOLD);
      ty = lines(out, p.lines.text, x + PAD + indent, ty, FONT.text, LINE.text, 'muted');
      if (p.lines.badges.length) ty += 6;
      for (const b of p.lines.badges) {
        out.push(`<rect${paint('chip')} x="${n1(x + PAD)}" y="${n1(ty + 1)}" width="${n1(w - 2 * PAD)}" height="${LINE.badge - 2}" rx="3"/>`);
        ty = lines(out, [b], x + PAD + 4, ty, FONT.badge, LINE.badge, 'ink');
      }
      lines(out, p.lines.problems, x + PAD, ty, FONT.badge, LINE.badge, 'bad-text');
    }
  }
  out.push(href !== undefined ? '</g></a>' : '</g>');
  return out;
}

/** The map in words, for `<desc>`: lanes, then each step with where it leads. */
export function describe(g: MapGraph): string {
  const lane = new Map(g.lanes.map((l) => [l.id, `${l.label} (${l.detail})`]));
  const name = new Map(g.nodes.map((n) => [n.id, n.kind === 'end' ? `the end "${n.title}"` : n.kind === 'decision' ? 'a decision' : n.kind === 'join' ? 'the join' : n.title]));
  const parts = [`Lanes: ${g.lanes.map((l) => lane.get(l.id)).join('; ')}.`];
  for (const n of g.nodes) {
    if (n.kind === 'end' || n.kind === 'start') continue;
    const out = g.edges.filter((e) => e.from === n.id).map((e) => `${e.label ? `${e.label}: ` : ''}${name.get(e.to)}`);
    parts.push(`${n.tag || n.title}${n.kind === 'decision' || n.kind === 'join' ? '' : ` in ${g.lanes.find((l) => l.id === n.lane)?.label}`}: ${n.title}. Then ${out.join('; ') || 'nothing'}.`);
  }
  const ends = g.nodes.filter((n) => n.kind === 'end').map((n) => n.title);
  parts.push(`It can end ${[...new Set(ends)].join(', ')}.`);
  return parts.join(' ');
}

/** Where a run is now, in words: each open step by its title and lane. */
export function nowLine(m: MapLayout, marks: RunMarks): string | undefined {
  const open = m.nodes.filter((p) => OPEN_STATES.has(marks.state.get(p.node.id) ?? ''));
  if (open.length === 0) return undefined;
  return `Now: ${open.map((p) => `${p.node.title} (${m.lanes.find((l) => l.id === p.node.lane)?.label ?? p.node.lane})`).join('; ')}`;
}

export interface DrawOptions {
  marks?: RunMarks;
  /** A line under the title, e.g. "version 3" or "draft". */
  subtitle?: string;
  /** flow-1: where a node that starts runs of another process links to (the web app's page of that process); no links without it. */
  linkTo?: (process: string) => string;
}

export function drawSvg(m: MapLayout, opts: DrawOptions = {}): string {
  const g = m.graph;
  const id = `wbm-${g.name.replace(/[^a-z0-9-]/g, '') || 'map'}`;
  const marks = opts.marks;
  const heading = `${g.title}${opts.subtitle ? ` · ${opts.subtitle}` : ''}${marks ? ` · run ${marks.run.state}${marks.run.outcome ? ` (${marks.run.outcome})` : ''}` : ''}`;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${n1(m.width)}" height="${n1(m.height)}" viewBox="0 0 ${n1(m.width)} ${n1(m.height)}" role="img" aria-labelledby="${id}-title ${id}-desc" font-family="${FONT_FAMILY}">`,
    `<title id="${id}-title">Process map: ${esc(heading)}</title>`,
    `<desc id="${id}-desc">${esc(describe(g))}</desc>`,
    `<style>\n${DARK}\n</style>`,
    `<defs>${['plain', 'bad', 'timeout', 'taken'].map((k) => `<marker id="${id}-arrow-${k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="${k === 'taken' ? 5 : 7}" markerHeight="${k === 'taken' ? 5 : 7}" orient="auto-start-reverse"><path${paint(k === 'plain' ? 'arrow' : `arrow-${k}`)} d="M0,0 L10,5 L0,10 z"/></marker>`).join('')}</defs>`,
    `<rect${paint('bg')} x="0" y="0" width="${n1(m.width)}" height="${n1(m.height)}"/>`,
  ];
  let y = lines(out, [heading], 16, 8, 16, 22, 'ink', BOLD);
  const now = marks ? nowLine(m, marks) : undefined;
  if (now) y = lines(out, wrap(now, m.width - 32, 13, 1, TITLE_WEIGHT).lines, 16, y, 13, 17, 'now-text', BOLD);
  y = lines(out, wrap(g.description, m.width - 32, 12, 2).lines, 16, y, 12, 16, 'muted');
  lines(
    out,
    g.problems.map((p) => `⚠ ${p}`),
    16,
    y,
    12,
    16,
    'bad-text',
  );
  m.lanes.forEach((l, i) => {
    const head = laneHeadShape(l, l.head.width);
    out.push(`<g class="lane-band"><rect${paint(i % 2 ? 'lane-alt' : 'lane')} x="${n1(l.x)}" y="${n1(l.y)}" width="${n1(l.width)}" height="${n1(l.height)}"/>`);
    const ty = lines(out, head.name, l.head.x + PAD, l.head.y + 10, 13, LANE_LINE.name, 'ink', BOLD);
    lines(out, head.detail, l.head.x + PAD, ty, 11, LANE_LINE.detail, 'muted');
    const [x1, y1, x2, y2] =
      m.direction === 'right' ? [l.head.x + l.head.width, l.y, l.head.x + l.head.width, l.y + l.height] : [l.x, l.head.y + l.head.height, l.x + l.width, l.head.y + l.head.height];
    out.push(`<line${paint('rule')} x1="${n1(x1)}" y1="${n1(y1)}" x2="${n1(x2)}" y2="${n1(y2)}"/></g>`);
  });
  const ordered = [...m.edges].sort((a, b) => Number(marks?.taken.has(a.edge.id) ?? false) - Number(marks?.taken.has(b.edge.id) ?? false));
  for (const part of ['line', 'label'] as const) for (const e of ordered) out.push(...drawEdge(e, id, marks, part));
  for (const p of m.nodes) out.push(...drawNode(p, marks, opts.linkTo));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

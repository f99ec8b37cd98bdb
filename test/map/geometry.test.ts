/**
 * Geometry of every map we can draw, read from the laid-out result: no line
 * passes through a box other than its own ends, every route label sits on or
 * beside its own line and overlaps no box and no other label, no two boxes
 * overlap, every box lies inside its lane, every line is orthogonal and
 * starts and ends on its own boxes. And from the drawn SVG: no line of text
 * reaches past its card, label or lane name, measured with the map's font.
 * No end lies before Start, no lane has two failed ends, and a map is drawn
 * top to bottom exactly when left to right would be a strip. The geometry
 * here is the test's own.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDraft } from '../../src/map/draft.js';
import { processMapLayout, type Direction, type MapLayout } from '../../src/map/index.js';
import { layoutMap, MAX_ASPECT, SCREEN_W } from '../../src/map/layout.js';
import { mapGraph } from '../../src/map/model.js';
import { drawSvg } from '../../src/map/svg.js';
import { textWidth } from '../../src/map/text.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';
import path from 'node:path';
import { drafts, ours, rel, ROOT, SHARED, upstream } from './sources.js';

const SUPPLIER = path.join(ROOT, 'fixtures/valid/supplier-onboarding/PROCESS.md');

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface P {
  x: number;
  y: number;
}

/** Whether two rectangles share more than a hairline of area. */
const overlap = (a: Rect, b: Rect, slack = 0.5) => a.x + slack < b.x + b.width && b.x + slack < a.x + a.width && a.y + slack < b.y + b.height && b.y + slack < a.y + a.height;

/** Whether the segment p→q enters the rectangle's interior (Liang–Barsky clipping against the box shrunk by 1). */
function crosses(p: P, q: P, r: Rect): boolean {
  const x0 = r.x + 1;
  const x1 = r.x + r.width - 1;
  const y0 = r.y + 1;
  const y1 = r.y + r.height - 1;
  let t0 = 0;
  let t1 = 1;
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  for (const [pp, qq] of [
    [-dx, p.x - x0],
    [dx, x1 - p.x],
    [-dy, p.y - y0],
    [dy, y1 - p.y],
  ] as const) {
    if (pp === 0) {
      if (qq < 0) return false;
      continue;
    }
    const t = qq / pp;
    if (pp < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

/** Distance from a point to a segment. */
function toSegment(c: P, p: P, q: P): number {
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  const len = dx * dx + dy * dy;
  const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((c.x - p.x) * dx + (c.y - p.y) * dy) / len));
  return Math.hypot(c.x - (p.x + t * dx), c.y - (p.y + t * dy));
}

/** Distance from a rectangle to a polyline: 0 when the line touches it. */
function rectToLine(r: Rect, pts: P[]): number {
  let best = Infinity;
  for (let i = 1; i < pts.length; i++) {
    if (crosses(pts[i - 1]!, pts[i]!, { x: r.x - 1, y: r.y - 1, width: r.width + 2, height: r.height + 2 })) return 0;
    const corners = [
      { x: r.x, y: r.y },
      { x: r.x + r.width, y: r.y },
      { x: r.x, y: r.y + r.height },
      { x: r.x + r.width, y: r.y + r.height },
    ];
    for (const c of corners) best = Math.min(best, toSegment(c, pts[i - 1]!, pts[i]!));
  }
  return best;
}

const onBoundary = (p: P, r: Rect) => p.x >= r.x - 2 && p.x <= r.x + r.width + 2 && p.y >= r.y - 2 && p.y <= r.y + r.height + 2;

/** Every problem with the layout, in words; an empty list when it is sound. */
function problems(m: MapLayout): string[] {
  const out: string[] = [];
  const boxes = new Map(m.nodes.map((n) => [n.node.id, n as Rect]));
  for (const [i, a] of m.nodes.entries()) for (const b of m.nodes.slice(i + 1)) if (overlap(a, b)) out.push(`boxes ${a.node.id} and ${b.node.id} overlap`);
  for (const n of m.nodes) {
    const lane = m.lanes.find((l) => l.id === n.node.lane)!;
    if (n.x < lane.x || n.x + n.width > lane.x + lane.width || n.y < lane.y || n.y + n.height > lane.y + lane.height) out.push(`${n.node.id} is outside its lane ${lane.id}`);
    if (overlap(n, lane.head)) out.push(`${n.node.id} covers the name of its lane ${lane.id}`);
  }
  const labels = m.edges.filter((e) => e.label);
  for (const e of m.edges) {
    const pts = e.points;
    const name = `line ${e.edge.from} → ${e.edge.to}`;
    if (pts.length < 2) {
      out.push(`${name} has no route`);
      continue;
    }
    if (!onBoundary(pts[0]!, boxes.get(e.edge.from)!)) out.push(`${name} does not start at its source`);
    if (!onBoundary(pts[pts.length - 1]!, boxes.get(e.edge.to)!)) out.push(`${name} does not end at its target`);
    for (let i = 1; i < pts.length; i++) {
      const [p, q] = [pts[i - 1]!, pts[i]!];
      if (Math.abs(p.x - q.x) > 0.01 && Math.abs(p.y - q.y) > 0.01) out.push(`${name} has a slanted segment`);
      for (const n of m.nodes) {
        if (n.node.id === e.edge.from || n.node.id === e.edge.to) continue;
        if (crosses(p, q, n)) out.push(`${name} passes through ${n.node.id}`);
      }
      for (const o of labels) if (o !== e && crosses(p, q, o.label!)) out.push(`${name} passes through the label of ${o.edge.from} → ${o.edge.to}`);
    }
  }
  for (const [i, e] of labels.entries()) {
    const l = e.label!;
    const d = rectToLine(l, e.points);
    if (d > 12) out.push(`label "${e.edge.label}" is ${Math.round(d)} px from its line`);
    for (const n of m.nodes) if (overlap(l, n)) out.push(`label "${e.edge.label}" overlaps ${n.node.id}`);
    for (const o of labels.slice(i + 1)) if (overlap(l, o.label!)) out.push(`labels "${e.edge.label}" and "${o.edge.label}" overlap`);
  }
  return out;
}

/** A drawn line of text: where it starts, how it is anchored and in which font. */
interface Drawn {
  x: number;
  y: number;
  size: number;
  bold: boolean;
  anchor: string;
  text: string;
}
const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
function texts(svgPart: string): Drawn[] {
  return [...svgPart.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)].map((m) => ({
    x: Number(attr(m[1]!, 'x')),
    y: Number(attr(m[1]!, 'y')),
    size: Number(attr(m[1]!, 'font-size')),
    bold: attr(m[1]!, 'font-weight') === '700',
    anchor: attr(m[1]!, 'text-anchor') ?? 'start',
    text: unescape(m[2]!),
  }));
}

/** Every line of text that reaches past its box, measured with the map's own font metrics. */
function overflows(m: MapLayout, svg: string): string[] {
  const out: string[] = [];
  const inside = (what: string, t: Drawn, box: Rect) => {
    const w = textWidth(t.text, t.size, t.bold ? 'bold' : 'regular');
    const left = t.anchor === 'middle' ? t.x - w / 2 : t.x;
    const [top, bottom] = [t.y - 0.8 * t.size, t.y + 0.25 * t.size];
    if (left < box.x + 2 || left + w > box.x + box.width - 2 || top < box.y || bottom > box.y + box.height) out.push(`${what}: "${t.text}" overflows its box`);
  };
  const boxes = new Map(m.nodes.map((n) => [n.node.id, n as Rect]));
  for (const g of svg.matchAll(/<g class="node[^"]*" data-id="([^"]+)"[^>]*>([\s\S]*?)<\/g>/g)) for (const t of texts(g[2]!)) inside(unescape(g[1]!), t, boxes.get(unescape(g[1]!))!);
  for (const g of svg.matchAll(/<g class="label" data-edge="([^"]+)">([\s\S]*?)<\/g>/g)) for (const t of texts(g[2]!)) inside(`label of ${g[1]}`, t, m.edges.find((e) => e.edge.id === g[1])!.label!);
  const bands = [...svg.matchAll(/<g class="lane-band">([\s\S]*?)<\/g>/g)];
  bands.forEach((g, i) => texts(g[1]!).forEach((t) => inside(`lane ${m.lanes[i]!.label}`, t, m.lanes[i]!.head)));
  return out;
}

/** What the rules of issue 29 ask of a map beyond clean geometry: ends after Start, one failed end per lane. */
function placement(m: MapLayout): string[] {
  const out: string[] = [];
  const start = m.nodes.find((n) => n.node.kind === 'start');
  for (const n of m.nodes.filter((x) => x.node.kind === 'end')) {
    if (!start) break;
    const before = m.direction === 'right' ? n.x < start.x + start.width : n.y < start.y + start.height;
    if (before) out.push(`End ${n.node.title} (${n.node.id}) lies ${m.direction === 'right' ? 'left of' : 'above'} Start`);
  }
  const failed = new Map<string, number>();
  for (const n of m.nodes) if (n.node.kind === 'end' && n.node.title === 'failed') failed.set(n.node.lane, (failed.get(n.node.lane) ?? 0) + 1);
  for (const [lane, count] of failed) if (count > 1) out.push(`${count} failed ends in lane ${lane}`);
  return out;
}

async function layoutOf(file: string, direction?: Direction): Promise<MapLayout> {
  const d = loadDraft(readFileSync(file, 'utf8'), FULL_OFFER);
  return processMapLayout({ process: d.process }, { problems: d.problems, ...(direction ? { direction } : {}) });
}

/** Every check on one process's map, in words: geometry, text, placement, and the way it flows. */
async function allProblems(file: string): Promise<string[]> {
  const m = await layoutOf(file);
  const found = [...problems(m), ...overflows(m, drawSvg(m)), ...placement(m)];
  // The aspect rule, on ELK's real widths and the lanes' height: a map drawn left to right is no strip
  // (ELK's spacing between lines may add up to a tenth to the width the choice was made on); one drawn
  // top to bottom would be.
  const wide = m.direction === 'right' ? m : await layoutOf(file, 'right');
  const lanes = wide.height - wide.top;
  if (m.direction === 'right' && wide.width > 1.1 * MAX_ASPECT * lanes && wide.width > 1.1 * SCREEN_W) found.push(`drawn left to right as a ${Math.round(wide.width)} × ${Math.round(lanes)} strip`);
  if (m.direction === 'down' && !(wide.width > MAX_ASPECT * lanes && wide.width > SCREEN_W)) found.push(`drawn top to bottom though left to right is ${Math.round(wide.width)} × ${Math.round(lanes)}`);
  if (m.direction === 'down') found.push(...placement(await layoutOf(file, 'right')).map((p) => `left to right: ${p}`));
  return found;
}

describe('map geometry', () => {
  it('found our processes', () => {
    expect(ours.length).toBeGreaterThanOrEqual(15);
  });

  it.each(ours.map((f) => [rel(f), f]))('%s', async (_name, file) => {
    expect((await layoutOf(file)).nodes.length).toBeGreaterThan(2);
    expect(await allProblems(file)).toEqual([]);
  });

  it.each(drafts.map((f) => [rel(f), f]))('draft %s', async (_name, file) => {
    expect(await allProblems(file)).toEqual([]);
  });

  describe.skipIf(upstream.length === 0)(`upstream fixtures (${SHARED}; skipped when it is absent)`, () => {
    it.each(upstream.map((f) => [rel(f), f]))('%s', async (_name, file) => {
      expect((await layoutOf(file)).nodes.length).toBeGreaterThan(2);
      expect(await allProblems(file)).toEqual([]);
    });
  });

  it('the 20-step process is drawn top to bottom, its lanes as columns', async () => {
    const m = await layoutOf(SUPPLIER);
    expect(m.graph.nodes.filter((n) => n.step !== undefined && !n.id.includes('#')).length).toBe(20);
    expect(m.direction).toBe('down');
    // Lanes side by side, each from the name band to the bottom.
    for (const [i, l] of m.lanes.entries()) if (i > 0) expect(l.x).toBeCloseTo(m.lanes[i - 1]!.x + m.lanes[i - 1]!.width);
    expect(new Set(m.lanes.map((l) => l.y)).size).toBe(1);
  });

  it('a run map (a line more above its lanes) flows the way its process map does, so the web app can ring its current step', async () => {
    for (const file of ours) {
      const g = mapGraph(loadDraft(readFileSync(file, 'utf8'), FULL_OFFER).process);
      const [plain, run] = await Promise.all([layoutMap(g, 60), layoutMap(g, 77)]);
      expect(run.direction, rel(file)).toBe(plain.direction);
      expect(run.nodes.map((n) => n.y - 17)).toEqual(plain.nodes.map((n) => n.y));
    }
  });

  it('a small process stays left to right', async () => {
    const m = await layoutOf(path.join(ROOT, 'fixtures/service/cooling-off/PROCESS.md'));
    expect(m.direction).toBe('right');
  });

  it('a step nothing leads to (a draft) stays in its lane', async () => {
    const d = loadDraft('---\nname: typo\ndescription: Typo.\nsteps:\n  - id: a\n    agent: Do it.\n    next: aprove\n  - id: b\n    finish: done\n---\n', FULL_OFFER);
    const m = await processMapLayout({ process: d.process }, { problems: d.problems });
    expect(m.nodes.map((n) => n.node.id)).toContain('b');
    expect(problems(m)).toEqual([]);
  });

  it('the checks catch what they look for', () => {
    // A line through a box, a far label and two overlapping boxes, built by hand.
    const box = (id: string, x: number, y: number) => ({ x, y, width: 100, height: 40, node: { id, lane: 'l' } });
    const m = {
      direction: 'right',
      lanes: [{ id: 'l', x: 0, y: 0, width: 500, height: 200, head: { x: 0, y: 0, width: 0, height: 0 } }],
      nodes: [box('a', 0, 0), box('b', 300, 0), box('c', 150, 0), box('d', 160, 10)],
      edges: [
        {
          edge: { from: 'a', to: 'b', label: 'far' },
          points: [
            { x: 100, y: 20 },
            { x: 300, y: 20 },
          ],
          label: { x: 0, y: 150, width: 40, height: 14 },
        },
      ],
    } as unknown as MapLayout;
    const found = problems(m);
    expect(found).toContain('boxes c and d overlap');
    expect(found).toContain('line a → b passes through c');
    expect(found.some((f) => f.startsWith('label "far" is'))).toBe(true);
    // An end before Start, two failed ends in one lane, and a title wider than its card.
    const node = (id: string, kind: string, x: number, title = id) => ({ x, y: 0, width: 100, height: 40, node: { id, kind, title, lane: 'l' } });
    const ends = { direction: 'right', nodes: [node('#start', 'start', 200), node('e1', 'end', 0, 'failed'), node('e2', 'end', 400, 'failed')] } as unknown as MapLayout;
    expect(placement(ends)).toEqual(['End failed (e1) lies left of Start', '2 failed ends in lane l']);
    const wide = '<g class="node node-agent" data-id="a"><text x="10" y="20" font-size="13" font-weight="700">A title far too long for a card this narrow</text></g>';
    expect(overflows({ nodes: [node('a', 'agent', 0)], edges: [], lanes: [] } as unknown as MapLayout, wide)).toEqual(['a: "A title far too long for a card this narrow" overflows its box']);
  });
});

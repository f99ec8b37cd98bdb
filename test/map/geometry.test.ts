/**
 * Geometry of every map we can draw, read from the laid-out result: no line
 * passes through a box other than its own ends, every route label sits on or
 * beside its own line and overlaps no box and no other label, no two boxes
 * overlap, every box lies inside its lane, every line is orthogonal and
 * starts and ends on its own boxes. The geometry here is the test's own.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDraft } from '../../src/map/draft.js';
import { processMapLayout, type MapLayout } from '../../src/map/index.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';
import { drafts, ours, rel, SHARED, upstream } from './sources.js';

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
  for (const [i, a] of m.nodes.entries())
    for (const b of m.nodes.slice(i + 1)) if (overlap(a, b)) out.push(`boxes ${a.node.id} and ${b.node.id} overlap`);
  for (const n of m.nodes) {
    const lane = m.lanes.find((l) => l.id === n.node.lane)!;
    if (n.y < lane.y || n.y + n.height > lane.y + lane.height) out.push(`${n.node.id} is outside its lane ${lane.id}`);
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

async function layoutOf(file: string): Promise<MapLayout> {
  const d = loadDraft(readFileSync(file, 'utf8'), FULL_OFFER);
  return processMapLayout({ process: d.process }, { problems: d.problems });
}

describe('map geometry', () => {
  it('found our processes', () => {
    expect(ours.length).toBeGreaterThanOrEqual(15);
  });

  it.each(ours.map((f) => [rel(f), f]))('%s', async (_name, file) => {
    const m = await layoutOf(file);
    expect(m.nodes.length).toBeGreaterThan(2);
    expect(problems(m)).toEqual([]);
  });

  it.each(drafts.map((f) => [rel(f), f]))('draft %s', async (_name, file) => {
    expect(problems(await layoutOf(file))).toEqual([]);
  });

  describe.skipIf(upstream.length === 0)(`upstream fixtures (${SHARED}; skipped when it is absent)`, () => {
    it.each(upstream.map((f) => [rel(f), f]))('%s', async (_name, file) => {
      const m = await layoutOf(file);
      expect(m.nodes.length).toBeGreaterThan(2);
      expect(problems(m)).toEqual([]);
    });
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
      lanes: [{ id: 'l', y: 0, height: 200 }],
      nodes: [box('a', 0, 0), box('b', 300, 0), box('c', 150, 0), box('d', 160, 10)],
      edges: [{ edge: { from: 'a', to: 'b', label: 'far' }, points: [{ x: 100, y: 20 }, { x: 300, y: 20 }], label: { x: 0, y: 150, width: 40, height: 14 } }],
    } as unknown as MapLayout;
    const found = problems(m);
    expect(found).toContain('boxes c and d overlap');
    expect(found).toContain('line a → b passes through c');
    expect(found.some((f) => f.startsWith('label "far" is'))).toBe(true);
  });
});

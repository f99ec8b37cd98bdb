/**
 * Where everything on a map goes. Small processes flow left to right with
 * lanes as rows; one that would then be a strip (more than MAX_ASPECT times
 * wider than its lanes are tall, and wider than a screen) flows top to bottom
 * with lanes as columns. Ours: the columns (longest path from the start,
 * lines closing a cycle left out; an end after what leads to it), and each
 * box's place across the flow inside its lane, with every line's label and
 * every line that spans columns given a box of its own in the
 * columns between. ELK's (elkjs, layered): where each column lies along the
 * flow, the order in each column kept from ours, and the orthogonal routing
 * of every line around the boxes. Swimlanes are not an ELK feature, so ELK
 * gets our places as interactive positions.
 */
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import { entry } from '../core/entry.js';
import { START, type MapEdge, type MapGraph, type MapLane, type MapNode } from './model.js';
import { labelShape, laneHeadShape, shapeOf, type NodeLines, type Shape } from './shapes.js';

export interface Point {
  x: number;
  y: number;
}
export interface Box extends Point {
  width: number;
  height: number;
}
export interface PlacedNode extends Box {
  node: MapNode;
  lines: NodeLines;
}
export interface PlacedEdge {
  edge: MapEdge;
  /** The whole line, from its source's side to its target's side, through its label. */
  points: Point[];
  label?: Box & { lines: string[] };
}
/** A lane's band, and the box at its head where its name is written. */
export interface PlacedLane extends MapLane, Box {
  head: Box;
}
/** `right`: lanes are rows and steps flow left to right; `down`: lanes are columns, steps flow downwards. */
export type Direction = 'right' | 'down';
export interface MapLayout {
  graph: MapGraph;
  direction: Direction;
  width: number;
  height: number;
  /** The band above the lanes with the process's name and any problems. */
  top: number;
  lanes: PlacedLane[];
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

const GAP = 14;
const LANE_PAD = 16;
const MARGIN = 8;
/** Left to right, the strip left of the lanes that names them. */
const HEADER_W = 170;
/** Top to bottom, a lane column is at least this wide, so its name reads. */
const LANE_MIN_W = 180;
/** A left-to-right map wider than this many times its lanes' height, and than a screen, is drawn top to bottom. */
export const MAX_ASPECT = 2.5;
export const SCREEN_W = 1280;

/** Whether a left-to-right map would be a strip: too wide for its lanes' height and for a screen. */
const isStrip = (m: { width: number; height: number }) => m.width > MAX_ASPECT * m.height && m.width > SCREEN_W;

/** A box in the grid: a node, a line's label, or a bend point a long line passes through. */
interface Item {
  id: string;
  /** Where along the flow: twice the rank for nodes, the odd columns between for lines. */
  col: number;
  lane: string;
  width: number;
  height: number;
  /** Its extent across the flow (its height left to right, its width top to bottom). */
  size: number;
  /** Its start across the flow inside its lane, once placed. */
  pos?: number;
  want: number;
  /** Among items that want the same place, the lower goes first (a label nearer its target's side). */
  order?: number;
  fixed: boolean;
}

/**
 * Ranks by longest path from the start over the forward lines; lines closing a cycle point back.
 * No end shares the start's rank.
 */
function ranks(g: MapGraph): Map<string, number> {
  const out = new Map<string, Set<string>>();
  for (const n of g.nodes) out.set(n.id, new Set());
  // A rejection is walked after the other lines, so one back to a step on the way counts as rework,
  // while one to a step reached no other way (a remediation) ranks it after its approval.
  const forward = [...g.edges.filter((e) => e.kind !== 'rejected'), ...g.edges.filter((e) => e.kind === 'rejected')];
  for (const e of forward) out.get(e.from)?.add(e.to);
  // Depth-first from the start (then from any node not reached, as drafts may have): an edge to a node
  // on the stack closes a cycle.
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const visit = (id: string) => {
    state.set(id, 'open');
    for (const to of out.get(id) ?? []) {
      if (state.get(to) === 'open') back.add(`${id}>${to}`);
      else if (!state.has(to)) visit(to);
    }
    state.set(id, 'done');
  };
  for (const n of [START, ...g.nodes.map((x) => x.id)]) if (!state.has(n) && out.has(n)) visit(n);
  const rank = new Map<string, number>(g.nodes.map((n) => [n.id, n.kind === 'end' && g.nodes.length > 1 ? 1 : 0]));
  const dag = forward.filter((e) => !back.has(`${e.from}>${e.to}`) && e.from !== e.to);
  for (let changed = true, guard = 0; changed && guard <= g.nodes.length; guard++) {
    changed = false;
    for (const e of dag) {
      const r = entry(rank, e.from) + 1;
      if (r > entry(rank, e.to)) {
        rank.set(e.to, r);
        changed = true;
      }
    }
  }
  return rank;
}

/** Place items of one column and lane: fixed ones first, then each other (by where it wants its centre) at the first free place at or past what it wants. */
/** Where a placed item starts across the flow; asking before `settle` placed it is a bug. */
function posOf(it: Item): number {
  if (it.pos === undefined) throw new Error(`internal: ${it.id} is not placed yet`);
  return it.pos;
}

function settle(items: Item[]): void {
  const placed: Item[] = [];
  let bottom = LANE_PAD - GAP;
  for (const it of items.filter((i) => i.fixed)) {
    it.pos = Math.max(it.want, bottom + GAP);
    bottom = it.pos + it.size;
    placed.push(it);
  }
  const wantedCenter = (i: Item) => i.want + i.size / 2;
  for (const it of items.filter((i) => !i.fixed).sort((a, b) => wantedCenter(a) - wantedCenter(b) || (a.order ?? 0) - (b.order ?? 0))) {
    let at = Math.max(LANE_PAD, it.want);
    for (let moved = true; moved;) {
      moved = false;
      for (const p of placed) {
        if (at < posOf(p) + p.size + GAP && posOf(p) < at + it.size + GAP) {
          at = posOf(p) + p.size + GAP;
          moved = true;
        }
      }
    }
    it.pos = at;
    placed.push(it);
  }
}

/**
 * The map laid out: left to right, or top to bottom when left to right would be a strip (or when
 * asked). The choice is made on our grid, before ELK runs once: ELK's layers are as wide as their
 * widest box plus the spacing between, which is what `extent` adds up.
 */
export async function layoutMap(g: MapGraph, top: number, direction?: Direction): Promise<MapLayout> {
  if (g.nodes.length === 0) return { graph: g, direction: direction ?? 'right', width: HEADER_W + 400, height: top + 10, top, lanes: [], nodes: [], edges: [] };
  if (direction) return route(grid(g, top, direction));
  const wide = grid(g, top, 'right');
  return route(isStrip(extent(wide)) ? grid(g, top, 'down') : wide);
}

/** Our part of a layout: every box's column, lane and place across the flow, and the lanes' places. */
interface Grid {
  g: MapGraph;
  top: number;
  dir: Direction;
  items: Map<string, Item>;
  shapes: Map<string, Shape>;
  chains: Map<string, string[]>;
  labels: Map<string, ReturnType<typeof labelShape>>;
  laneStart: Map<string, number>;
  laneSize: Map<string, number>;
  /** Where the lanes end across the flow. */
  across: number;
  /** Top to bottom, the height of the band with the lanes' names. */
  headH: number;
}

const LAYER_GAP = 26;

/**
 * How big a left-to-right grid's lanes will be drawn: their height, and the columns' widths with ELK's
 * gaps between. The band above the lanes is left out, so a run map (a line more above) flows the same
 * way as its process map.
 */
function extent(grid: Grid): { width: number; height: number } {
  const widest = new Map<number, number>();
  for (const it of grid.items.values()) widest.set(it.col, Math.max(widest.get(it.col) ?? 0, it.width));
  const cols = [...widest.values()];
  return { width: MARGIN + HEADER_W + 12 + cols.reduce((a, b) => a + b, 0) + LAYER_GAP * (cols.length - 1) + 24, height: grid.across - grid.top };
}

/** One ELK for every map a process draws, loaded on first use: elkjs is large, and most commands that load this module never draw. */
let elk: Promise<{ layout(g: ElkNode): Promise<ElkNode> }> | undefined;
const elkOnce = () => (elk ??= import('elkjs/lib/elk.bundled.js').then((m) => new m.default.default()));

function grid(g: MapGraph, top: number, dir: Direction): Grid {
  const across = (w: number, h: number) => (dir === 'right' ? h : w);
  const rank = ranks(g);
  const col = (id: string) => 2 * entry(rank, id);
  const shapes = new Map(g.nodes.map((n) => [n.id, shapeOf(n, dir === 'down')]));
  const items = new Map<string, Item>();
  for (const n of g.nodes) {
    const s = entry(shapes, n.id);
    items.set(n.id, { id: n.id, col: col(n.id), lane: n.lane, width: s.width, height: s.height, size: across(s.width, s.height), want: 0, fixed: true });
  }
  // Nodes, column by column: each lines up with a placed node that leads to it in its lane, if any.
  const into = new Map<string, string[]>();
  for (const e of g.edges) if (e.kind !== 'rejected') into.set(e.to, [...(into.get(e.to) ?? []), e.from]);
  const center = (it: Item) => posOf(it) + it.size / 2;
  const byCell = (list: Item[]) => {
    const cells = new Map<string, Item[]>();
    for (const it of list) cells.set(`${it.col}|${it.lane}`, [...(cells.get(`${it.col}|${it.lane}`) ?? []), it]);
    return cells;
  };
  const maxCol = Math.max(0, ...[...items.values()].map((i) => i.col));
  const nodeCells = byCell([...items.values()]);
  for (let c = 0; c <= maxCol; c += 2) {
    for (const [key, cell] of nodeCells) {
      if (!key.startsWith(`${c}|`)) continue;
      for (const it of cell) {
        const lead = (into.get(it.id) ?? []).map((f) => entry(items, f)).find((f) => f.lane === it.lane && f.pos !== undefined && f.col < it.col);
        it.want = lead ? Math.max(LANE_PAD, center(lead) - it.size / 2) : 0;
      }
      cell.sort((a, b) => a.want - b.want);
      settle(cell);
    }
  }
  const nodes0 = [...items.values()];
  const laneIndex = new Map(g.lanes.map((l, i) => [l.id, i]));

  // Lines: a chain of boxes through the columns between their ends; the first box holds the label.
  // A line going back runs just past the nodes of the columns it crosses, in its target's lane.
  const chains = new Map<string, string[]>();
  const labels = new Map<string, ReturnType<typeof labelShape>>();
  const extra: Item[] = [];
  for (const e of g.edges) {
    const a = entry(items, e.from);
    const b = entry(items, e.to);
    const cols: number[] = [];
    if (b.col > a.col) for (let c = a.col + 1; c < b.col; c++) cols.push(c);
    else if (b.col < a.col) for (let c = a.col - 1; c > b.col; c--) cols.push(c);
    else cols.push(a.col + 1);
    const backward = b.col <= a.col;
    const lane = b.lane;
    const [lo, hi] = [Math.min(a.col, b.col), Math.max(a.col, b.col) + (backward && a.col === b.col ? 1 : 0)];
    const past = Math.max(LANE_PAD, ...nodes0.filter((n) => n.lane === lane && n.col >= lo && n.col <= hi).map((n) => posOf(n) + n.size)) + GAP;
    const chain = cols.map((c, k) => {
      const label = k === 0 && e.label !== undefined ? labelShape(e.label, dir === 'down') : undefined;
      if (label) labels.set(e.id, label);
      const size = label ?? { width: 2, height: 2 };
      const cross = across(size.width, size.height);
      // A forward line's label stays beside the box it leaves; the rest of the line runs in its target's lane.
      const own = !backward && k === 0 && label !== undefined;
      const want = backward ? past : (own ? center(a) : center(b)) - cross / 2;
      // Labels leaving one box side by side go in the order of where their lines lead, so they do not cross.
      const order = own ? entry(laneIndex, b.lane) * 1e6 + center(b) : 0;
      const it: Item = { id: `${e.id}@${k}`, col: c, lane: own ? a.lane : lane, width: size.width, height: size.height, size: cross, want, order, fixed: false };
      extra.push(it);
      return it.id;
    });
    chains.set(e.id, chain);
  }
  for (const [key, cell] of byCell(extra)) settle([...(nodeCells.get(key) ?? []), ...cell]);
  for (const it of extra) items.set(it.id, it);

  // Lanes side by side across the flow, each as deep as its deepest column; top to bottom, their names
  // sit in a band above them, as tall as the tallest name.
  const laneStart = new Map<string, number>();
  const laneSize = new Map<string, number>();
  let at = dir === 'right' ? top : MARGIN;
  for (const l of g.lanes) {
    const s = Math.max(dir === 'right' ? 90 : LANE_MIN_W, ...[...items.values()].filter((i) => i.lane === l.id).map((i) => posOf(i) + i.size + LANE_PAD));
    laneStart.set(l.id, at);
    laneSize.set(l.id, s);
    at += s;
  }
  const headH = dir === 'down' ? Math.max(0, ...g.lanes.map((l) => laneHeadShape(l, entry(laneSize, l.id)).height)) : 0;
  return { g, top, dir, items, shapes, chains, labels, laneStart, laneSize, across: at, headH };
}

/** ELK's part: where each column lies along the flow, and every line's route. */
async function route(grid: Grid): Promise<MapLayout> {
  const { g, top, dir, items, shapes, chains, labels, laneStart, laneSize, headH } = grid;

  const elkGraph: ElkNode = {
    id: 'map',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': dir === 'right' ? 'RIGHT' : 'DOWN',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.layered.cycleBreaking.strategy': 'INTERACTIVE',
      'elk.layered.layering.strategy': 'INTERACTIVE',
      'elk.layered.crossingMinimization.strategy': 'INTERACTIVE',
      'elk.layered.nodePlacement.strategy': 'INTERACTIVE',
      'elk.spacing.nodeNode': String(GAP - 4),
      'elk.layered.spacing.nodeNodeBetweenLayers': String(LAYER_GAP),
      'elk.layered.spacing.edgeNodeBetweenLayers': '14',
      'elk.layered.spacing.edgeEdgeBetweenLayers': '8',
      'elk.spacing.edgeEdge': '8',
      'elk.layered.mergeEdges': 'false',
      'elk.separateConnectedComponents': 'false',
      'elk.layered.unnecessaryBendpoints': 'false',
      'elk.padding': dir === 'right' ? `[top=0,left=${MARGIN + HEADER_W + 12},bottom=0,right=24]` : `[top=${top + headH + 12},left=0,bottom=16,right=0]`,
    },
    children: [...items.values()].map((it) => {
      const cross = entry(laneStart, it.lane) + posOf(it);
      return { id: it.id, width: it.width, height: it.height, ...(dir === 'right' ? { x: it.col * 1000, y: cross } : { x: cross, y: it.col * 1000 }) };
    }),
    edges: g.edges.flatMap((e) => {
      const path = [e.from, ...entry(chains, e.id), e.to];
      return path.slice(1).map((to, k): ElkExtendedEdge => ({ id: `${e.id}:${k}`, sources: [path[k]!], targets: [to] }));
    }),
  };
  const laid = await (await elkOnce()).layout(elkGraph);
  // ELK sets every child's place; our sizes come back as given.
  const placed = new Map((laid.children ?? []).map((c) => [c.id, { x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? 0, height: c.height ?? 0 }]));
  const sections = new Map((laid.edges ?? []).map((e) => [e.id, e.sections?.[0]]));

  // ELK keeps our places across the flow but moves the drawing as a whole; move it back into our lanes.
  const first = items.get(START) ?? items.values().next().value!;
  const got = entry(placed, first.id);
  const shift = entry(laneStart, first.lane) + posOf(first) - (dir === 'right' ? got.y : got.x);
  const put = (p: Point): Point => (dir === 'right' ? { x: p.x, y: p.y + shift } : { x: p.x + shift, y: p.y });
  const nodes: PlacedNode[] = g.nodes.map((n) => ({ ...entry(placed, n.id), ...put(entry(placed, n.id)), node: n, lines: entry(shapes, n.id).lines }));
  const edges: PlacedEdge[] = g.edges.map((e) => {
    const hops = entry(chains, e.id).length + 1;
    const points: Point[] = [];
    for (let k = 0; k < hops; k++) {
      const s = sections.get(`${e.id}:${k}`);
      if (!s) continue;
      for (const p of [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map(put)) {
        const last = points[points.length - 1];
        if (!last || last.x !== p.x || last.y !== p.y) points.push(p);
      }
    }
    const label = labels.get(e.id);
    const box = label ? placed.get(`${e.id}@0`) : undefined;
    return { edge: e, points, ...(label && box ? { label: { ...box, ...put(box), lines: label.lines } } : {}) };
  });
  if (dir === 'right') {
    const width = Math.max(laid.width ?? 0, MARGIN + HEADER_W + 200);
    const lanes = g.lanes.map((l) => {
      const band = { x: MARGIN, y: entry(laneStart, l.id), width: width - 2 * MARGIN, height: entry(laneSize, l.id) };
      return { ...l, ...band, head: { ...band, width: HEADER_W } };
    });
    return { graph: g, direction: dir, width, height: grid.across + 10, top, lanes, nodes, edges };
  }
  const height = Math.max(laid.height ?? 0, top + headH + 100);
  const lanes = g.lanes.map((l) => {
    const band = { x: entry(laneStart, l.id), y: top, width: entry(laneSize, l.id), height: height - top - MARGIN };
    return { ...l, ...band, head: { ...band, height: headH } };
  });
  return { graph: g, direction: dir, width: Math.max(grid.across + MARGIN, 420), height, top, lanes, nodes, edges };
}

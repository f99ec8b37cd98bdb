/**
 * Where everything on a map goes. Lanes are rows, steps flow left to right.
 * Ours: the columns (longest path from the start, rework lines left out), and
 * each box's row inside its lane, with every line's label and every line that
 * spans columns given a box of its own in the columns between. ELK's (elkjs,
 * layered): the layers' x, the order in each column kept from ours, and the
 * orthogonal routing of every line around the boxes. Swimlanes are not an ELK
 * feature, so ELK gets our rows as interactive positions.
 */
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import { START, type MapEdge, type MapGraph, type MapLane, type MapNode } from './model.js';
import { labelShape, shapeOf, type NodeLines } from './shapes.js';

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
export interface PlacedLane extends MapLane {
  y: number;
  height: number;
}
export interface MapLayout {
  graph: MapGraph;
  width: number;
  height: number;
  /** The strip left of the lanes that names them. */
  headerWidth: number;
  /** The band above the lanes with the process's name and any problems. */
  top: number;
  lanes: PlacedLane[];
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

const GAP = 14;
const LANE_PAD = 16;
export const HEADER_W = 170;

/** A box in the grid: a node, a line's label, or a bend point a long line passes through. */
interface Item {
  id: string;
  col: number;
  lane: string;
  width: number;
  height: number;
  /** Top inside its lane, once placed. */
  y?: number;
  want: number;
  fixed: boolean;
}

/** Ranks by longest path from the start over the forward lines; lines closing a cycle and rejections point back. */
function ranks(g: MapGraph): Map<string, number> {
  const out = new Map<string, Set<string>>();
  for (const n of g.nodes) out.set(n.id, new Set());
  const forward = g.edges.filter((e) => e.kind !== 'rejected');
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
  const rank = new Map<string, number>(g.nodes.map((n) => [n.id, 0]));
  const dag = forward.filter((e) => !back.has(`${e.from}>${e.to}`) && e.from !== e.to);
  for (let changed = true, guard = 0; changed && guard <= g.nodes.length; guard++) {
    changed = false;
    for (const e of dag) {
      const r = rank.get(e.from)! + 1;
      if (r > rank.get(e.to)!) {
        rank.set(e.to, r);
        changed = true;
      }
    }
  }
  return rank;
}

/** Place items of one column and lane: fixed ones first, then each other at the first free top at or below what it wants. */
function settle(items: Item[]): void {
  const placed: Item[] = [];
  let bottom = LANE_PAD - GAP;
  for (const it of items.filter((i) => i.fixed)) {
    it.y = Math.max(it.want, bottom + GAP);
    bottom = it.y + it.height;
    placed.push(it);
  }
  for (const it of items.filter((i) => !i.fixed).sort((a, b) => a.want - b.want)) {
    let y = Math.max(LANE_PAD, it.want);
    for (let moved = true; moved; ) {
      moved = false;
      for (const p of placed) {
        if (y < p.y! + p.height + GAP && p.y! < y + it.height + GAP) {
          y = p.y! + p.height + GAP;
          moved = true;
        }
      }
    }
    it.y = y;
    placed.push(it);
  }
}

export async function layoutMap(g: MapGraph, top: number): Promise<MapLayout> {
  if (g.nodes.length === 0) return { graph: g, width: HEADER_W + 400, height: top + 10, headerWidth: HEADER_W, top, lanes: [], nodes: [], edges: [] };
  const rank = ranks(g);
  const col = (id: string) => 2 * rank.get(id)!;
  const shapes = new Map(g.nodes.map((n) => [n.id, shapeOf(n)]));
  const items = new Map<string, Item>();
  for (const n of g.nodes) {
    const s = shapes.get(n.id)!;
    items.set(n.id, { id: n.id, col: col(n.id), lane: n.lane, width: s.width, height: s.height, want: 0, fixed: true });
  }
  // Nodes, column by column: each lines up with a placed node that leads to it in its lane, if any.
  const into = new Map<string, string[]>();
  for (const e of g.edges) if (e.kind !== 'rejected') into.set(e.to, [...(into.get(e.to) ?? []), e.from]);
  const center = (it: Item) => it.y! + it.height / 2;
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
        const lead = (into.get(it.id) ?? []).map((f) => items.get(f)!).find((f) => f.lane === it.lane && f.y !== undefined && f.col < it.col);
        it.want = lead ? Math.max(LANE_PAD, center(lead) - it.height / 2) : 0;
      }
      cell.sort((a, b) => a.want - b.want);
      settle(cell);
    }
  }
  const nodeBottom = new Map<string, number>();
  for (const it of items.values()) nodeBottom.set(it.lane, Math.max(nodeBottom.get(it.lane) ?? 0, it.y! + it.height));

  // Lines: a chain of boxes through the columns between their ends; the first box holds the label.
  const chains = new Map<string, string[]>();
  const labels = new Map<string, ReturnType<typeof labelShape>>();
  const extra: Item[] = [];
  for (const e of g.edges) {
    const a = items.get(e.from)!;
    const b = items.get(e.to)!;
    const cols: number[] = [];
    if (b.col > a.col) for (let c = a.col + 1; c < b.col; c++) cols.push(c);
    else if (b.col < a.col) for (let c = a.col - 1; c > b.col; c--) cols.push(c);
    else cols.push(a.col + 1);
    const backward = b.col <= a.col;
    const chain = cols.map((c, k) => {
      const label = k === 0 && e.label !== undefined ? labelShape(e.label) : undefined;
      if (label) labels.set(e.id, label);
      const size = label ?? { width: 2, height: 2 };
      const lane = b.lane;
      const want = backward ? (nodeBottom.get(lane) ?? LANE_PAD) + GAP : center(b) - size.height / 2;
      const it: Item = { id: `${e.id}@${k}`, col: c, lane, width: size.width, height: size.height, want, fixed: false };
      extra.push(it);
      return it.id;
    });
    chains.set(e.id, chain);
  }
  for (const [key, cell] of byCell(extra)) settle([...(nodeCells.get(key) ?? []), ...cell]);
  for (const it of extra) items.set(it.id, it);

  // Lanes stacked in order, each as tall as its tallest column.
  const laneTop = new Map<string, number>();
  const laneHeight = new Map<string, number>();
  let y = top;
  for (const l of g.lanes) {
    const h = Math.max(90, ...[...items.values()].filter((i) => i.lane === l.id).map((i) => i.y! + i.height + LANE_PAD));
    laneTop.set(l.id, y);
    laneHeight.set(l.id, h);
    y += h;
  }

  const elkGraph: ElkNode = {
    id: 'map',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.layered.cycleBreaking.strategy': 'INTERACTIVE',
      'elk.layered.layering.strategy': 'INTERACTIVE',
      'elk.layered.crossingMinimization.strategy': 'INTERACTIVE',
      'elk.layered.nodePlacement.strategy': 'INTERACTIVE',
      'elk.spacing.nodeNode': String(GAP - 4),
      'elk.layered.spacing.nodeNodeBetweenLayers': '26',
      'elk.layered.spacing.edgeNodeBetweenLayers': '14',
      'elk.layered.spacing.edgeEdgeBetweenLayers': '8',
      'elk.spacing.edgeEdge': '8',
      'elk.layered.mergeEdges': 'false',
      'elk.separateConnectedComponents': 'false',
      'elk.layered.unnecessaryBendpoints': 'false',
      'elk.padding': `[top=0,left=${HEADER_W + 20},bottom=0,right=24]`,
    },
    children: [...items.values()].map((it) => ({ id: it.id, width: it.width, height: it.height, x: it.col * 1000, y: laneTop.get(it.lane)! + it.y! })),
    edges: g.edges.flatMap((e) => {
      const path = [e.from, ...chains.get(e.id)!, e.to];
      return path.slice(1).map((to, k): ElkExtendedEdge => ({ id: `${e.id}:${k}`, sources: [path[k]!], targets: [to] }));
    }),
  };
  // Loaded on first use: elkjs is large, and most commands that load this module never draw.
  const elk = (await import('elkjs/lib/elk.bundled.js')).default;
  const laid = await new elk.default().layout(elkGraph);
  const at = new Map((laid.children ?? []).map((c) => [c.id, { x: c.x!, y: c.y!, width: c.width!, height: c.height! }]));
  const sections = new Map((laid.edges ?? []).map((e) => [e.id, e.sections?.[0]]));

  // ELK keeps our rows but moves the drawing as a whole; move it back under our lane bands.
  const first = items.get(START) ?? items.values().next().value!;
  const dy = laneTop.get(first.lane)! + first.y! - at.get(first.id)!.y;
  const put = (p: Point): Point => ({ x: p.x, y: p.y + dy });
  const lanes: PlacedLane[] = g.lanes.map((l) => ({ ...l, y: laneTop.get(l.id)!, height: laneHeight.get(l.id)! }));
  const nodes: PlacedNode[] = g.nodes.map((n) => ({ ...at.get(n.id)!, ...put(at.get(n.id)!), node: n, lines: shapes.get(n.id)!.lines }));
  const edges: PlacedEdge[] = g.edges.map((e) => {
    const hops = chains.get(e.id)!.length + 1;
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
    const box = label ? at.get(`${e.id}@0`) : undefined;
    return { edge: e, points, ...(label && box ? { label: { ...box, ...put(box), lines: label.lines } } : {}) };
  });
  const width = Math.max(laid.width ?? 0, HEADER_W + 200);
  return { graph: g, width, height: y + 10, headerWidth: HEADER_W, top, lanes, nodes, edges };
}

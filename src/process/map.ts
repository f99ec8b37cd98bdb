/**
 * A process map, drawn from the file alone (upstream "Process maps"): a lane
 * per performer, a start marker, a card per step, decision points with their
 * `when` labels, dashed rejection lines, join bars for parallel branches, and
 * end markers with outcomes. Pure: a model, then Mermaid or SVG text.
 */
import { StepGraph } from './graph.js';
import { JOIN, type Process, type Step } from './model.js';

export interface MapEdge {
  from: string;
  to: string;
  label?: string;
  kind: 'next' | 'route' | 'approved' | 'rejected' | 'timeout' | 'branch' | 'join';
}

export interface MapModel {
  name: string;
  lanes: string[];
  nodes: { id: string; kind: Step['kind'] | 'start' | 'join'; lane: string; title: string; text: string; column: number }[];
  edges: MapEdge[];
}

const AGENT_LANE = 'Agent';

function title(id: string): string {
  const t = id.replace(/[_-]+/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

function laneOf(step: Step, previous: string): string {
  if (step.kind === 'agent') return AGENT_LANE;
  if (step.kind === 'task' || step.kind === 'approve') return step.person ?? 'person';
  return previous;
}

export function mapModel(p: Process): MapModel {
  const branchOf = new StepGraph(p.steps).branches().place;
  const edges: MapEdge[] = [{ from: 'start', to: p.steps[0]!.id, kind: 'next' }];
  for (const s of p.steps) {
    if (s.kind === 'parallel') {
      for (const b of s.branches ?? []) edges.push({ from: s.id, to: b, kind: 'branch' });
      if (typeof s.next === 'string') edges.push({ from: `${s.id}__join`, to: s.next, kind: 'next' });
      continue;
    }
    // `join` leads to the join bar of the step's own parallel step.
    const fork = branchOf.get(s.id)?.parallel;
    const targetOf = (t: string) => (t !== JOIN ? t : fork !== undefined ? `${fork}__join` : JOIN);
    if (Array.isArray(s.next)) for (const r of s.next) edges.push({ from: s.id, to: targetOf(r.to), kind: 'route', ...(r.when ? { label: r.when } : { label: r.to }) });
    else if (typeof s.next === 'string') edges.push({ from: s.id, to: targetOf(s.next), kind: s.kind === 'approve' ? 'approved' : s.next === JOIN ? 'join' : 'next', ...(s.kind === 'approve' ? { label: 'Approved' } : {}) });
    if (s.onReject) edges.push({ from: s.id, to: s.onReject, kind: 'rejected', label: 'Rejected' });
    if (s.onTimeout) edges.push({ from: s.id, to: targetOf(s.onTimeout), kind: 'timeout', label: `after ${s.timeout}` });
  }
  // Columns: longest forward path from the start, so every line but rejections points right.
  const column = new Map<string, number>([['start', 0]]);
  const forward = edges.filter((e) => e.kind !== 'rejected');
  for (let changed = true, guard = 0; changed && guard < p.steps.length * 4 + 8; guard++) {
    changed = false;
    for (const e of forward) {
      const c = column.get(e.from);
      if (c === undefined) continue;
      if ((column.get(e.to) ?? -1) < c + 1) {
        column.set(e.to, c + 1);
        changed = true;
      }
    }
    // A join bar sits one column after its last branch step.
    for (const s of p.steps.filter((x) => x.kind === 'parallel')) {
      const ends = edges.filter((e) => e.to === `${s.id}__join`).map((e) => column.get(e.from) ?? 0);
      const at = Math.max(column.get(s.id) ?? 0, ...ends) + 1;
      if ((column.get(`${s.id}__join`) ?? -1) < at) {
        column.set(`${s.id}__join`, at);
        changed = true;
      }
    }
  }
  const lanes: string[] = [];
  const nodes: MapModel['nodes'] = [];
  let previous = AGENT_LANE;
  for (const s of p.steps) {
    const lane = laneOf(s, previous);
    previous = lane;
    if (!lanes.includes(lane)) lanes.push(lane);
    nodes.push({ id: s.id, kind: s.kind, lane, title: title(s.id), text: s.kind === 'finish' ? s.value : s.kind === 'parallel' ? 'Branches start together' : s.value.split('\n')[0] ?? '', column: column.get(s.id) ?? 1 });
    if (s.kind === 'parallel') nodes.push({ id: `${s.id}__join`, kind: 'join', lane, title: 'Join', text: 'All branches done', column: column.get(`${s.id}__join`) ?? 2 });
  }
  const first = nodes[0]!;
  nodes.unshift({ id: 'start', kind: 'start', lane: first.lane, title: 'Start', text: '', column: 0 });
  return { name: p.name, lanes, nodes, edges };
}

const mermaidText = (s: string) => s.replace(/"/g, '#quot;').replace(/[<>]/g, (c) => (c === '<' ? '#lt;' : '#gt;'));
const nodeRef = (id: string) => id.replace(/[^A-Za-z0-9_]/g, '_');

/** Mermaid `flowchart LR` for GitHub markdown. `states` marks where a run is. */
export function toMermaid(m: MapModel, states: Record<string, string | null> = {}): string {
  const out = ['flowchart LR'];
  for (const lane of m.lanes) {
    out.push(`  subgraph ${nodeRef(`lane_${lane}`)}["${mermaidText(lane)}"]`);
    for (const n of m.nodes.filter((x) => x.lane === lane)) {
      const label = `${mermaidText(n.title)}<br/><small>${n.kind} · ${n.id}</small>`;
      const shape = n.kind === 'start' ? `(("Start"))` : n.kind === 'finish' ? `(["End: ${mermaidText(n.text)}"])` : n.kind === 'join' ? `[/"Join"/]` : `["${label}"]`;
      out.push(`    ${nodeRef(n.id)}${shape}`);
    }
    out.push('  end');
  }
  for (const e of m.edges) {
    const arrow = e.kind === 'rejected' ? '-.->' : '-->';
    if (e.to === JOIN) continue;
    out.push(`  ${nodeRef(e.from)} ${arrow}${e.label ? `|"${mermaidText(e.label)}"|` : ''} ${nodeRef(e.to)}`);
  }
  for (const [id, st] of Object.entries(states)) if (st) out.push(`  class ${nodeRef(id)} ${st}`);
  out.push('  classDef ready fill:#e6f4ea,stroke:#1e8e3e', '  classDef claimed fill:#e8f0fe,stroke:#1a73e8', '  classDef waiting fill:#fef7e0,stroke:#f9ab00', '  classDef done fill:#f1f3f4,stroke:#5f6368', '  classDef failed fill:#fce8e6,stroke:#d93025', '  classDef cancelled fill:#f1f3f4,stroke:#9aa0a6,stroke-dasharray:3');
  return `${out.join('\n')}\n`;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A standalone SVG, laid out in columns (steps in order) and lanes (performers). */
export function toSvg(m: MapModel, states: Record<string, string | null> = {}): string {
  const COL = 220;
  const LANE = 130;
  const LEFT = 140;
  const W = 170;
  const H = 64;
  const cols = Math.max(...m.nodes.map((n) => n.column)) + 1;
  const width = LEFT + cols * COL + 40;
  const height = m.lanes.length * LANE + 40;
  // Nodes sharing a lane and column are stacked.
  const slot = new Map<string, number>();
  const pos = new Map<string, { x: number; y: number }>();
  for (const n of m.nodes) {
    const key = `${n.lane}|${n.column}`;
    const k = slot.get(key) ?? 0;
    slot.set(key, k + 1);
    pos.set(n.id, { x: LEFT + n.column * COL + 20, y: 20 + m.lanes.indexOf(n.lane) * LANE + 20 + k * 14 });
  }
  const fill: Record<string, string> = { ready: '#e6f4ea', claimed: '#e8f0fe', waiting: '#fef7e0', done: '#f1f3f4', failed: '#fce8e6', cancelled: '#f8f9fa' };
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${esc(m.name)}</title>`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#5f6368"/></marker></defs>',
  ];
  m.lanes.forEach((lane, i) => {
    const y = 20 + i * LANE;
    parts.push(`<rect x="10" y="${y}" width="${width - 20}" height="${LANE - 6}" fill="${i % 2 ? '#fafafa' : '#ffffff'}" stroke="#dadce0"/>`);
    parts.push(`<text x="20" y="${y + LANE / 2}" font-weight="bold" fill="#3c4043">${esc(clip(lane, 18))}</text>`);
  });
  const labelled = new Map<string, number>();
  for (const e of m.edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) continue;
    const x1 = e.from === 'start' ? a.x + W / 2 + 18 : a.x + W;
    const y1 = a.y + H / 2;
    const x2 = b.x;
    const y2 = b.y + H / 2;
    const back = x2 <= x1;
    const d = back ? `M${a.x + W / 2},${a.y + H} C${a.x + W / 2},${a.y + H + 50} ${b.x + W / 2},${b.y + H + 50} ${b.x + W / 2},${b.y + H}` : `M${x1},${y1} C${x1 + 40},${y1} ${x2 - 40},${y2} ${x2},${y2}`;
    parts.push(`<path d="${d}" fill="none" stroke="${e.kind === 'rejected' ? '#d93025' : '#5f6368'}"${e.kind === 'rejected' ? ' stroke-dasharray="6 4"' : ''} marker-end="url(#arrow)"/>`);
    if (e.label) {
      // Labels sit near where their line leaves the card, on a white halo so crossings stay readable.
      const k = labelled.get(e.from) ?? 0;
      labelled.set(e.from, k + 1);
      const lx = back ? (a.x + b.x + W) / 2 : x1 + 8;
      const ly = back ? Math.max(a.y, b.y) + H + 46 : a.y - 4 - k * 14;
      parts.push(`<text x="${lx}" y="${ly}" text-anchor="${back ? 'middle' : 'start'}" fill="${e.kind === 'rejected' ? '#d93025' : '#3c4043'}" font-size="11" stroke="#fff" stroke-width="3" paint-order="stroke">${esc(clip(e.label, 40))}</text>`);
    }
  }
  for (const n of m.nodes) {
    const { x, y } = pos.get(n.id)!;
    if (n.kind === 'start') {
      parts.push(`<circle cx="${x + W / 2}" cy="${y + H / 2}" r="18" fill="#1e8e3e"/><text x="${x + W / 2}" y="${y + H / 2 + 4}" text-anchor="middle" fill="#fff">Start</text>`);
      continue;
    }
    if (n.kind === 'join') {
      parts.push(`<rect x="${x + W / 2 - 5}" y="${y}" width="10" height="${H}" fill="#3c4043"><title>Join: all branches done</title></rect>`);
      continue;
    }
    const st = states[n.id];
    const stroke = n.kind === 'finish' ? '#1a73e8' : n.kind === 'approve' ? '#f9ab00' : '#5f6368';
    parts.push(`<g data-step="${esc(n.id)}">`);
    parts.push(`<rect x="${x}" y="${y}" width="${W}" height="${H}" rx="${n.kind === 'finish' ? 30 : 8}" fill="${st ? (fill[st] ?? '#fff') : '#fff'}" stroke="${stroke}" stroke-width="${st ? 2.5 : 1.2}"/>`);
    parts.push(`<text x="${x + 10}" y="${y + 18}" fill="#5f6368" font-size="10">${esc(n.kind === 'finish' ? 'end' : n.kind)} · ${esc(n.id)}${st ? ` · ${esc(st)}` : ''}</text>`);
    parts.push(`<text x="${x + 10}" y="${y + 36}" font-weight="bold" fill="#202124">${esc(clip(n.kind === 'finish' ? `End: ${n.text}` : n.title, 24))}</text>`);
    if (n.kind !== 'finish') parts.push(`<text x="${x + 10}" y="${y + 53}" fill="#5f6368" font-size="10">${esc(clip(n.text, 30))}</text>`);
    parts.push('</g>');
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/**
 * The drawing: a laid-out map as a standalone SVG. Text stays text, every
 * card carries its full text as a tooltip, `<title>` and `<desc>` say in words
 * what the map shows, and an embedded style follows the reader's light or
 * dark theme. With a run's marks, done steps, the current step, rework counts
 * and the path taken are drawn on top. Pure.
 */
import type { MapLayout, PlacedEdge, PlacedNode } from './layout.js';
import type { MapGraph } from './model.js';
import { OPEN_STATES, type RunMarks } from './run.js';
import { FONT, LINE, PAD } from './shapes.js';
import { wrap } from './text.js';

export const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n1 = (v: number) => Math.round(v * 10) / 10;

const STYLE = `
svg { --bg:#ffffff; --ink:#1f2328; --muted:#59636e; --lane:#f6f8fa; --lane-alt:#ffffff; --rule:#d0d7de; --card:#ffffff; --card-line:#8c959f;
  --agent:#0969da; --person:#8250df; --approve:#9a6700; --wait:#57606a; --end:#1a7f37; --bad:#cf222e; --edge:#57606a; --taken:#0969da;
  --now:#bc4c00; --now-bg:#fff1e5; --done-bg:#eef6ee; --chip:#eaeef2; --problem-bg:#ffebe9; }
@media (prefers-color-scheme: dark) {
  svg { --bg:#0d1117; --ink:#e6edf3; --muted:#9198a1; --lane:#151b23; --lane-alt:#0d1117; --rule:#3d444d; --card:#151b23; --card-line:#656c76;
    --agent:#4493f8; --person:#ab7df8; --approve:#d29922; --wait:#9198a1; --end:#3fb950; --bad:#f85149; --edge:#9198a1; --taken:#4493f8;
    --now:#f0883e; --now-bg:#3d2410; --done-bg:#12261a; --chip:#262c36; --problem-bg:#3c1618; }
}
.bg { fill:var(--bg); } .ink { fill:var(--ink); } .muted { fill:var(--muted); } .bad-text { fill:var(--bad); }
.lane { fill:var(--lane); stroke:var(--rule); } .lane-alt { fill:var(--lane-alt); stroke:var(--rule); }
.card { fill:var(--card); stroke:var(--card-line); stroke-width:1.2; }
.stripe-agent { fill:var(--agent); } .stripe-task { fill:var(--person); } .stripe-approve { fill:var(--approve); }
.wait { fill:var(--card); stroke:var(--wait); stroke-width:1.2; stroke-dasharray:4 3; } .clock { fill:none; stroke:var(--wait); stroke-width:1.4; }
.end { fill:var(--card); stroke:var(--end); stroke-width:2; } .end-bad { fill:var(--card); stroke:var(--bad); stroke-width:2; }
.start { fill:var(--end); } .start-text { fill:var(--bg); font-weight:600; }
.bar { fill:var(--ink); } .diamond { fill:var(--card); stroke:var(--ink); stroke-width:1.5; }
.missing { fill:var(--problem-bg); stroke:var(--bad); stroke-dasharray:5 3; } .problem { fill:var(--problem-bg); stroke:var(--bad); stroke-width:2; }
.chip { fill:var(--chip); }
.edge { fill:none; stroke:var(--edge); stroke-width:1.4; } .edge-rejected { stroke:var(--bad); stroke-dasharray:7 4; }
.edge-failed { stroke:var(--bad); stroke-dasharray:2 3; stroke-opacity:.75; } .edge-timeout { stroke:var(--approve); stroke-dasharray:7 4; }
.edge-taken { stroke:var(--taken); stroke-width:3.2; stroke-opacity:1; }
.arrow { fill:var(--edge); } .arrow-bad { fill:var(--bad); } .arrow-timeout { fill:var(--approve); } .arrow-taken { fill:var(--taken); }
.pill { fill:var(--bg); stroke:var(--rule); } .pill-bad { fill:var(--bg); stroke:var(--bad); }
.state-done .card, .state-done.end { fill:var(--done-bg); }
.state-now .card, .state-now .wait { fill:var(--now-bg); stroke:var(--now); stroke-width:3; stroke-dasharray:none; }
.now-text { fill:var(--now); font-weight:600; }
text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
`;

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

const edgeClass: Record<string, string> = { rejected: ' edge-rejected', failed: ' edge-failed', timeout: ' edge-timeout' };
const arrowOf: Record<string, string> = { rejected: 'bad', failed: 'bad', timeout: 'timeout' };

/** A line, or (`label`) the box with its label, drawn after every line so none crosses it. */
function drawEdge(e: PlacedEdge, id: string, marks: RunMarks | undefined, part: 'line' | 'label'): string[] {
  if (e.points.length < 2) return [];
  if (part === 'label') return e.label ? drawLabel(e) : [];
  const taken = marks?.taken.has(e.edge.id) ?? false;
  const d = e.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${n1(p.x)},${n1(p.y)}`).join(' ');
  const arrow = taken ? 'taken' : (arrowOf[e.edge.kind] ?? 'plain');
  return [`<path class="edge${edgeClass[e.edge.kind] ?? ''}${taken ? ' edge-taken' : ''}" d="${d}" marker-end="url(#${id}-arrow-${arrow})" data-edge="${esc(e.edge.id)}"/>`];
}

function drawLabel(e: PlacedEdge): string[] {
  const l = e.label!;
  const bad = e.edge.kind === 'rejected' || e.edge.kind === 'failed';
  const out = [`<g class="label" data-edge="${esc(e.edge.id)}"><rect class="${bad ? 'pill-bad' : 'pill'}" x="${n1(l.x)}" y="${n1(l.y)}" width="${n1(l.width)}" height="${n1(l.height)}" rx="4"/>`];
  l.lines.forEach((t, i) => out.push(`<text class="${bad ? 'bad-text' : 'ink'}" x="${n1(l.x + l.width / 2)}" y="${n1(l.y + 3 + (i + 1) * LINE.label - 3.5)}" font-size="${FONT.label}" text-anchor="middle">${esc(t)}</text>`));
  out.push('</g>');
  return out;
}

/** Lines of text top-down from `y`, returning where the next line would start. */
function lines(out: string[], texts: string[], x: number, y: number, size: number, step: number, cls: string, weight = ''): number {
  for (const t of texts) {
    out.push(`<text class="${cls}" x="${n1(x)}" y="${n1(y + step - 4)}" font-size="${size}"${weight}>${esc(t)}</text>`);
    y += step;
  }
  return y;
}

function tooltip(p: PlacedNode, extra: string[]): string {
  const n = p.node;
  return esc([n.tag, n.title, n.text, ...n.badges, ...n.problems.map((x) => `Problem: ${x}`), ...extra].filter((x) => x !== '').join('\n'));
}

function drawNode(p: PlacedNode, marks: RunMarks | undefined): string[] {
  const n = p.node;
  const st = marks?.state.get(n.id);
  const now = st !== undefined && OPEN_STATES.has(st);
  const rework = marks?.rework.get(n.id) ?? 0;
  const overdue = marks?.overdue.has(n.id) ?? false;
  const runNotes = [st ? stateWords(p, st) : '', rework ? `reworked ${rework}×` : '', overdue ? 'overdue' : ''].filter((x) => x !== '');
  const cls = `node node-${n.kind}${st === 'done' ? ' state-done' : ''}${now ? ' state-now' : ''}`;
  const out = [`<g class="${cls}" data-id="${esc(n.id)}"${n.step ? ` data-step="${esc(n.step)}"` : ''}><title>${tooltip(p, runNotes)}</title>`];
  const { x, y, width: w, height: h } = p;
  const cx = x + w / 2;
  const cy = y + h / 2;
  switch (n.kind) {
    case 'start':
      out.push(`<circle class="start" cx="${n1(cx)}" cy="${n1(cy)}" r="${w / 2}"/><text class="start-text" x="${n1(cx)}" y="${n1(cy + 4)}" font-size="11" text-anchor="middle">Start</text>`);
      break;
    case 'decision':
      out.push(`<polygon class="diamond${n.problems.length ? ' problem' : ''}" points="${n1(cx)},${n1(y)} ${n1(x + w)},${n1(cy)} ${n1(cx)},${n1(y + h)} ${n1(x)},${n1(cy)}"/>`);
      break;
    case 'fork':
    case 'join':
      out.push(`<rect class="bar" x="${n1(x)}" y="${n1(y)}" width="${n1(w)}" height="${n1(h)}" rx="3"/>`);
      break;
    case 'end': {
      const bad = n.id.includes('#');
      out.push(`<rect class="${n.problems.length ? 'problem' : bad ? 'end-bad' : 'end'}" x="${n1(x)}" y="${n1(y)}" width="${n1(w)}" height="${n1(h)}" rx="${Math.min(18, h / 2)}"/>`);
      let ty = lines(out, p.lines.title, cx, y + 8, FONT.title, LINE.title, bad ? 'bad-text' : 'ink', ' font-weight="600" text-anchor="middle"');
      ty = lines(out, p.lines.problems, x + PAD, ty, FONT.badge, LINE.badge, 'bad-text');
      break;
    }
    default: {
      const shape = n.kind === 'wait' ? 'wait' : n.kind === 'missing' ? 'missing' : 'card';
      out.push(`<rect class="${n.problems.length && shape === 'card' ? 'card problem' : shape}" x="${n1(x)}" y="${n1(y)}" width="${n1(w)}" height="${n1(h)}" rx="8"/>`);
      if (shape === 'card') out.push(`<rect class="stripe-${n.kind}" x="${n1(x)}" y="${n1(y + 6)}" width="4" height="${n1(h - 12)}" rx="2"/>`);
      const indent = n.kind === 'wait' ? 22 : 0;
      if (n.kind === 'wait') out.push(`<circle class="clock" cx="${n1(x + PAD + 7)}" cy="${n1(y + 26)}" r="7"/><path class="clock" d="M${n1(x + PAD + 7)},${n1(y + 21)} V${n1(y + 26)} H${n1(x + PAD + 11)}"/>`);
      // On a run map the line above the title says where the run is; the kind and id stay in the tooltip.
      const tag = runNotes.length ? runNotes.join(' · ') : p.lines.tag;
      let ty = lines(out, wrap(tag, w - 2 * PAD, FONT.tag, 1).lines, x + PAD, y + 8, FONT.tag, LINE.tag, now ? 'now-text' : 'muted');
      ty = lines(out, p.lines.title, x + PAD + indent, ty, FONT.title, LINE.title, 'ink', ' font-weight="600"');
      ty = lines(out, p.lines.text, x + PAD + indent, ty, FONT.text, LINE.text, 'muted');
      if (p.lines.badges.length) ty += 6;
      for (const b of p.lines.badges) {
        out.push(`<rect class="chip" x="${n1(x + PAD)}" y="${n1(ty + 1)}" width="${n1(w - 2 * PAD)}" height="${LINE.badge - 2}" rx="3"/>`);
        ty = lines(out, [b], x + PAD + 4, ty, FONT.badge, LINE.badge, 'ink');
      }
      lines(out, p.lines.problems, x + PAD, ty, FONT.badge, LINE.badge, 'bad-text');
    }
  }
  out.push('</g>');
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

export interface DrawOptions {
  marks?: RunMarks;
  /** A line under the title, e.g. "version 3" or "draft". */
  subtitle?: string;
}

export function drawSvg(m: MapLayout, opts: DrawOptions = {}): string {
  const g = m.graph;
  const id = `wbm-${g.name.replace(/[^a-z0-9-]/g, '') || 'map'}`;
  const marks = opts.marks;
  const heading = `${g.name}${opts.subtitle ? ` · ${opts.subtitle}` : ''}${marks ? ` · run ${marks.run.state}${marks.run.outcome ? ` (${marks.run.outcome})` : ''}` : ''}`;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${n1(m.width)}" height="${n1(m.height)}" viewBox="0 0 ${n1(m.width)} ${n1(m.height)}" role="img" aria-labelledby="${id}-title ${id}-desc">`,
    `<title id="${id}-title">Process map: ${esc(heading)}</title>`,
    `<desc id="${id}-desc">${esc(describe(g))}</desc>`,
    `<style>${STYLE}</style>`,
    `<defs>${['plain', 'bad', 'timeout', 'taken'].map((k) => `<marker id="${id}-arrow-${k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="${k === 'taken' ? 5 : 7}" markerHeight="${k === 'taken' ? 5 : 7}" orient="auto-start-reverse"><path class="arrow${k === 'plain' ? '' : `-${k}`}" d="M0,0 L10,5 L0,10 z"/></marker>`).join('')}</defs>`,
    `<rect class="bg" x="0" y="0" width="${n1(m.width)}" height="${n1(m.height)}"/>`,
  ];
  let y = lines(out, [heading], 16, 8, 16, 22, 'ink', ' font-weight="700"');
  y = lines(out, wrap(g.description, m.width - 32, 12, 2).lines, 16, y, 12, 16, 'muted');
  lines(out, g.problems.map((p) => `⚠ ${p}`), 16, y, 12, 16, 'bad-text');
  m.lanes.forEach((l, i) => {
    out.push(`<g class="lane-band"><rect class="${i % 2 ? 'lane-alt' : 'lane'}" x="8" y="${n1(l.y)}" width="${n1(m.width - 16)}" height="${n1(l.height)}"/>`);
    let ty = lines(out, wrap(l.label, m.headerWidth - 20, 13, 2).lines, 18, l.y + 10, 13, 17, 'ink', ' font-weight="700"');
    ty = lines(out, wrap(l.detail, m.headerWidth - 20, 11, 3).lines, 18, ty, 11, 14, 'muted');
    out.push(`<line x1="${m.headerWidth + 8}" y1="${n1(l.y)}" x2="${m.headerWidth + 8}" y2="${n1(l.y + l.height)}" stroke="var(--rule)"/></g>`);
  });
  const ordered = [...m.edges].sort((a, b) => Number(marks?.taken.has(a.edge.id) ?? false) - Number(marks?.taken.has(b.edge.id) ?? false));
  for (const part of ['line', 'label'] as const) for (const e of ordered) out.push(...drawEdge(e, id, marks, part));
  for (const p of m.nodes) out.push(...drawNode(p, marks));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

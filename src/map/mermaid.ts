/**
 * The map as Mermaid `flowchart LR`, for GitHub markdown: a subgraph per
 * lane, a node per step, decision point, bar and end, every line with its
 * label (rejections dashed), and a run's step states as classes with the
 * lines it has taken drawn bold in the SVG map's colour. Pure.
 */
import type { MapGraph, MapNode } from './model.js';

const text = (s: string) => s.replace(/"/g, '#quot;').replace(/[<>]/g, (c) => (c === '<' ? '#lt;' : '#gt;'));
const ref = (id: string) => id.replace(/[^A-Za-z0-9_]/g, '_');

function shape(n: MapNode): string {
  switch (n.kind) {
    case 'start':
      return '(("Start"))';
    case 'end':
      return `(["End: ${text(n.title)}"])`;
    case 'decision':
      return '{" "}';
    case 'fork':
    case 'join':
      return `[/"${text(n.title)}"/]`;
    case 'wait':
      return `[["${text(n.title)}<br/><small>${text(n.tag)}</small>"]]`;
    default:
      return `["${text(n.title)}<br/><small>${text(n.tag)}</small>"]`;
  }
}

/**
 * `states`: step id → state (ready, claimed, waiting, done, failed, cancelled), drawn as classes;
 * `taken`: the ids of the lines a run has gone along.
 */
export function toMermaid(g: MapGraph, states: Record<string, string | null> = {}, taken: ReadonlySet<string> = new Set()): string {
  const out = ['flowchart LR'];
  for (const lane of g.lanes) {
    out.push(`  subgraph ${ref(`lane_${lane.id}`)}["${text(`${lane.label}: ${lane.detail}`)}"]`);
    for (const n of g.nodes.filter((x) => x.lane === lane.id)) out.push(`    ${ref(n.id)}${shape(n)}`);
    out.push('  end');
  }
  for (const e of g.edges) {
    const arrow = e.kind === 'rejected' || e.kind === 'failed' || e.kind === 'timeout' ? '-.->' : '-->';
    out.push(`  ${ref(e.from)} ${arrow}${e.label ? `|"${text(e.label)}"|` : ''} ${ref(e.to)}`);
  }
  for (const [id, st] of Object.entries(states)) if (st) out.push(`  class ${ref(id)} ${st}`);
  // Mermaid numbers links in the order they are written: the edges' order above.
  const path = g.edges.flatMap((e, i) => (taken.has(e.id) ? [i] : []));
  if (path.length > 0) out.push(`  linkStyle ${path.join(',')} stroke:#0969da,stroke-width:3px`);
  out.push(
    '  classDef ready fill:#e6f4ea,stroke:#1e8e3e',
    '  classDef claimed fill:#e8f0fe,stroke:#1a73e8',
    '  classDef waiting fill:#fef7e0,stroke:#f9ab00',
    '  classDef done fill:#f1f3f4,stroke:#5f6368',
    '  classDef failed fill:#fce8e6,stroke:#d93025',
    '  classDef cancelled fill:#f1f3f4,stroke:#9aa0a6,stroke-dasharray:3',
  );
  return `${out.join('\n')}\n`;
}

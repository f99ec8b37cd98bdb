/** The layer rule over an import graph, as pure functions the architecture test applies to src/. */

/** The layers docs/architecture.md's first block under "Layers" lists, bottom up: a line naming several folders is one layer of them side by side. */
export function layersOf(doc: string): string[][] {
  const at = doc.indexOf('\n## Layers\n');
  if (at < 0) throw new Error('no "## Layers" section');
  const section = doc.slice(at);
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const layers: string[][] = [];
  for (const line of block.split('\n')) {
    const named = /^((?:src\/[a-z0-9-]+\/ ?)+)/.exec(line)?.[1];
    if (named)
      layers.push(
        named
          .trim()
          .split(/\s+/)
          .map((s) => s.slice('src/'.length, -1)),
      );
  }
  return layers;
}

const folderOf = (file: string): string => file.split(/[\\/]/)[0]!;

/** Every import from one folder into a folder not listed below it, as "from → to" lines. */
export function upArrows(edges: ReadonlyMap<string, ReadonlySet<string>>, layers: readonly (readonly string[])[]): string[] {
  const rank = new Map(layers.flatMap((names, i) => names.map((n) => [n, i] as const)));
  const out: string[] = [];
  for (const [from, tos] of edges) {
    const a = folderOf(from);
    for (const to of tos) {
      const b = folderOf(to);
      if (a === b) continue;
      const [ra, rb] = [rank.get(a), rank.get(b)];
      if (ra === undefined || rb === undefined || rb >= ra) out.push(`${from} → ${to}`);
    }
  }
  return out.sort();
}

/** The graph's strongly connected components (Tarjan), each sorted; a component of more than one node is a cycle. */
export function strongComponents(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    out.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

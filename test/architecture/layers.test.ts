/**
 * The layer rule, checked over the real import graph of src/: each folder is
 * a layer, docs/architecture.md's Layers block lists them bottom up (folders on one
 * line sit side by side), and a file may import only from its own folder or
 * from a layer listed before it, never sideways. No import cycle, even one of
 * types only. The graph is read with TypeScript's own import scanner
 * (src-graph.ts), so `import type`, `export … from` and `import()` all count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { layersOf, strongComponents, upArrows } from './import-graph.js';
import { readSrc, ROOT, SRC } from './src-graph.js';

const architecture = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
const src = readSrc();
const graph = { edges: new Map([...src.files].map(([f, { imports }]) => [f, imports])), unresolved: src.unresolved };

describe('layers', () => {
  const layers = layersOf(architecture);

  it('docs/architecture.md names every folder of src/ as a layer, once', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(layers.flat().sort()).toEqual(folders);
  });

  it('every relative import resolves to a file of src/', () => {
    expect(graph.unresolved).toEqual([]);
  });

  it('no import runs up a layer or sideways', () => {
    expect(upArrows(graph.edges, layers)).toEqual([]);
  });

  it('no import cycle, between files or between folders', () => {
    expect(strongComponents(graph.edges).filter((c) => c.length > 1)).toEqual([]);
    const folders = new Map<string, Set<string>>();
    for (const [from, tos] of graph.edges) {
      const a = from.split(path.sep)[0]!;
      if (!folders.has(a)) folders.set(a, new Set());
      for (const to of tos) if (to.split(path.sep)[0] !== a) folders.get(a)!.add(to.split(path.sep)[0]!);
    }
    expect(strongComponents(folders).filter((c) => c.length > 1)).toEqual([]);
  });
});

describe('the rule itself, on a made-up graph', () => {
  const layers = layersOf(
    [
      '# x',
      '## Layers',
      '',
      '```',
      'src/core/   base',
      '            more words',
      'src/mcp/ src/web/   side by side',
      'src/cli/    top',
      'bench/      not a layer',
      '```',
      '',
      '```',
      'src/late/ after the block',
      '```',
    ].join('\n'),
  );
  const g = (pairs: [string, string][]) => {
    const m = new Map<string, Set<string>>();
    for (const [a, b] of pairs) m.set(a, (m.get(a) ?? new Set()).add(b));
    return m;
  };

  it('reads the layers bottom up from the first block under Layers, side by side on one line', () => {
    expect(layers).toEqual([['core'], ['mcp', 'web'], ['cli']]);
  });

  it('names an import up a layer, sideways, or into a folder no layer names; allows one down or within a folder', () => {
    const edges = g([
      ['cli/a.ts', 'core/b.ts'],
      ['web/a.ts', 'core/b.ts'],
      ['web/a.ts', 'web/c.ts'],
      ['core/b.ts', 'web/a.ts'],
      ['web/a.ts', 'mcp/x.ts'],
      ['core/b.ts', 'stray/y.ts'],
    ]);
    expect(upArrows(edges, layers)).toEqual(['core/b.ts → stray/y.ts', 'core/b.ts → web/a.ts', 'web/a.ts → mcp/x.ts']);
  });

  it('finds a cycle of two files, a longer one, and none in a chain', () => {
    const found = strongComponents(
      g([
        ['a', 'b'],
        ['b', 'a'],
        ['c', 'd'],
        ['d', 'e'],
        ['e', 'c'],
        ['f', 'g'],
      ]),
    ).filter((c) => c.length > 1);
    expect(found).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });
});

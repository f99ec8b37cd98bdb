/**
 * Every `.work/` path and every reading of a run path is defined in
 * src/board/layout.ts and used from there (docs/architecture.md "The board on disk").
 */
import { describe, expect, it } from 'vitest';
import { layoutBreaches, layoutBreachesIn } from './layout-paths-rule.js';
import { readSrc } from './src-graph.js';

describe('board paths, outside src/board/layout.ts', () => {
  it('no file of src/ spells a .work/ path, builds one from STATE_DIR, or reads runs/ paths with a regex of its own', () => {
    expect(layoutBreaches(readSrc().files)).toEqual([]);
    // It parses every file of src/: a few seconds of CPU, past the default minute when the machine is busy.
  }, 300_000);
});

describe('the rule itself, on made-up text', () => {
  it('names each kind of breach with its line', () => {
    const text = [
      "const a = '.work/locks/sync.lock';",
      'const b = `${STATE_DIR}/refused.json`;',
      "const c = 'locks/x.lock';",
      'const d = /^runs\\/([^/]+)\\/audit\\.jsonl$/;',
      "const e = ['node_modules', '.work', '.git'];",
      'const f = `help (in .work/tokens.json)`;',
    ].join('\n');
    expect(layoutBreachesIn(text)).toEqual([
      'spells .work (line 1)',
      'builds a path under STATE_DIR (line 2)',
      'spells a .work/ folder (line 3)',
      'reads runs/ paths with a regex of its own (line 4)',
      'spells .work (line 5)',
      'spells .work (line 6)',
    ]);
  });

  it('leaves alone comments, the folder itself, a prefix test, names from layout and longer names', () => {
    const text = [
      '// a comment may say .work/locks/sync.lock and /^runs\\/x/',
      '/** `.work/journal/sync.json` */',
      'const a = p === STATE_DIR || p.startsWith(`${STATE_DIR}/`);',
      'const b = `${SPARE_DIR}/${n}`;',
      "const c = 'https://example.work/x';",
      "const d = '.workers';",
      'const e = `in ${STATE_DIR}/)`;',
    ].join('\n');
    expect(layoutBreachesIn(text)).toEqual([]);
  });

  it('skips layout.ts, where the paths are defined', () => {
    const files = new Map([
      ['board/layout.ts', { text: "export const LOCKS_DIR = '.work/locks';" }],
      ['git/x.ts', { text: "const l = '.work/locks/sync.lock';" }],
    ]);
    expect(layoutBreaches(files)).toEqual(['git/x.ts: spells .work (line 1)']);
  });
});

/**
 * A file per idea: no hand-written file of src/ is over 400 lines. A file
 * that grows past it holds more than one idea; move one out whole. The
 * generated protocol types are written by scripts/tool-types.mjs from the
 * schemas and are as long as the schemas make them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SRC } from './src-graph.js';

const MAX_LINES = 400;
const GENERATED = new Set(['src/protocol/tool-args.ts', 'src/protocol/tool-results.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(abs);
    return /\.tsx?$/.test(e.name) ? [path.relative(ROOT, abs)] : [];
  });
}

describe('file size', () => {
  it(`no hand-written file of src/ is over ${MAX_LINES} lines`, () => {
    const files = sourceFiles(SRC);
    const over = files
      .filter((f) => !GENERATED.has(f))
      .map((f) => ({ f, lines: readFileSync(path.join(ROOT, f), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ f, lines }) => `${f}: ${lines} lines`);
    expect(over).toEqual([]);
    expect(files).toContain('src/service/service.ts');
  });
});

/**
 * The build's stamp (scripts/build.mjs): `--if-stale` skips the build only
 * when dist/built names the hash of the inputs there are now. Checked on
 * small trees in a temporary folder, without building anything.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distIsCurrent, inputHash } from '../../scripts/build.mjs';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A tree with the build's inputs in it: two sources, a schema and package.json. */
function tree(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'wb-stamp-'));
  made.push(root);
  mkdirSync(path.join(root, 'src/cli'), { recursive: true });
  mkdirSync(path.join(root, 'schemas/board'), { recursive: true });
  writeFileSync(path.join(root, 'src/cli/main.ts'), 'export const a = 1;\n');
  writeFileSync(path.join(root, 'src/index.ts'), 'export {};\n');
  writeFileSync(path.join(root, 'schemas/board/run.schema.json'), '{"type":"object"}\n');
  writeFileSync(path.join(root, 'package.json'), '{"name":"x","version":"1.0.0"}\n');
  return root;
}

/** What a finished build leaves: the bundle's entry and the stamp with the inputs' hash. */
function built(root: string): void {
  mkdirSync(path.join(root, 'dist/bundle'), { recursive: true });
  writeFileSync(path.join(root, 'dist/bundle/main.js'), '');
  writeFileSync(path.join(root, 'dist/built'), `2026-12-06T00:00:00.000Z\n${inputHash(root)}\n`);
}

describe('the build stamp', () => {
  it('two trees with the same inputs hash alike, wherever they are', () => {
    expect(inputHash(tree())).toBe(inputHash(tree()));
  });

  it('a changed byte, a new file, a renamed one or a new dependency version changes the hash', () => {
    const root = tree();
    const before = inputHash(root);
    const changes: [string, () => void][] = [
      ['a byte of a source', () => writeFileSync(path.join(root, 'src/cli/main.ts'), 'export const a = 2;\n')],
      ['a new schema', () => writeFileSync(path.join(root, 'schemas/board/step.schema.json'), '{}\n')],
      ['a renamed source', () => renameSync(path.join(root, 'src/index.ts'), path.join(root, 'src/main.ts'))],
      ['a lockfile', () => writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3}\n')],
    ];
    const seen = new Set([before]);
    for (const [what, change] of changes) {
      change();
      const now = inputHash(root);
      expect(seen.has(now), what).toBe(false);
      seen.add(now);
    }
  });

  it('dist/ is current only with a stamp of these inputs and the bundle it names', () => {
    const root = tree();
    expect(distIsCurrent(root)).toBe(false); // never built
    built(root);
    expect(distIsCurrent(root)).toBe(true);
    writeFileSync(path.join(root, 'src/index.ts'), 'export const b = 1;\n');
    expect(distIsCurrent(root)).toBe(false); // a source changed since
    built(root);
    rmSync(path.join(root, 'dist/bundle/main.js'));
    expect(distIsCurrent(root)).toBe(false); // the stamp without the bundle
    built(root);
    writeFileSync(path.join(root, 'dist/built'), '2026-12-06T00:00:00.000Z\n'); // an older build's stamp, without a hash
    expect(distIsCurrent(root)).toBe(false);
  });
});

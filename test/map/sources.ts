/**
 * Every process we have, for the map tests: the example board's, the test
 * fixtures (valid ones as published, invalid ones as drafts), and the
 * upstream conformance fixtures when ../shared is present.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SHARED = path.join(ROOT, '../shared/conformance/fixtures');

const under = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .sort()
        .map((d) => path.join(dir, d, 'PROCESS.md'))
        .filter(existsSync)
    : [];

export const ours = [path.join(ROOT, 'examples/board/processes'), path.join(ROOT, 'fixtures/valid'), path.join(ROOT, 'fixtures/service')].flatMap(under);
export const upstream = under(SHARED);
const INVALID = path.join(ROOT, 'fixtures/invalid');
export const drafts = existsSync(INVALID)
  ? readdirSync(INVALID)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => path.join(INVALID, f))
  : [];
export const rel = (f: string) => path.relative(ROOT, f);

/**
 * The tools' argument and result types are generated from their schemas: the
 * committed files must be what the generator writes now, so a schema change
 * cannot leave the types (and every reader of an argument or a result) behind.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('src/protocol/tool-args.ts and tool-results.ts are what scripts/tool-types.mjs generates from schemas/tools and schemas/results', () => {
  const r = spawnSync(process.execPath, ['scripts/tool-types.mjs', '--check'], { cwd: root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});

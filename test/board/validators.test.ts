/**
 * The validators `npm run build` writes ahead of time (scripts/validators.mjs)
 * judge exactly as ajv compiling the same schema at run time does: the same
 * verdict and the same errors, on valid board documents and tool arguments and
 * on broken ones.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../src/core/markdown.js';
import { ajvInstance, validatorFor } from '../../src/board/validators.js';
import { ensureBuilt, ROOT } from '../support/cli-run.js';

const require = createRequire(import.meta.url);
let out: string;

beforeAll(async () => {
  await ensureBuilt();
  // Inside the project, so the generated code finds ajv's runtime the way dist/validators does.
  out = mkdtempSync(path.join(ROOT, 'dist', 'validators-test-'));
  const r = spawnSync(process.execPath, ['scripts/validators.mjs', '--out', out], { cwd: ROOT, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

type Validate = ((d: unknown) => boolean) & { errors?: { instancePath: string; keyword: string; message?: string }[] | null };

function both(group: string, name: string): { built: Validate; compiled: Validate } {
  const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas', group, `${name}.json`), 'utf8')) as Record<string, unknown>;
  const ajv = ajvInstance();
  return { built: require(path.join(out, group, `${name}.cjs`)) as Validate, compiled: (ajv.getSchema(String(schema.$id)) ?? ajv.compile(schema)) as Validate };
}

function judge(v: Validate, data: unknown) {
  const ok = v(data);
  return { ok, errors: (v.errors ?? []).map((e) => `${e.instancePath} ${e.keyword} ${e.message ?? ''}`) };
}

const frontmatter = (file: string) => {
  const r = parseMarkdown(readFileSync(path.join(ROOT, file), 'utf8'));
  if (!r.ok) throw new Error(`${file} does not parse`);
  return r.value.data as Record<string, unknown>;
};

describe('validators built ahead of time', () => {
  it('judge WORK.md and VERSION.md, valid and broken, as the run-time compile does', () => {
    const work = frontmatter('examples/board/WORK.md');
    const version = frontmatter('examples/board/processes/expense-approval/v1/VERSION.md');
    const cases: [string, unknown][] = [
      ['work.schema', work],
      ['work.schema', { ...work, name: 'Not A Name', extra: 1 }],
      ['work.schema', { ...work, people: [{ email: 'not an email' }] }],
      ['version.schema', version],
      ['version.schema', { ...version, rev: 0 }],
    ];
    for (const [name, data] of cases) {
      const { built, compiled } = both('board', name);
      expect(judge(built, data), name).toEqual(judge(compiled, data));
    }
    expect(judge(both('board', 'work.schema').built, { ...work, extra: 1 }).ok).toBe(false);
  });

  it('judge tool arguments as the run-time compile does', () => {
    const cases: [string, unknown][] = [
      ['submit.arguments', { token: 't', summary: 'ok', requestId: 'r' }],
      ['submit.arguments', { token: '', evidence: [{ kind: 'photo', ref: '' }], extra: true }],
      ['list_runs.arguments', { state: 'bogus', limit: 0 }],
      ['upload.arguments', { fileName: 'a.txt', contentType: 'text/plain', contentBase64: '', requestId: 'r' }],
    ];
    for (const [name, data] of cases) {
      const { built, compiled } = both('tools', name);
      expect(judge(built, data), name).toEqual(judge(compiled, data));
    }
  });

  it('a schema asked for twice in one process is compiled once, and both asks get its validator', () => {
    // Run from src/, no validator is built ahead (dist/validators is not beside it): both asks compile with the one ajv.
    const schema = () => JSON.parse(readFileSync(path.join(ROOT, 'schemas', 'board', 'run.schema.json'), 'utf8')) as Record<string, unknown>;
    const first = validatorFor('board', 'run.schema', schema);
    const second = validatorFor('board', 'run.schema', schema);
    expect(second).toBe(first);
    expect(first({})).toBe(false);
  });
});

/**
 * The typed service boundary as the compiler sees it: typed-call/calls.ts
 * (tool/argument pairs that must not type-check, each under
 * `@ts-expect-error`, and each tool's result type) compiles cleanly; and the
 * check is not vacuous: the same file with one wrong pair left unmarked, or
 * with a tool's answer named wrongly, fails to compile at that line.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'typed-call');
const TSC = path.join(DIR, '../../../node_modules/typescript/bin/tsc');
const made: string[] = [];
/** tsc reads the whole service graph: a while on a loaded machine. */
const COMPILE_TIMEOUT = 180_000;

afterAll(async () => {
  for (const f of made) await fs.rm(f, { force: true });
});

/** tsc with a config of DIR (the project's compiler options, one file): its exit code and the errors it printed. */
async function compile(config: string): Promise<{ code: number; out: string }> {
  try {
    await promisify(execFile)(process.execPath, [TSC, '-p', config], { cwd: DIR });
    return { code: 0, out: '' };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, out: err.stdout };
  }
}

/** calls.ts with `from` replaced once by `to`, as a file of its own, and where tsc must name the error: `file(line,`. */
async function mutant(name: string, from: string, to: string): Promise<{ config: string; at: string }> {
  const text = await fs.readFile(path.join(DIR, 'calls.ts'), 'utf8');
  expect(text).toContain(from);
  const file = path.join(DIR, `${name}.${process.pid}.ts`);
  made.push(file);
  const changed = text.replace(from, to);
  await fs.writeFile(file, changed);
  // typed-call/tsconfig.json, for this file instead of calls.ts.
  const base = JSON.parse(await fs.readFile(path.join(DIR, 'tsconfig.json'), 'utf8')) as Record<string, unknown>;
  const config = path.join(DIR, `tsconfig.${name}.${process.pid}.json`);
  made.push(config);
  await fs.writeFile(config, JSON.stringify({ ...base, include: [path.basename(file)] }));
  const line = changed.slice(0, changed.indexOf(to === '' ? text.slice(text.indexOf(from) + from.length).split('\n')[0]! : to)).split('\n').length;
  return { config, at: `${path.basename(file)}(${line},` };
}

describe('the typed Service.call', () => {
  it(
    'type-checks every right pair and refuses every wrong one',
    async () => {
      const { code, out } = await compile(path.join(DIR, 'tsconfig.json'));
      expect(out).toBe('');
      expect(code).toBe(0);
    },
    COMPILE_TIMEOUT,
  );

  it(
    'is checked for real: an unmarked wrong pair, or a wrongly named answer, fails at its line',
    async () => {
      const pair = await mutant('wrong-pair', '  // @ts-expect-error get_run takes a runId, not a stepId\n', '');
      const a = await compile(pair.config);
      expect(a.code).not.toBe(0);
      expect(a.out).toContain(`${pair.at}`);
      expect(a.out).toMatch(/error TS2353: Object literal may only specify known properties, and 'stepId' does not exist in type 'GetRunArgs'/);

      const answer = await mutant('wrong-answer', "'renew'>>>, Result<Renewal>>(true)", "'renew'>>>, Result<Renewal | RunView>>(true)");
      const b = await compile(answer.config);
      expect(b.code).not.toBe(0);
      expect(b.out).toContain(`${answer.at}`);
      expect(b.out).toContain("Argument of type 'true' is not assignable to parameter of type 'false'");
    },
    2 * COMPILE_TIMEOUT,
  );
});

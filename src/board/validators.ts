/**
 * Compiled JSON Schema validators for our schemas (board files, tool
 * arguments). `npm run build` writes each as standalone validator code under
 * dist/validators/ (scripts/validators.mjs), which a command loads in a few
 * milliseconds instead of loading ajv and compiling (most of a short CLI
 * call). Without them (tests run from src/) the schema is compiled with ajv
 * on first use, with the same options, so the two validate alike.
 */
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { isCode } from './fsutil.js';

const require = createRequire(import.meta.url);

/**
 * The options every workboard schema is compiled with. `validateSchema: false`
 * skips compiling JSON Schema's own meta-schema at every start; the schemas
 * are checked against it by a test instead.
 */
export const AJV_OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true, validateSchema: false } as const;

let ajv: Ajv2020 | undefined;

/** One ajv with the formats, loaded only when a validator has to be compiled here. */
export function ajvInstance(): Ajv2020 {
  if (!ajv) {
    const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const formats = require('ajv-formats') as { default?: (a: Ajv2020) => void } & ((a: Ajv2020) => void);
    ajv = new Ajv(AJV_OPTIONS);
    (formats.default ?? formats)(ajv);
  }
  return ajv;
}

/** The validator of `schemas/<group>/<name>.json`: built ahead of time when it was, else compiled now. */
export function validatorFor(group: 'board' | 'tools', name: string, schema: () => Record<string, unknown>): ValidateFunction {
  try {
    return require(`../validators/${group}/${name}.cjs`) as ValidateFunction;
  } catch (e) {
    if (!isCode(e, 'MODULE_NOT_FOUND')) throw e;
  }
  // One ajv holds each schema once, by its $id: a second compile of the same schema would throw.
  const source = schema();
  const ajv = ajvInstance();
  return (typeof source.$id === 'string' ? ajv.getSchema(source.$id) : undefined) ?? ajv.compile(source);
}

/**
 * The project's own result schemas (schemas/results/), compiled with the
 * options every workboard schema is compiled with: `resultIssues` says how a
 * tool's answer breaks them. Needs nothing outside the repository, so the
 * harness checks every answer against them in every run, with or without
 * ../shared (whose schemas it checks as well when they are there).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ajvFormats from 'ajv-formats';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { AJV_OPTIONS } from '../../src/board/validators.js';

export const RESULT_SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schemas/results');
const SHAPES = 'https://workboard.dev/schemas/results/shapes.json';

export interface OwnValidators {
  /** The validator of a tool's `data`, undefined for a name that is no tool. */
  result(tool: string): ValidateFunction | undefined;
  /** The validator of a refusal's `error`. */
  failure: ValidateFunction;
  /** Every result schema file, by tool. */
  tools: string[];
}

let compiled: OwnValidators | undefined;

/** Every schema of schemas/results added to one ajv, each compiled the first time it is asked for. */
export function own(): OwnValidators {
  if (compiled) return compiled;
  const ajv = new Ajv2020(AJV_OPTIONS);
  const plugin = ((ajvFormats as unknown as { default: unknown }).default ?? ajvFormats) as { default?: unknown };
  ((plugin.default ?? plugin) as (a: Ajv2020) => void)(ajv);
  const tools: string[] = [];
  for (const f of readdirSync(RESULT_SCHEMA_DIR)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    ajv.addSchema(JSON.parse(readFileSync(path.join(RESULT_SCHEMA_DIR, f), 'utf8')) as Record<string, unknown>);
    if (f.endsWith('.result.json')) tools.push(f.replace('.result.json', ''));
  }
  const get = (id: string) => {
    const v = ajv.getSchema(id);
    if (!v) throw new Error(`schema ${id} did not compile`);
    return v;
  };
  compiled = {
    result: (tool) => (tools.includes(tool) ? get(`https://workboard.dev/schemas/results/${tool}.result.json`) : undefined),
    failure: get(`${SHAPES}#/$defs/toolFailure`),
    tools,
  };
  return compiled;
}

export function errorsOf(v: ValidateFunction, value: unknown): string[] {
  if (v(value)) return [];
  return (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
}

/** How an answer's envelope breaks `{ok: true, data}` / `{ok: false, error}`, else null. */
export function envelopeIssue(res: unknown): string | null {
  if (typeof res !== 'object' || res === null) return `envelope: ${JSON.stringify(res)} is not an object`;
  const keys = Object.keys(res).sort().join(',');
  const ok = (res as { ok?: unknown }).ok;
  if (ok === true) return keys === 'data,ok' ? null : `envelope: keys ${keys}, expected data,ok`;
  if (ok === false) return keys === 'error,ok' ? null : `envelope: keys ${keys}, expected error,ok`;
  return `envelope: ok is ${JSON.stringify(ok)}`;
}

/**
 * How a tool's answer breaks the project's schemas: the envelope is exactly
 * `{ok, data}` or `{ok, error}`; data matches schemas/results/<tool>.result.json;
 * an error matches the toolFailure shape. Empty when it conforms.
 */
export function resultIssues(tool: string, res: unknown): string[] {
  const envelope = envelopeIssue(res);
  if (envelope) return [envelope];
  const v = own();
  const r = res as { ok: boolean; data?: unknown; error?: unknown };
  if (!r.ok) return errorsOf(v.failure, r.error).map((e) => `failure ${e}`);
  const rv = v.result(tool);
  if (!rv) return [`no result schema for tool ${tool}, yet it answered ok`];
  return errorsOf(rv, r.data).map((e) => `${tool}.result ${e}`);
}

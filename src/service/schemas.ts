/** The tools' argument schemas (schemas/tools/), compiled once; a call that breaks one is `invalid` before anything else. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { TOOLS, type Tool } from '../process/profiles.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schemas/tools');
let compiled: Map<Tool, { schema: Record<string, unknown>; validate: ValidateFunction }> | undefined;

function load() {
  if (compiled) return compiled;
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  compiled = new Map();
  for (const tool of TOOLS) {
    const schema = JSON.parse(readFileSync(path.join(DIR, `${tool}.arguments.json`), 'utf8')) as Record<string, unknown>;
    compiled.set(tool, { schema, validate: ajv.compile(schema) });
  }
  return compiled;
}

export function argumentSchema(tool: Tool): Record<string, unknown> {
  return load().get(tool)!.schema;
}

/** Every way the arguments break the tool's schema, as `path: problem` lines. */
export function argumentIssues(tool: Tool, args: unknown): string[] {
  const v = load().get(tool)!.validate;
  if (v(args)) return [];
  return (v.errors ?? []).map((e) => {
    const at = e.instancePath.split('/').slice(1).join('.');
    if (e.keyword === 'additionalProperties') return `${at ? `${at}.` : ''}${(e.params as { additionalProperty: string }).additionalProperty}: not an argument of ${tool}`;
    if (e.keyword === 'required') return `${at ? `${at}.` : ''}${(e.params as { missingProperty: string }).missingProperty}: required`;
    return `${at || 'arguments'}: ${e.message ?? 'invalid'}`;
  });
}

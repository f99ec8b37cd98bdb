/**
 * The JSON Schemas of the board's file kinds (in `schemas/board/`), compiled
 * once. The schema's property order is also the key order files are written in.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DefinedError, ValidateFunction } from 'ajv/dist/2020.js';
import type { Issue } from '../core/issues.js';
import { validatorFor } from './validators.js';

export const FILE_KINDS = ['work', 'version', 'run', 'step'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schemas/board');

interface Compiled {
  validate: ValidateFunction;
  order: string[];
}

const compiled = new Map<FileKind, Compiled>();

export function schemaText(dir: string, name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(dir, `${name}.json`), 'utf8')) as Record<string, unknown>;
}

/** One kind's schema, compiled when first needed: a command that never reads a kind never pays for it. */
function load(kind: FileKind): Compiled {
  let c = compiled.get(kind);
  if (!c) {
    const schema = schemaText(SCHEMA_DIR, `${kind}.schema`) as { properties: Record<string, unknown> };
    c = { validate: validatorFor('board', `${kind}.schema`, () => schema), order: Object.keys(schema.properties) };
    compiled.set(kind, c);
  }
  return c;
}

export function keyOrder(kind: FileKind): string[] {
  return load(kind).order;
}

/** What a field's schema may say of it, for readers that check a few fields without the whole validator (service/run-summary-scan.ts). */
export interface FieldRule {
  enum?: readonly unknown[];
  pattern?: string;
  type?: string | readonly string[];
  minimum?: number;
}

const fieldRules = new Map<FileKind, Record<string, FieldRule>>();

/** One top-level field's rule in a file kind's schema, as the codec checks it; the schema's text alone, no validator compiled. */
export function fieldRule(kind: FileKind, key: string): FieldRule {
  let rules = fieldRules.get(kind);
  if (!rules) {
    rules = (schemaText(SCHEMA_DIR, `${kind}.schema`) as { properties: Record<string, FieldRule> }).properties;
    fieldRules.set(kind, rules);
  }
  const rule = rules[key];
  if (!rule) throw new Error(`the ${kind} schema has no field ${key}`);
  return rule;
}

/** Validate a file's frontmatter; each problem becomes an issue with a readable path. */
export function schemaIssues(kind: FileKind, data: unknown): Issue[] {
  const c = load(kind);
  if (c.validate(data)) return [];
  // Our schemas use only ajv's own keywords (strict mode refuses others), whose errors DefinedError types by keyword.
  return ((c.validate.errors ?? []) as DefinedError[]).map(toIssue);
}

function toIssue(e: DefinedError): Issue {
  const segs = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = segs.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
  let message = e.message ?? 'invalid';
  if (e.keyword === 'additionalProperties') {
    const key = e.params.additionalProperty;
    path = path === '' ? key : `${path}.${key}`;
    message = 'unknown key';
  } else if (e.keyword === 'required') {
    const key = e.params.missingProperty;
    path = path === '' ? key : `${path}.${key}`;
    message = 'required';
  } else if (e.keyword === 'enum') {
    message = `must be one of ${e.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return { path, message };
}

/**
 * The JSON Schemas of the board's file kinds (in `schemas/board/`), compiled
 * once. The schema's property order is also the key order files are written in.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Issue } from '../core/issues.js';

export const FILE_KINDS = ['work', 'version', 'run', 'step'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schemas/board');

interface Compiled {
  validate: ValidateFunction;
  order: string[];
}

let compiled: Map<FileKind, Compiled> | undefined;

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

function load(): Map<FileKind, Compiled> {
  if (compiled) return compiled;
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  compiled = new Map();
  for (const kind of FILE_KINDS) {
    const schema = JSON.parse(readFileSync(path.join(SCHEMA_DIR, `${kind}.schema.json`), 'utf8')) as { properties: Record<string, unknown> };
    compiled.set(kind, { validate: ajv.compile(schema), order: Object.keys(schema.properties) });
  }
  return compiled;
}

export function keyOrder(kind: FileKind): string[] {
  return load().get(kind)!.order;
}

/** Validate a file's frontmatter; each problem becomes an issue with a readable path. */
export function schemaIssues(kind: FileKind, data: unknown): Issue[] {
  const c = load().get(kind)!;
  if (c.validate(data)) return [];
  return (c.validate.errors ?? []).map(toIssue);
}

function toIssue(e: ErrorObject): Issue {
  const segs = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = segs.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
  let message = e.message ?? 'invalid';
  if (e.keyword === 'additionalProperties') {
    const key = (e.params as { additionalProperty: string }).additionalProperty;
    path = path === '' ? key : `${path}.${key}`;
    message = 'unknown key';
  } else if (e.keyword === 'required') {
    const key = (e.params as { missingProperty: string }).missingProperty;
    path = path === '' ? key : `${path}.${key}`;
    message = 'required';
  } else if (e.keyword === 'enum') {
    message = `must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues).map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return { path, message };
}

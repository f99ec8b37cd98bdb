/** The tools' argument schemas (schemas/tools/), each compiled the first time its tool is called; a call that breaks one is `invalid` before anything else. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { schemaText } from '../board/schemas.js';
import { validatorFor } from '../board/validators.js';
import { ToolError } from '../protocol/errors.js';
import type { Tool } from '../protocol/offer.js';
import type { ToolArgs } from '../protocol/tool-args.js';

export const TOOL_SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schemas/tools');
const raw = new Map<Tool, Record<string, unknown>>();
const compiled = new Map<Tool, ValidateFunction>();

export function argumentSchema(tool: Tool): Record<string, unknown> {
  let s = raw.get(tool);
  if (!s) {
    s = schemaText(TOOL_SCHEMA_DIR, `${tool}.arguments`);
    raw.set(tool, s);
  }
  return s;
}

/** A tool's validator, loaded (or compiled) the first time the tool is called. */
function validator(tool: Tool): ValidateFunction {
  let v = compiled.get(tool);
  if (!v) {
    v = validatorFor('tools', `${tool}.arguments`, () => argumentSchema(tool));
    compiled.set(tool, v);
  }
  return v;
}

/**
 * How deep arguments may nest. Board files keep data a few levels below the
 * top and the YAML reader refuses more than 64, so deeper data could be
 * accepted once and then make its run unreadable.
 */
export const MAX_DEPTH = 32;

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * What no schema says and every file needs: nesting within MAX_DEPTH, strings
 * (keys too) that are valid Unicode, since a lone surrogate cannot be written
 * as UTF-8 or canonical JSON, and numbers JSON can carry (a caller in the same
 * process can pass NaN or Infinity where free-form data is allowed). Walked
 * without recursion, so any depth is safe.
 */
export function shapeIssues(value: unknown): string[] {
  const issues: string[] = [];
  const stack: { v: unknown; at: string; depth: number }[] = [{ v: value, at: '', depth: 0 }];
  const name = (at: string, k: string | number) => (at ? `${at}.${k}` : String(k));
  while (stack.length > 0 && issues.length < 20) {
    const { v, at, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) issues.push(`${at || 'arguments'}: contains a lone surrogate (not valid Unicode)`);
      continue;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) issues.push(`${at || 'arguments'}: ${v} is not a number JSON can carry`);
      continue;
    }
    if (typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function') {
      issues.push(`${at || 'arguments'}: a ${typeof v} is not a JSON value`);
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_DEPTH) {
      issues.push(`${at || 'arguments'}: nested deeper than ${MAX_DEPTH} levels`);
      continue;
    }
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, at: name(at, i), depth: depth + 1 }));
    else
      for (const [k, x] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) issues.push(`${name(at, JSON.stringify(k))}: the key contains a lone surrogate (not valid Unicode)`);
        stack.push({ v: x, at: name(at, k), depth: depth + 1 });
      }
  }
  return issues;
}

/** Every way the arguments break the tool's schema, as `path: problem` lines. */
export function argumentIssues(tool: Tool, args: unknown): string[] {
  const shape = shapeIssues(args);
  // Too deep for the schema validator to walk safely: the depth is the problem to fix first.
  if (shape.some((i) => i.endsWith(`nested deeper than ${MAX_DEPTH} levels`))) return shape;
  const v = validator(tool);
  if (v(args)) return shape;
  return [
    ...shape,
    ...(v.errors ?? []).map((e) => {
      const at = e.instancePath.split('/').slice(1).join('.');
      if (e.keyword === 'additionalProperties') return `${at ? `${at}.` : ''}${(e.params as { additionalProperty: string }).additionalProperty}: not an argument of ${tool}`;
      if (e.keyword === 'required') return `${at ? `${at}.` : ''}${(e.params as { missingProperty: string }).missingProperty}: required`;
      if (e.keyword === 'enum') return `${at || 'arguments'}: must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
      return `${at || 'arguments'}: ${e.message ?? 'invalid'}`;
    }),
  ];
}

/**
 * The arguments, typed by their tool, once they fit the tool's schema, else
 * `invalid` naming every problem. The types are generated from the same
 * schemas the validator compiles, so passing it is what makes the type true.
 */
export function checkedArgs<T extends Tool>(tool: T, args: unknown): ToolArgs[T] {
  const issues = argumentIssues(tool, args);
  if (issues.length > 0) throw new ToolError('invalid', `the arguments of ${tool} do not match its schema`, issues);
  return args as ToolArgs[T];
}

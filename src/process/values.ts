/**
 * Checking values against declared fields (docs/processes.md "Fields and values"): run inputs, step
 * outputs, `one_of` lists, fields-1's bounds (docs/profile-fields-1.md "The keys"). Pure. Messages follow the tool contracts:
 * `output.cleared: expected boolean`, `output.extra: not declared`.
 */
import type { PathSegment } from '../core/issues.js';
import type { FieldSpec, Fields, FieldType } from './model.js';

type Sink = (path: PathSegment[], message: string) => void;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;
/** The `person` format this server uses (shown in `describe`): an email address. */
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:"]+$/;

function realDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= (days[m - 1] ?? 0);
}

export function isDate(v: string): boolean {
  const m = DATE.exec(v);
  return m !== null && realDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** RFC 3339 date-time with a required offset, on a real calendar date. */
export function isDateTime(v: string): boolean {
  const m = DATETIME.exec(v);
  if (!m || !realDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return false;
  if (m[9] !== undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return false;
  return true;
}

export function isPerson(v: string): boolean {
  return v.length <= 254 && EMAIL.test(v);
}

const EXPECTED: Record<FieldType, string> = {
  string: 'expected string',
  number: 'expected number',
  boolean: 'expected boolean',
  date: 'expected date (YYYY-MM-DD, a real calendar date)',
  datetime: 'expected datetime (RFC 3339 with offset, e.g. 2026-10-06T09:00:00Z)',
  list: 'expected list',
  object: 'expected object',
  person: 'expected person (an email address)',
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Does the value have the type (ignoring `one_of` and `items`)? */
export function hasType(type: FieldType, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'date':
      return typeof v === 'string' && isDate(v);
    case 'datetime':
      return typeof v === 'string' && isDateTime(v);
    case 'list':
      return Array.isArray(v);
    case 'object':
      return isPlainObject(v);
    case 'person':
      return typeof v === 'string' && isPerson(v);
  }
}

export function expectedText(type: FieldType): string {
  return EXPECTED[type];
}

/** Who a `person` value may name: the board's people (lowercased emails). Absent: any well-formed email. */
export type KnownPeople = ReadonlySet<string> | undefined;

/** Check one value against its field, including `one_of`, list `items` and, for `person`, the board's people. */
export function checkValue(spec: FieldSpec, value: unknown, path: PathSegment[], sink: Sink, people?: KnownPeople): void {
  if (!hasType(spec.type, value)) {
    sink(path, EXPECTED[spec.type]);
    return;
  }
  if (spec.type === 'person' && people && !people.has((value as string).toLowerCase())) {
    sink(path, `${String(value)} is not a person on this board (workboard person add)`);
  }
  if (typeof value === 'number' && spec.minimum !== undefined && value < spec.minimum) sink(path, `must be at least ${spec.minimum}`);
  if (typeof value === 'number' && spec.maximum !== undefined && value > spec.maximum) sink(path, `must be at most ${spec.maximum}`);
  if (spec.oneOf && !spec.oneOf.some((o) => o === value)) {
    sink(path, `not one of ${spec.oneOf.map((o) => JSON.stringify(o)).join(', ')}`);
  }
  if (spec.type === 'list' && spec.items) {
    const items = spec.items;
    (value as unknown[]).forEach((item, i) => checkValue(items, item, [...path, i], sink, people));
  }
}

/**
 * Check a set of values against declared fields: every required field
 * present, nothing undeclared, each value typed. `null` is not a value.
 */
export function checkValues(fields: Fields, values: unknown, path: PathSegment[], sink: Sink, people?: KnownPeople): void {
  if (!isPlainObject(values)) {
    sink(path, 'expected object');
    return;
  }
  for (const [name, spec] of Object.entries(fields)) {
    if (!Object.hasOwn(values, name) || values[name] === undefined) {
      if (!spec.optional) sink([...path, name], 'missing');
      continue;
    }
    const v = values[name];
    if (v === null) {
      sink([...path, name], spec.optional ? 'null is not a value; omit the field instead' : 'missing');
      continue;
    }
    checkValue(spec, v, [...path, name], sink, people);
  }
  for (const name of Object.keys(values)) {
    if (!Object.hasOwn(fields, name)) sink([...path, name], 'not declared');
  }
}

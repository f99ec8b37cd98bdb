/**
 * Field declarations (docs/processes.md "Fields and values"): the `inputs` of a process and the `output` of a
 * step, with the fields-1 bounds on number inputs (docs/profile-fields-1.md "Publication rules").
 */
import type { IssueList, PathSegment } from '../../core/issues.js';
import type { Offer } from '../../protocol/offer.js';
import { FIELD_NAME_PATTERN, FIELD_TYPES, type FieldSpec, type FieldType, type Fields, type Scalar } from '../model.js';
import { expectedText, hasType } from '../values.js';
import { isNum, isObj, list, own, unknownKeys, type Obj } from './raw.js';

const FIELD_KEYS = ['type', 'description', 'optional', 'one_of', 'items'];
const BOUND_KEYS = ['minimum', 'maximum'] as const;

/** `offer` is given for a process's `inputs`, where fields-1's bounds may stand; a step's output takes none. */
export function checkFields(issues: IssueList, value: unknown, path: PathSegment[], offer?: Offer): Fields {
  const out: Fields = {};
  if (value === null) return out;
  if (!isObj(value)) {
    issues.add(path, 'expected a map of field names to types');
    return out;
  }
  for (const [name, def] of Object.entries(value)) {
    if (!FIELD_NAME_PATTERN.test(name)) {
      issues.add([...path, name], 'field name must start with a letter and use only letters, digits, _ or - (at most 64)');
    }
    const spec = checkField(issues, def, [...path, name], false);
    if (spec && isObj(def)) checkBounds(issues, def, spec, [...path, name], offer);
    if (spec) Object.defineProperty(out, name, { value: spec, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function checkField(issues: IssueList, def: unknown, path: PathSegment[], inItems: boolean): FieldSpec | undefined {
  if (typeof def === 'string') {
    const type = checkType(issues, def, path);
    return type ? { type, optional: false } : undefined;
  }
  if (!isObj(def)) {
    issues.add(path, `expected a type name (${list(FIELD_TYPES)}) or a field object with type`);
    return undefined;
  }
  unknownKeys(issues, def, inItems ? FIELD_KEYS : [...FIELD_KEYS, ...BOUND_KEYS], path);
  let type: FieldType | undefined;
  if (!own(def, 'type')) issues.add([...path, 'type'], 'required');
  else if (typeof def.type !== 'string') issues.add([...path, 'type'], 'expected string');
  else type = checkType(issues, def.type, [...path, 'type']);

  const spec: FieldSpec = { type: type ?? 'string', optional: false };
  if (own(def, 'description')) {
    if (typeof def.description !== 'string') issues.add([...path, 'description'], 'expected string');
    else spec.description = def.description;
  }
  if (own(def, 'optional')) {
    if (inItems) issues.add([...path, 'optional'], 'not allowed on list items');
    else if (typeof def.optional !== 'boolean') issues.add([...path, 'optional'], 'expected true or false');
    else spec.optional = def.optional;
  }
  if (own(def, 'one_of')) {
    const values = def.one_of;
    if (type === 'list' || type === 'object') issues.add([...path, 'one_of'], `not allowed on a ${type} field`);
    else if (!Array.isArray(values) || values.length === 0) issues.add([...path, 'one_of'], 'expected a list of one or more values');
    else {
      const seen = new Set<unknown>();
      values.forEach((v, i) => {
        if (type && !hasType(type, v)) issues.add([...path, 'one_of', i], `${expectedText(type)}, the field's type`);
        else if (seen.has(v)) issues.add([...path, 'one_of', i], `${JSON.stringify(v)} listed twice`);
        seen.add(v);
      });
      spec.oneOf = values as Scalar[];
    }
  }
  if (own(def, 'items')) {
    if (type !== undefined && type !== 'list') issues.add([...path, 'items'], `only allowed on a list field, not ${type}`);
    const items = checkField(issues, def.items, [...path, 'items'], true);
    if (items) spec.items = items;
  }
  return type ? spec : undefined;
}

const isFieldType = (name: string): name is FieldType => FIELD_TYPES.some((t) => t === name);

function checkType(issues: IssueList, name: string, path: PathSegment[]): FieldType | undefined {
  if (isFieldType(name)) return name;
  issues.add(path, `unknown type "${name}"; expected one of ${list(FIELD_TYPES)}`);
  return undefined;
}

/** fields-1's `minimum` and `maximum`: only on a number input, on a board that offers the profile, the least not above the most. */
function checkBounds(issues: IssueList, def: Obj, spec: FieldSpec, path: PathSegment[], offer: Offer | undefined): void {
  const given = BOUND_KEYS.filter((k) => own(def, k));
  for (const k of given) {
    const at = [...path, k];
    const v = def[k];
    if (!offer) issues.add(at, "only a process input may have a bound (fields-1), not a step's output");
    else if (!offer.profiles.has('fields-1')) issues.add(at, 'needs profile fields-1, not enabled');
    else if (spec.type !== 'number') issues.add(at, `only allowed on a number field, not ${spec.type}`);
    else if (!isNum(v)) issues.add(at, 'expected a number');
    else spec[k] = v;
  }
  if (spec.minimum !== undefined && spec.maximum !== undefined && spec.minimum > spec.maximum) {
    issues.add([...path, 'minimum'], `${spec.minimum} is above the maximum, ${spec.maximum}`);
  }
  spec.oneOf?.forEach((o, i) => {
    if (typeof o === 'number' && !withinBounds(spec, o)) issues.add([...path, 'one_of', i], `${o} is outside the field's bounds`);
  });
}

function withinBounds(spec: FieldSpec, n: number): boolean {
  return (spec.minimum === undefined || n >= spec.minimum) && (spec.maximum === undefined || n <= spec.maximum);
}

/**
 * Inputs as the process file writes them, less fields-1's bounds: what `list_processes` shows, whose
 * field objects are closed to keys of the core (docs/profile-fields-1.md "What a client sees").
 */
export function coreInputs(raw: unknown): Record<string, unknown> {
  if (!isObj(raw)) return {};
  const out: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(raw)) {
    const core = isObj(def) && BOUND_KEYS.some((k) => own(def, k)) ? Object.fromEntries(Object.entries(def).filter(([k]) => !BOUND_KEYS.some((b) => b === k))) : def;
    Object.defineProperty(out, name, { value: core, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

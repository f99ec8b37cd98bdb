/** Field declarations (docs/processes.md "Fields and values"): the `inputs` of a process and the `output` of a step. */
import type { IssueList, PathSegment } from '../../core/issues.js';
import { FIELD_NAME_PATTERN, FIELD_TYPES, type FieldSpec, type FieldType, type Fields, type Scalar } from '../model.js';
import { expectedText, hasType } from '../values.js';
import { isObj, list, own, unknownKeys } from './raw.js';

const FIELD_KEYS = ['type', 'description', 'optional', 'one_of', 'items'];

export function checkFields(issues: IssueList, value: unknown, path: PathSegment[]): Fields {
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
  unknownKeys(issues, def, FIELD_KEYS, path);
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

function checkType(issues: IssueList, name: string, path: PathSegment[]): FieldType | undefined {
  if ((FIELD_TYPES as readonly string[]).includes(name)) return name as FieldType;
  issues.add(path, `unknown type "${name}"; expected one of ${list(FIELD_TYPES)}`);
  return undefined;
}

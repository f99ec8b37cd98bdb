/**
 * Between HTML forms and tool arguments, pure: the declared fields as a work
 * item or `list_processes` gives them, the form names each field's inputs
 * use, the values a posted form carries for them, and which field each of a
 * refusal's issues belongs to. No value is judged here: what a person typed
 * goes to the service as close to typed as it can be, and the service's own
 * `not_accepted` issues say what is wrong.
 */
import { parsePairs } from '../core/pairs.js';
import type { FieldType } from '../process/model.js';
import { instantOf } from '../words/index.js';

export interface WebField {
  name: string;
  type: FieldType;
  description?: string;
  optional: boolean;
  oneOf?: (string | number | boolean)[];
  items?: WebField;
  /** fields-1's bounds on a number input, said beside its label (docs/profile-fields-1.md "What a person sees"). */
  minimum?: number;
  maximum?: number;
}

/** A field as a published process declares it, already checked by process/validate/fields.ts: a known type name, scalar `one_of` values. */
type RawField = FieldType | { type?: FieldType; description?: string; optional?: boolean; one_of?: (string | number | boolean)[]; items?: RawField; minimum?: unknown; maximum?: unknown };

function one(name: string, raw: RawField): WebField {
  if (typeof raw === 'string') return { name, type: raw, optional: false };
  return {
    name,
    type: raw.type ?? 'string',
    optional: raw.optional === true,
    ...(raw.description !== undefined ? { description: raw.description } : {}),
    ...(Array.isArray(raw.one_of) ? { oneOf: raw.one_of } : {}),
    ...(raw.items !== undefined ? { items: one('item', raw.items) } : {}),
    ...(typeof raw.minimum === 'number' ? { minimum: raw.minimum } : {}),
    ...(typeof raw.maximum === 'number' ? { maximum: raw.maximum } : {}),
  };
}

/** Fields as a work item's `output` or a process's `inputs` write them (a type name, or an object). */
export function webFields(raw: Record<string, unknown> | null | undefined): WebField[] {
  return Object.entries(raw ?? {}).map(([name, r]) => one(name, r as RawField));
}

/** A posted form: every name with its values in order, as URLSearchParams or busboy give them. */
export type Posted = Map<string, string[]>;

export function first(p: Posted, name: string): string | undefined {
  return p.get(name)?.[0];
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** One input's text as the value it stands for; undefined when left empty. A datetime is read off a clock in `timeZone`, the board's. */
export function scalarValue(f: WebField, text: string | undefined, timeZone: string): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  const t = f.type === 'string' ? text : text.trim();
  if (f.oneOf) {
    // Choices carry their value as JSON, so a number stays a number.
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return t;
    }
  }
  switch (f.type) {
    case 'number':
      return NUMBER.test(t) ? Number(t) : t;
    case 'boolean':
      return t === 'true' ? true : t === 'false' ? false : t;
    case 'datetime':
      // A datetime-local input has no offset: the form names the board's zone, and the time is read in it.
      return instantOf(t, timeZone) ?? t;
    case 'object':
    case 'list':
      try {
        return JSON.parse(t) as unknown;
      } catch {
        return t;
      }
    default:
      return t;
  }
}

/** The value of one field from the form, under `prefix.<name>`; undefined when nothing was entered. */
export function fieldValue(f: WebField, p: Posted, prefix: string, timeZone: string): unknown {
  const base = `${prefix}.${f.name}`;
  if (f.type === 'list') {
    const item = f.items ?? { name: 'item', type: 'string' as const, optional: false };
    const rows = (p.get(base) ?? []).map((t) => scalarValue(item, t, timeZone)).filter((v) => v !== undefined);
    return rows.length > 0 ? rows : undefined;
  }
  if (f.type === 'object') {
    const keys = p.get(`${base}.key`) ?? [];
    const values = p.get(`${base}.value`) ?? [];
    const out: Record<string, unknown> = {};
    keys.forEach((k, i) => {
      const key = k.trim();
      if (key === '') return;
      const v = values[i] ?? '';
      out[key] = scalarValue({ name: key, type: 'object', optional: true }, v, timeZone) ?? '';
    });
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return scalarValue(f, first(p, base), timeZone);
}

/** Every field's value, leaving out what was not entered (the service names what is missing). */
export function valuesFrom(fields: WebField[], p: Posted, prefix: string, timeZone: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = fieldValue(f, p, prefix, timeZone);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}

/**
 * A refusal's issues by the form part they belong to: `output.amount: …` to
 * `output.amount`, `inputs.x[2]: …` to `inputs.x`, `note: …` to `note`;
 * anything else to `''` (shown at the top of the form).
 */
export function issuesByField(issues: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const issue of issues) {
    const m = /^((?:output|inputs)\.[A-Za-z][A-Za-z0-9_-]*|evidence|next|reason|note|summary|decision)\b/.exec(issue);
    const key = m ? m[1]! : '';
    out.set(key, [...(out.get(key) ?? []), issue]);
  }
  return out;
}

/** What a form shows again after a refusal: the values as posted, by input name. */
export function echo(p: Posted, name: string): string[] {
  return p.get(name) ?? [];
}

/**
 * The `key=value` lines of a run filter as list_runs `inputs`: a value is
 * read as JSON when it parses (numbers, booleans, lists), else as text, as
 * `workboard runs --input` reads it. Every malformed line is named at once.
 */
export function inputFilter(text: string): { inputs: Record<string, unknown>; issues: string[] } {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const { values, bad } = parsePairs(lines.map((l) => l.replace(/\s*=\s*/, '=')));
  return { inputs: values, issues: bad.map((l) => `Started with: "${l}" is not a field and its value, such as payee = Sam`) };
}

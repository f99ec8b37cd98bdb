/**
 * Inputs generated from declared fields: text, number, yes/no, date,
 * datetime (a clock time in the board's zone, named in the label), `one_of` as a choice, `person` as a choice of the board's
 * people, lists as repeatable rows, objects as groups of key and value rows.
 * Each input is labelled, shows the value posted before and the issues the
 * service found at it. Names follow form-values.ts.
 */
import type { ComponentChildren } from 'preact';
import { fieldLabel, humanize, isLinkField, zoneWords } from '../../words/index.js';
import type { WebField, Posted } from '../form-values.js';
import { IssueList } from './parts.js';

/** The field's label in words: its description's first sentence, else its key humanised. */
const labelOf = (f: WebField): string => fieldLabel(f.name, f);

/** The description under the label, when it says more than the label does. */
const extra = (f: WebField): string | undefined => (f.description && f.description.trim().replace(/\.$/, '') !== labelOf(f) ? f.description : undefined);

export interface FieldContext {
  prefix: 'output' | 'inputs';
  posted: Posted;
  issues: Map<string, string[]>;
  people: { email: string; name?: string }[];
  /** The board's zone (WORK.md `notifications.timeZone`): date-times are typed and read as its clocks show them. */
  timeZone: string;
  /** The list or object (by input name) to show one more row for: the no-script "add a row" button. */
  addRow?: string;
}

const idFor = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** The service's issues at a field, said under the field's label rather than its key ("Legal name: missing"). */
function Issues({ id, list, label }: { id: string; list: string[] | undefined; label: string }) {
  return <IssueList id={`${id}-issues`} list={list?.map((i) => i.replace(/^(?:output|inputs)\.[A-Za-z][A-Za-z0-9_-]*/, label))} />;
}

function described(id: string, f: WebField, hasIssues: boolean): string | undefined {
  const ids = [extra(f) ? `${id}-desc` : '', hasIssues ? `${id}-issues` : ''].filter(Boolean).join(' ');
  return ids || undefined;
}

/** One input for a scalar value. */
function Scalar({ f, name, id, value, ctx, label, describedBy }: { f: WebField; name: string; id: string; value: string; ctx: FieldContext; label: string; describedBy?: string }) {
  const common = { id, name, 'aria-describedby': describedBy, 'aria-required': f.optional ? undefined : ('true' as const) };
  if (f.oneOf) {
    return (
      <>
        <label for={id}>{label}</label>
        <select {...common}>
          <option value="">choose…</option>
          {f.oneOf.map((o) => (
            <option key={String(o)} value={JSON.stringify(o)} selected={value === JSON.stringify(o)}>
              {typeof o === 'string' ? humanize(o) : String(o)}
            </option>
          ))}
        </select>
      </>
    );
  }
  if (f.type === 'person') {
    return (
      <>
        <label for={id}>{label}</label>
        <select {...common}>
          <option value="">choose a person…</option>
          {ctx.people.map((p) => (
            <option key={p.email} value={p.email} selected={value === p.email}>
              {p.name ? `${p.name} (${p.email})` : p.email}
            </option>
          ))}
        </select>
      </>
    );
  }
  if (f.type === 'boolean') {
    return (
      <fieldset class="choice" aria-describedby={describedBy}>
        <legend>{label}</legend>
        <label>
          <input type="radio" name={name} value="true" checked={value === 'true'} /> Yes
        </label>
        <label>
          <input type="radio" name={name} value="false" checked={value === 'false'} /> No
        </label>
      </fieldset>
    );
  }
  const type = f.type === 'number' ? 'number' : f.type === 'date' ? 'date' : f.type === 'datetime' ? 'datetime-local' : 'text';
  return (
    <>
      <label for={id}>
        {label}
        {f.type === 'datetime' ? ` (${zoneWords(ctx.timeZone)})` : ''}
        {boundWords(f)}
      </label>
      {f.type === 'string' && isLinkField(f.name, f.description) ? (
        <input {...common} type="text" inputmode="url" autocomplete="url" spellcheck={false} value={value} />
      ) : f.type === 'string' ? (
        <textarea {...common} rows={2}>
          {value}
        </textarea>
      ) : (
        <input {...common} type={type} value={value} step={f.type === 'number' ? 'any' : f.type === 'datetime' ? 1 : undefined} />
      )}
    </>
  );
}

/** A number input's bounds in words, after its label: " (at least 0.01)", " (at most 100)", " (from 1 to 5)". */
function boundWords(f: WebField): string {
  const { minimum: lo, maximum: hi } = f;
  if (lo !== undefined && hi !== undefined) return ` (from ${lo} to ${hi})`;
  if (lo !== undefined) return ` (at least ${lo})`;
  return hi !== undefined ? ` (at most ${hi})` : '';
}

/** A list or an object field, named `base` in the form and `id` on the page. */
interface RepeatProps {
  f: WebField;
  ctx: FieldContext;
  base: string;
  id: string;
}

/** A list or an object: a fieldset of rows, one more when "Add a row" was pressed, with the field's issues under it. */
function RepeatField({ f, ctx, base, id, kind, rows, row }: RepeatProps & { kind: 'list' | 'object'; rows: number; row: (i: number) => ComponentChildren }) {
  const list = ctx.issues.get(`${ctx.prefix}.${f.name}`);
  return (
    <fieldset class={kind} data-repeat={base} aria-describedby={described(id, f, !!list)}>
      <legend>
        {labelOf(f)}
        {f.optional ? ' (optional)' : ''}
      </legend>
      {extra(f) ? (
        <p class="desc" id={`${id}-desc`}>
          {extra(f)}
        </p>
      ) : null}
      <ol class="rows">{Array.from({ length: Math.max(rows, 1) + (ctx.addRow === base ? 1 : 0) }, (_, i) => row(i))}</ol>
      <button type="submit" name="_add" value={base} formnovalidate class="add-row">
        Add a row to {labelOf(f)}
      </button>
      <Issues id={id} list={list} label={labelOf(f)} />
    </fieldset>
  );
}

function ListField(props: RepeatProps) {
  const { f, ctx, base, id } = props;
  const item: WebField = f.items ?? { name: 'item', type: 'string', optional: false };
  const values = ctx.posted.get(base) ?? [];
  return (
    <RepeatField
      {...props}
      kind="list"
      rows={values.length}
      row={(i) => (
        <li key={i} class="row">
          <Scalar f={item} name={base} id={`${id}-${i}`} value={values[i] ?? ''} ctx={ctx} label={`${labelOf(f)} ${i + 1}`} />
        </li>
      )}
    />
  );
}

function ObjectField(props: RepeatProps) {
  const { f, base, id, ctx } = props;
  const keys = ctx.posted.get(`${base}.key`) ?? [];
  const values = ctx.posted.get(`${base}.value`) ?? [];
  return (
    <RepeatField
      {...props}
      kind="object"
      rows={keys.length}
      row={(i) => (
        <li key={i} class="row pair">
          <label for={`${id}-k${i}`}>
            {labelOf(f)}: name {i + 1}
          </label>
          <input type="text" id={`${id}-k${i}`} name={`${base}.key`} value={keys[i] ?? ''} />
          <label for={`${id}-v${i}`}>
            {labelOf(f)}: value {i + 1}
          </label>
          <input type="text" id={`${id}-v${i}`} name={`${base}.value`} value={values[i] ?? ''} />
        </li>
      )}
    />
  );
}

export function Field({ f, ctx }: { f: WebField; ctx: FieldContext }) {
  const base = `${ctx.prefix}.${f.name}`;
  const id = idFor(base);
  if (f.type === 'list')
    return (
      <div class="field">
        <ListField f={f} ctx={ctx} base={base} id={id} />
      </div>
    );
  if (f.type === 'object')
    return (
      <div class="field">
        <ObjectField f={f} ctx={ctx} base={base} id={id} />
      </div>
    );
  const list = ctx.issues.get(base);
  return (
    <div class={`field${list ? ' has-issues' : ''}`}>
      <Scalar f={f} name={base} id={id} value={ctx.posted.get(base)?.[0] ?? ''} ctx={ctx} label={`${labelOf(f)}${f.optional ? ' (optional)' : ''}`} describedBy={described(id, f, !!list)} />
      {extra(f) ? (
        <p class="desc" id={`${id}-desc`}>
          {extra(f)}
        </p>
      ) : null}
      <Issues id={id} list={list} label={labelOf(f)} />
    </div>
  );
}

export function Fields({ fields, ctx }: { fields: WebField[]; ctx: FieldContext }) {
  return (
    <>
      {fields.map((f) => (
        <Field key={f.name} f={f} ctx={ctx} />
      ))}
    </>
  );
}

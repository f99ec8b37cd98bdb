/** Small pieces every page shares: markdown, times, values, run inputs, a step's recorded work, evidence, notices, filters. */
import type { ComponentChildren } from 'preact';
import type { Fields, Process, Step } from '../../process/model.js';
import { fieldLabel, humanize, linkHref, processTitle, stepTitleOf } from '../../words/index.js';
import { markdownHtml } from '../markdown.js';
import type { Completion, Evidence, RunView, StepData } from '../views.js';
import { FieldValue, OutLink, Person, When } from './words.js';

export function Markdown({ text }: { text: string }) {
  return <div class="md" dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;
}

export { When } from './words.js';

/** A process's name for people, when its pinned version could be read. */
export const processName = (process: Process | null | undefined, name: string): string => (process ? processTitle(process) : humanize(name));

/** flow-1: other runs a page names (blockers, parent, children) by id, with their titles in words; `onBoard` false for one not on this board. */
export type RunTitles = ReadonlyMap<string, { title: string; onBoard: boolean }>;

/** A value that is a list of runs the page knows (a blocked_by input), each by its title, linked; null for any other value. */
function RunsValue({ value, runs }: { value: unknown; runs: RunTitles | undefined }) {
  if (!runs || !Array.isArray(value) || value.length === 0) return null;
  const known = value.flatMap((id) => {
    const r = typeof id === 'string' ? runs.get(id) : undefined;
    return r ? [{ id: String(id), ...r }] : [];
  });
  if (known.length !== value.length) return null;
  return (
    <ul class="run-links">
      {known.map((r) => (
        <li key={r.id}>{r.onBoard ? <a href={`/runs/${r.id}`}>{r.title}</a> : r.title}</li>
      ))}
    </ul>
  );
}

/** Values under their fields' labels, each formatted through its declaration; a list of runs the page knows by their titles. */
export function Pairs({ values, fields, runs }: { values: Record<string, unknown>; fields?: Fields | undefined; runs?: RunTitles | undefined }) {
  const keys = Object.keys(values);
  if (keys.length === 0) return <p class="muted">none</p>;
  return (
    <dl class="pairs">
      {keys.map((k) => (
        <div key={k}>
          <dt>{fieldLabel(k, fields?.[k])}</dt>
          <dd>{RunsValue({ value: values[k], runs }) ?? <FieldValue field={fields?.[k]} value={values[k]} />}</dd>
        </div>
      ))}
    </dl>
  );
}

export function EvidenceList({ runId, items }: { runId: string; items: Evidence[] }) {
  if (items.length === 0) return null;
  return (
    <ul class="evidence">
      {items.map((e) => {
        const href = e.kind === 'link' ? linkHref(e.ref) : null;
        return (
          <li key={e.ref}>
            {e.kind === 'file' ? (
              <a href={`/runs/${runId}/files/${e.ref}`} download>
                Download the file <span class="muted">{e.ref}</span>
              </a>
            ) : href !== null ? (
              <OutLink href={href}>{e.ref}</OutLink>
            ) : (
              <span class="link-text">{e.ref}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** What a decision was, as a word. */
export const DECISION_DONE: Record<string, string> = { completed: 'Completed', approved: 'Approved', rejected: 'Rejected', returned: 'Returned', failed: 'Failed' };

function CompletionView({ runId, c, step, process }: { runId: string; c: Completion; step: Step | undefined; process: Process | null | undefined }) {
  return (
    <div class="completion">
      <p class="by">
        {c.decision ? <strong>{DECISION_DONE[c.decision] ?? humanize(c.decision)}</strong> : null}
        {c.decision ? ' ' : null}
        {c.by ? (
          <>
            by <Person email={c.by} />
          </>
        ) : null}{' '}
        {c.at ? <When at={c.at} /> : null}
      </p>
      {c.note ? <blockquote class="note">{c.note}</blockquote> : null}
      {c.summary ? <p class="summary">{c.summary}</p> : null}
      {c.output ? <Pairs values={c.output} fields={step?.output} /> : null}
      {c.next ? <p class="route">Next: {stepTitleOf(process, c.next)}</p> : null}
      {c.next && c.reason ? <p class="route">Why: {c.reason}</p> : null}
      {c.evidence ? <EvidenceList runId={runId} items={c.evidence} /> : null}
    </div>
  );
}

/**
 * A step's current work and its earlier attempts. `earlier` is for the step a person decides now: what it
 * recorded before (a rejection and its note) is an earlier round, every one shown, latest first.
 */
export function StepRecord({ runId, id, data, process, earlier = false }: { runId: string; id: string; data: StepData; process?: Process | null | undefined; earlier?: boolean }) {
  const { history = [], ...current } = data;
  const has = Object.keys(current).length > 0;
  const step = process?.steps.find((s) => s.id === id);
  if (earlier) {
    // Only a completion (who and when) is a round: a verdict waiting on this very decision is not.
    const rounds = [...(current.by ? [current] : []), ...history];
    if (rounds.length === 0) return null;
    return (
      <section class="step-record" aria-labelledby={`rec-${id}`}>
        <h3 id={`rec-${id}`}>{stepTitleOf(process, id)} (earlier rounds)</h3>
        {rounds.map((c, i) => (
          <CompletionView key={i} runId={runId} c={c} step={step} process={process} />
        ))}
      </section>
    );
  }
  return (
    <section class="step-record" aria-labelledby={`rec-${id}`}>
      <h3 id={`rec-${id}`}>{stepTitleOf(process, id)}</h3>
      {has ? <CompletionView runId={runId} c={current} step={step} process={process} /> : <p class="muted">not done in this attempt</p>}
      {history.length > 0 ? (
        <details>
          <summary>
            {history.length} earlier {history.length === 1 ? 'attempt' : 'attempts'}
          </summary>
          {history.map((h, i) => (
            <CompletionView key={i} runId={runId} c={h} step={step} process={process} />
          ))}
        </details>
      ) : null}
    </section>
  );
}

/** The run's inputs and every step's recorded work, in the process's step order; the step `except` (decided now) as its earlier rounds. */
export function RunDataView({
  view,
  except,
  process,
  heading = 'Earlier steps',
  runs,
}: {
  view: RunView;
  except?: string;
  process?: Process | null | undefined;
  heading?: string;
  runs?: RunTitles | undefined;
}) {
  const order = view.steps.map((s) => s.id).filter((id) => view.data.steps[id]);
  return (
    <>
      <section aria-labelledby="steps-h">
        <h2 id="steps-h">{heading}</h2>
        {order.length === 0 ? (
          <p class="muted">No step has recorded work yet.</p>
        ) : (
          order.map((id) => <StepRecord key={id} runId={view.run.id} id={id} data={view.data.steps[id]!} process={process} earlier={id === except} />)
        )}
      </section>
      <section aria-labelledby="inputs-h">
        <h2 id="inputs-h">What the run started with</h2>
        <Pairs values={view.data.inputs} fields={process?.inputs} runs={runs} />
      </section>
    </>
  );
}

export function Notice({ kind, title, children }: { kind: 'info' | 'warn' | 'error' | 'ok'; title: string; children?: ComponentChildren }) {
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <p class="notice-title">
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}

/** Problems a person must fix, one per line, under the field or form they are about; nothing when there are none. */
export function IssueList({ id, list }: { id?: string; list: readonly string[] | undefined }) {
  return list?.length ? (
    <ul class="field-issues" id={id}>
      {list.map((i) => (
        <li key={i}>{i}</li>
      ))}
    </ul>
  ) : null;
}

/** A text area with its label and, under it, its issues (the field marked while it has any). */
export function TextField({ id, name, label, rows, value, issues }: { id: string; name: string; label: string; rows: number; value: string; issues: readonly string[] | undefined }) {
  const has = !!issues?.length;
  return (
    <div class={`field${has ? ' has-issues' : ''}`}>
      <label for={id}>{label}</label>
      <textarea id={id} name={name} rows={rows} aria-describedby={has ? `${id}-issues` : undefined}>
        {value}
      </textarea>
      <IssueList id={`${id}-issues`} list={issues} />
    </div>
  );
}

export function TestBanner() {
  return <p class="test-banner">Test run: nothing it does is real.</p>;
}

/** A list filter: a labelled choice of values, the first option meaning no filter. */
export function FilterSelect({ label, name, any, options, selected }: { label: string; name: string; any: string; options: { value: string; text: string }[]; selected: string | undefined }) {
  return (
    <label>
      {label}
      <select name={name}>
        <option value="">{any}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value} selected={selected === o.value}>
            {o.text}
          </option>
        ))}
      </select>
    </label>
  );
}

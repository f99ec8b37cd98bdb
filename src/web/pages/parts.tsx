/** Small pieces every page shares: markdown, times, values, run inputs, a step's recorded work, evidence, notices, filters. */
import type { ComponentChildren } from 'preact';
import { linkHref } from '../links.js';
import { markdownHtml } from '../markdown.js';
import type { Completion, Evidence, RunView, StepData } from '../views.js';

export function Markdown({ text }: { text: string }) {
  return <div class="md" dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span>–</span>;
  return <time datetime={at}>{at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>;
}

export function Value({ v }: { v: unknown }) {
  if (v === null || v === undefined) return <span class="muted">–</span>;
  if (typeof v === 'boolean') return <span>{v ? 'yes' : 'no'}</span>;
  if (typeof v === 'string' || typeof v === 'number') return <span>{String(v)}</span>;
  if (Array.isArray(v)) {
    return (
      <ul class="values">
        {v.map((x, i) => <li key={i}><Value v={x} /></li>)}
      </ul>
    );
  }
  return <Pairs values={v as Record<string, unknown>} />;
}

export function Pairs({ values }: { values: Record<string, unknown> }) {
  const keys = Object.keys(values);
  if (keys.length === 0) return <p class="muted">none</p>;
  return (
    <dl class="pairs">
      {keys.map((k) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd><Value v={values[k]} /></dd>
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
              <a href={`/runs/${runId}/files/${e.ref}`} download>file {e.ref}</a>
            ) : href !== null ? (
              <a href={href} rel="noopener noreferrer">{e.ref}</a>
            ) : (
              <span class="link-text">{e.ref}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function CompletionView({ runId, c }: { runId: string; c: Completion }) {
  return (
    <div class="completion">
      <p class="by">
        {c.decision ? <strong>{c.decision}</strong> : null}
        {c.decision ? ' ' : null}
        {c.by ? <>by {c.by}</> : null} {c.at ? <>at <When at={c.at} /></> : null}
      </p>
      {c.note ? <blockquote class="note">{c.note}</blockquote> : null}
      {c.summary ? <p class="summary">{c.summary}</p> : null}
      {c.output ? <Pairs values={c.output} /> : null}
      {c.next ? <p>Next: <strong>{c.next}</strong>{c.reason ? <> because {c.reason}</> : null}</p> : null}
      {c.evidence ? <EvidenceList runId={runId} items={c.evidence} /> : null}
    </div>
  );
}

/** A step's current work and its earlier attempts. */
export function StepRecord({ runId, id, data }: { runId: string; id: string; data: StepData }) {
  const { history = [], ...current } = data;
  const has = Object.keys(current).length > 0;
  return (
    <section class="step-record" aria-labelledby={`rec-${id}`}>
      <h3 id={`rec-${id}`}>{id}</h3>
      {has ? <CompletionView runId={runId} c={current} /> : <p class="muted">not done in this attempt</p>}
      {history.length > 0 ? (
        <details>
          <summary>{history.length} earlier {history.length === 1 ? 'attempt' : 'attempts'}</summary>
          {history.map((h, i) => <CompletionView key={i} runId={runId} c={h} />)}
        </details>
      ) : null}
    </section>
  );
}

/** The run's inputs and every step's recorded work, in the process's step order. */
export function RunDataView({ view, except }: { view: RunView; except?: string }) {
  const order = view.steps.map((s) => s.id).filter((id) => id !== except && view.data.steps[id]);
  return (
    <>
      <section aria-labelledby="inputs-h">
        <h2 id="inputs-h">Inputs</h2>
        <Pairs values={view.data.inputs} />
      </section>
      <section aria-labelledby="steps-h">
        <h2 id="steps-h">Earlier steps</h2>
        {order.length === 0 ? <p class="muted">No step has recorded work yet.</p> : order.map((id) => <StepRecord key={id} runId={view.run.id} id={id} data={view.data.steps[id]!} />)}
      </section>
    </>
  );
}

export function Notice({ kind, title, children }: { kind: 'info' | 'warn' | 'error' | 'ok'; title: string; children?: ComponentChildren }) {
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <p class="notice-title"><strong>{title}</strong></p>
      {children}
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

/**
 * A work item: everything needed to decide without leaving the page (the
 * step's text, what was returned or escalated, the run's inputs and every
 * earlier step's work, the map, the process body), and the decide form
 * generated from the item: output fields, evidence, routes, a note, one
 * button per allowed decision. The form carries the snapshot of the data
 * shown and a fresh requestId.
 */
import { Layout, type Frame } from './layout.js';
import { Fields, type FieldContext } from './fields.js';
import { Markdown, Notice, RunDataView, TestBanner, When } from './parts.js';
import { webFields } from '../form-values.js';
import type { RunView, WorkItem } from '../views.js';

export const DECISION_LABELS: Record<string, string> = {
  completed: 'Complete',
  approved: 'Approve',
  rejected: 'Reject',
  returned: 'Return to the agent',
  failed: 'Fail the run',
};

export interface Change {
  path: string;
  before: string;
  after: string;
}

export interface WorkItemProps {
  frame: Frame;
  view: RunView;
  item: WorkItem;
  title: string;
  requestId: string;
  ctx: FieldContext;
  problem?: { kind: 'error' | 'warn'; title: string; text: string };
  changes?: Change[] | null;
  /** Files uploaded by an earlier try of this form, kept attached. */
  kept: { ref: string; name: string }[];
  map: string | null;
}

function Handoff({ item }: { item: WorkItem }) {
  const h = item.handoff;
  const e = item.escalation;
  return (
    <>
      {h?.returned ? (
        <Notice kind="warn" title={`Returned by ${h.returned.by}`}>
          <p>{h.returned.note}</p>
          <p class="meta"><When at={h.returned.at} /></p>
        </Notice>
      ) : null}
      {h?.issues?.length ? (
        <Notice kind="warn" title="The last submission was not accepted">
          <ul>{h.issues.map((i) => <li key={i}>{i}</li>)}</ul>
        </Notice>
      ) : null}
      {e ? (
        <Notice kind="warn" title={`Escalated by ${e.by}`}>
          <p>{e.note}</p>
          <p class="meta"><When at={e.at} /></p>
          {e.candidate ? <p>A submission is held: completing without output uses it.</p> : null}
        </Notice>
      ) : null}
    </>
  );
}

function Changes({ changes }: { changes: Change[] | null }) {
  return (
    <Notice kind="warn" title="The run changed since you opened this page">
      {changes && changes.length > 0 ? (
        <table class="changes">
          <caption>What changed</caption>
          <thead><tr><th scope="col">Where</th><th scope="col">Before</th><th scope="col">Now</th></tr></thead>
          <tbody>{changes.map((c) => <tr key={c.path}><th scope="row">{c.path}</th><td>{c.before}</td><td>{c.after}</td></tr>)}</tbody>
        </table>
      ) : (
        <p>The page below shows the run as it is now.</p>
      )}
      <p>Nothing was decided. Check the page again, then decide: your entries are kept. <a href="">Reload the page</a> to start afresh.</p>
    </Notice>
  );
}

function Completion({ item, ctx, kept }: { item: WorkItem; ctx: FieldContext; kept: WorkItemProps['kept'] }) {
  const fields = webFields(item.output);
  const ev = item.evidence ?? [];
  const links = ctx.posted.get('evidence.link') ?? [];
  const evIssues = ctx.issues.get('evidence');
  const nextIssues = [...(ctx.issues.get('next') ?? []), ...(ctx.issues.get('reason') ?? [])];
  const chosen = ctx.posted.get('next')?.[0];
  return (
    <>
      {fields.length > 0 ? (
        <fieldset class="group">
          <legend>Output</legend>
          <Fields fields={fields} ctx={ctx} />
        </fieldset>
      ) : null}
      {ev.length > 0 || kept.length > 0 ? (
        <fieldset class="group" aria-describedby={evIssues ? 'ev-issues' : undefined}>
          <legend>Evidence{ev.length ? ` (required: ${ev.join(', ')})` : ''}</legend>
          {kept.map((k) => (
            <label key={k.ref} class="kept"><input type="checkbox" name="evidence.fileRef" value={`${k.ref}|${k.name}`} checked /> keep {k.name} ({k.ref})</label>
          ))}
          {ev.includes('file') ? (
            <div class="field">
              <label for="f-evidence-file">Files</label>
              <input type="file" id="f-evidence-file" name="evidence.file" multiple />
            </div>
          ) : null}
          {ev.includes('link') ? (
            <div class="field" data-repeat="evidence.link">
              <ol class="rows">
                {Array.from({ length: Math.max(links.length, 1) + (ctx.addRow === 'evidence.link' ? 1 : 0) }, (_, i) => (
                  <li key={i} class="row">
                    <label for={`f-evidence-link-${i}`}>Link {i + 1}</label>
                    <input type="url" id={`f-evidence-link-${i}`} name="evidence.link" value={links[i] ?? ''} />
                  </li>
                ))}
              </ol>
              <button type="submit" name="_add" value="evidence.link" formnovalidate class="add-row">Add a link</button>
            </div>
          ) : null}
          {evIssues ? <ul class="field-issues" id="ev-issues">{evIssues.map((i) => <li key={i}>{i}</li>)}</ul> : null}
        </fieldset>
      ) : null}
      {item.next ? (
        <fieldset class="group" aria-describedby={nextIssues.length ? 'next-issues' : undefined}>
          <legend>Where next</legend>
          {item.next.map((r) => (
            <label key={r.to} class="route">
              <input type="radio" name="next" value={r.to} checked={chosen === r.to} /> <strong>{r.to}</strong>{r.when ? <>: {r.when}</> : null}
            </label>
          ))}
          <label for="f-reason">Why this route</label>
          <textarea id="f-reason" name="reason" rows={2}>{ctx.posted.get('reason')?.[0] ?? ''}</textarea>
          {nextIssues.length ? <ul class="field-issues" id="next-issues">{nextIssues.map((i) => <li key={i}>{i}</li>)}</ul> : null}
        </fieldset>
      ) : null}
      <div class="field">
        <label for="f-summary">Summary (optional): what you did and found</label>
        <textarea id="f-summary" name="summary" rows={3}>{ctx.posted.get('summary')?.[0] ?? ''}</textarea>
      </div>
    </>
  );
}

export function DecideForm({ p }: { p: WorkItemProps }) {
  const { item, ctx } = p;
  const decisions = item.decide.decisions;
  const needsNote = decisions.some((d) => d !== 'completed' && d !== 'approved');
  const noteIssues = ctx.issues.get('note');
  const top = [...(ctx.issues.get('') ?? []), ...(ctx.issues.get('decision') ?? [])];
  return (
    <form method="post" action={`/work/${p.view.run.id}/${item.id}`} enctype="multipart/form-data" class="decide" aria-labelledby="decide-h">
      <h2 id="decide-h">Decide</h2>
      {top.length ? <ul class="field-issues">{top.map((i) => <li key={i}>{i}</li>)}</ul> : null}
      <input type="hidden" name="csrf" value={p.frame.me!.csrf} />
      <input type="hidden" name="snapshot" value={item.snapshot} />
      <input type="hidden" name="stepId" value={item.stepId} />
      <input type="hidden" name="requestId" value={p.requestId} />
      {decisions.includes('completed') ? <Completion item={item} ctx={ctx} kept={p.kept} /> : null}
      {needsNote ? (
        <div class={`field${noteIssues ? ' has-issues' : ''}`}>
          <label for="f-note">Note (required to {decisions.filter((d) => d !== 'completed' && d !== 'approved').map((d) => DECISION_LABELS[d]!.toLowerCase()).join(' or ')})</label>
          <textarea id="f-note" name="note" rows={3} aria-describedby={noteIssues ? 'f-note-issues' : undefined}>{ctx.posted.get('note')?.[0] ?? ''}</textarea>
          {noteIssues ? <ul class="field-issues" id="f-note-issues">{noteIssues.map((i) => <li key={i}>{i}</li>)}</ul> : null}
        </div>
      ) : null}
      <div class="buttons">
        {decisions.map((d) => (
          <button key={d} type="submit" name="decision" value={d} class={d === 'approved' || d === 'completed' ? 'primary' : d === 'failed' ? 'danger' : ''}>
            {DECISION_LABELS[d] ?? d}
          </button>
        ))}
      </div>
    </form>
  );
}

export function WorkItemPage(p: WorkItemProps) {
  const { view, item } = p;
  const step = view.steps.find((s) => s.id === item.stepId);
  return (
    <Layout frame={p.frame}>
      <p class="crumbs"><a href="/work">My work</a> › <a href={`/runs/${view.run.id}`}>run {view.run.id}</a></p>
      <h1>{p.title}: {item.stepId}</h1>
      {view.run.mode === 'test' ? <TestBanner /> : null}
      <p class="meta">
        {item.escalation ? 'Escalated ' : ''}{item.kind} · due <When at={item.due} />
        {step?.overdue ? <strong class="overdue-tag"> overdue</strong> : null}
      </p>
      {p.problem ? <Notice kind={p.problem.kind} title={p.problem.title}><p>{p.problem.text}</p></Notice> : null}
      {p.changes !== undefined ? <Changes changes={p.changes} /> : null}
      <section aria-labelledby="todo-h" class="todo">
        <h2 id="todo-h">What to do</h2>
        <Markdown text={item.text} />
      </section>
      <Handoff item={item} />
      <div class="columns">
        <div class="col-main">
          <DecideForm p={p} />
        </div>
        <div class="col-side">
          <RunDataView view={view} except={item.stepId} />
          {p.map ? (
            <section aria-labelledby="map-h">
              <h2 id="map-h">Where the run is</h2>
              <figure class="map"><img src={p.map} alt={`Map of ${view.run.process}: the run's steps, with where it is now`} /></figure>
            </section>
          ) : null}
          <details class="body">
            <summary>About this process</summary>
            <Markdown text={view.body} />
          </details>
        </div>
      </div>
    </Layout>
  );
}

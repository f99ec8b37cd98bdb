/**
 * A work item, in the order a person reads it on a phone: what to do, what
 * was found (the earlier steps' findings, their work, the run's inputs, the
 * map), then the forms generated from the item: output fields, evidence,
 * routes chosen by their words, a note where one is required. On a wide
 * screen the forms sit beside the context; on a narrow one a bar at the
 * bottom jumps to them. Every form carries the snapshot of the data shown
 * and a fresh requestId.
 */
import type { ComponentChildren } from 'preact';
import { Layout, type Frame } from './layout.js';
import { Fields, type FieldContext } from './fields.js';
import { findings, stepTitleOf } from '../../words/index.js';
import type { Process } from '../../process/model.js';
import { IssueList, Markdown, Notice, RunDataView, TestBanner, TextField, processName } from './parts.js';
import { Findings, ForWhom, kindWord } from './inbox.js';
import { Person, usePageWords, When } from './words.js';
import { Changes, Handoff, type Change } from './work-item-notices.js';
import { webFields } from '../form-values.js';
import type { RunView, WorkItem } from '../views.js';

export const DECISION_LABELS: Record<string, string> = {
  completed: 'Complete',
  approved: 'Approve',
  rejected: 'Reject',
  returned: 'Return to the agent',
  failed: 'Fail the run',
};

/** The reason recorded for a route chosen without one: the spec requires a reason, and the choice's words are one. */
export function routeReason(route: { to: string; when?: string }, process: Process | null): string {
  return route.when?.trim() || `Chosen: ${stepTitleOf(process, route.to)}`;
}

export interface WorkItemProps {
  frame: Frame;
  view: RunView;
  item: WorkItem;
  requestId: string;
  ctx: FieldContext;
  problem?: { kind: 'error' | 'warn'; title: string; text: string };
  changes?: Change[] | null;
  /** Files uploaded by an earlier try of this form, kept attached. */
  kept: { ref: string; name: string }[];
  map: string | null;
  /** The run's pinned version, for words; null when the board cannot read it. */
  process: Process | null;
  /** The run's name in words (runTitle), or its id when the version cannot be read. */
  runName: string;
  /** Where the item stands on its reminder ladder, in words, or null (docs/people.md "Reminders"). */
  ladder?: string | null;
  /** Out of office: the person this item was handed over by, decided for them (docs/people.md "Out of office"). */
  forWhom?: string;
}

/** The routes a task may take, each chosen by its `when` words; the reason the spec requires defaults to them. */
function Routes({ item, ctx, process }: { item: WorkItem; ctx: FieldContext; process: Process | null }) {
  const nextIssues = [...(ctx.issues.get('next') ?? []), ...(ctx.issues.get('reason') ?? [])];
  const chosen = ctx.posted.get('next')?.[0];
  return (
    <fieldset class="group" aria-describedby={nextIssues.length ? 'next-issues' : undefined}>
      <legend>Which way now?</legend>
      {item.next!.map((r) => (
        <label key={r.to} class="route">
          <input type="radio" name="next" value={r.to} checked={chosen === r.to} />
          <span>
            {r.when?.trim() || stepTitleOf(process, r.to)}
            {r.when ? <span class="muted"> · then: {stepTitleOf(process, r.to)}</span> : null}
          </span>
        </label>
      ))}
      <label for="f-reason">Why (optional)</label>
      <p class="desc" id="f-reason-desc">
        A route is recorded with a reason. Left empty, the words of the choice you picked are recorded as the reason.
      </p>
      <textarea id="f-reason" name="reason" rows={2} aria-describedby="f-reason-desc">
        {ctx.posted.get('reason')?.[0] ?? ''}
      </textarea>
      <IssueList id="next-issues" list={nextIssues} />
    </fieldset>
  );
}

function Completion({ item, ctx, kept, process }: { item: WorkItem; ctx: FieldContext; kept: WorkItemProps['kept']; process: Process | null }) {
  const fields = webFields(item.output);
  const ev = item.evidence ?? [];
  const links = ctx.posted.get('evidence.link') ?? [];
  const evIssues = ctx.issues.get('evidence');
  return (
    <>
      {fields.length > 0 ? (
        <fieldset class="group">
          <legend>What you record</legend>
          <Fields fields={fields} ctx={ctx} />
        </fieldset>
      ) : null}
      {ev.length > 0 || kept.length > 0 ? (
        <fieldset class="group" aria-describedby={evIssues ? 'ev-issues' : undefined}>
          <legend>Evidence{ev.length ? ` (required: ${ev.map((k) => (k === 'file' ? 'a file' : 'a link')).join(' and ')})` : ''}</legend>
          {kept.map((k) => (
            <label key={k.ref} class="kept">
              <input type="checkbox" name="evidence.fileRef" value={`${k.ref}|${k.name}`} checked /> keep {k.name}
            </label>
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
              <button type="submit" name="_add" value="evidence.link" formnovalidate class="add-row">
                Add a link
              </button>
            </div>
          ) : null}
          <IssueList id="ev-issues" list={evIssues} />
        </fieldset>
      ) : null}
      {item.next ? <Routes item={item} ctx={ctx} process={process} /> : null}
      <div class="field">
        <label for="f-summary">Summary (optional): what you did and found</label>
        <textarea id="f-summary" name="summary" rows={3}>
          {ctx.posted.get('summary')?.[0] ?? ''}
        </textarea>
      </div>
    </>
  );
}

/** One form of the page: the hidden parts every decision carries, a heading, its body and its buttons. */
function DecisionForm({
  p,
  id,
  heading,
  buttons,
  children,
}: {
  p: WorkItemProps;
  id: string;
  heading: string;
  buttons: { decision: string; label: string; kind?: 'primary' | 'danger' }[];
  children?: ComponentChildren;
}) {
  const { item, ctx } = p;
  const posted = ctx.posted.get('decision')?.[0];
  const mine = buttons.some((b) => b.decision === posted);
  const top = mine || (!posted && id === 'decide') ? [...(ctx.issues.get('') ?? []), ...(ctx.issues.get('decision') ?? [])] : [];
  return (
    <form method="post" action={`/work/${p.view.run.id}/${item.id}`} enctype="multipart/form-data" class="decide" id={id} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{heading}</h2>
      <IssueList id={`${id}-issues`} list={top} />
      <input type="hidden" name="csrf" value={p.frame.me!.csrf} />
      <input type="hidden" name="snapshot" value={item.snapshot} />
      <input type="hidden" name="stepId" value={item.stepId} />
      <input type="hidden" name="requestId" value={p.requestId} />
      {children}
      <div class="buttons">
        {buttons.map((b) => (
          <button key={b.decision} type="submit" name="decision" value={b.decision} class={b.kind ?? ''}>
            {b.label}
          </button>
        ))}
      </div>
    </form>
  );
}

/** A note, required by the decisions it names; its issues shown only in the form that was posted. */
function NoteField({ p, id, label, decisions }: { p: WorkItemProps; id: string; label: string; decisions: string[] }) {
  const posted = p.ctx.posted.get('decision')?.[0];
  const issues = posted && decisions.includes(posted) ? (p.ctx.issues.get('note') ?? []) : [];
  const value = posted && decisions.includes(posted) ? (p.ctx.posted.get('note')?.[0] ?? '') : '';
  return <TextField id={id} name="note" label={label} rows={3} value={value} issues={issues} />;
}

/**
 * The forms for this item: an approval decides in one form (approve, or
 * reject with a note); a task is completed; an escalation is either returned
 * to the agent with a note or completed in the agent's place, two separate
 * forms. Failing the run is a form of its own, folded away.
 */
export function DecideForms({ p }: { p: WorkItemProps }) {
  const { item, ctx } = p;
  const d = item.decide.decisions;
  const forms = [];
  if (d.includes('approved')) {
    forms.push(
      <DecisionForm
        key="decide"
        p={p}
        id="decide"
        heading="Decide"
        buttons={[{ decision: 'approved', label: 'Approve', kind: 'primary' }, ...(d.includes('rejected') ? [{ decision: 'rejected', label: 'Reject' }] : [])]}
      >
        {d.includes('rejected') ? <NoteField p={p} id="f-note" label="Note (required to reject)" decisions={['rejected']} /> : null}
      </DecisionForm>,
    );
  }
  if (d.includes('returned')) {
    forms.push(
      <DecisionForm key="return" p={p} id="return" heading="Return to the agent" buttons={[{ decision: 'returned', label: 'Return to the agent' }]}>
        <p class="desc">The agent gets the step back with your note and tries again.</p>
        <NoteField p={p} id="f-note" label="Note for the agent (required)" decisions={['returned']} />
      </DecisionForm>,
    );
  }
  if (d.includes('completed')) {
    const instead = d.includes('returned');
    forms.push(
      <DecisionForm
        key="complete"
        p={p}
        id="decide"
        heading={instead ? 'Complete in its place' : 'Complete'}
        buttons={[{ decision: 'completed', label: instead ? 'Complete in its place' : 'Complete', kind: 'primary' }]}
      >
        {instead ? <p class="desc">You record every output yourself, and the run goes on without the agent.</p> : null}
        <Completion item={item} ctx={ctx} kept={p.kept} process={p.process} />
      </DecisionForm>,
    );
  }
  if (d.includes('failed')) {
    const open = ctx.posted.get('decision')?.[0] === 'failed';
    forms.push(
      <details key="fail" class="fail" open={open}>
        <summary>This cannot be done: fail the run</summary>
        <DecisionForm p={p} id="fail" heading="Fail the run" buttons={[{ decision: 'failed', label: 'Fail the run', kind: 'danger' }]}>
          <p class="desc">Failing ends the run at once; no later step runs. You are asked to confirm.</p>
          <NoteField p={p} id="f-fail-note" label="Why the run fails (required)" decisions={['failed']} />
        </DecisionForm>
      </details>,
    );
  }
  return <>{forms}</>;
}

/** The words of the sticky bar that jumps to the form on a phone. */
function jumpWords(item: WorkItem): string {
  const d = item.decide.decisions;
  if (d.includes('approved')) return 'Approve or reject';
  if (d.includes('returned')) return 'Return or complete';
  return 'Complete';
}

export function WorkItemPage(p: WorkItemProps) {
  const { view, item, process } = p;
  const { people } = usePageWords();
  const step = view.steps.find((s) => s.id === item.stepId);
  const found = process ? findings(process, view, { people }).filter((f) => f.stepId !== item.stepId) : [];
  return (
    <Layout frame={p.frame}>
      <p class="crumbs">
        <a href="/work">My work</a> › <a href={`/runs/${view.run.id}`}>{p.runName}</a>
      </p>
      <h1>{stepTitleOf(process, item.stepId)}</h1>
      {view.run.mode === 'test' ? <TestBanner /> : null}
      {p.forWhom ? (
        <p class="on-behalf">
          For <Person email={p.forWhom} />, out of office: you decide it in your name, for them
        </p>
      ) : null}
      <p class="meta">
        <span class="kind">{kindWord(item)}</span> in {processName(process, view.run.process)} · for <ForWhom a={item.assignedTo} />
        {item.due ? (
          <>
            {' '}
            · due <When at={item.due} />
          </>
        ) : null}
        {step?.overdue ? <strong class="overdue-tag"> · overdue</strong> : null}
      </p>
      {p.ladder ? <p class="ladder">{p.ladder}</p> : null}
      {p.problem ? (
        <Notice kind={p.problem.kind} title={p.problem.title}>
          <p>{p.problem.text}</p>
        </Notice>
      ) : null}
      {p.changes !== undefined ? <Changes changes={p.changes} /> : null}
      <section aria-labelledby="todo-h" class="todo">
        <h2 id="todo-h">What to do</h2>
        <Markdown text={item.text} />
      </section>
      <Handoff item={item} />
      <div class="columns work-columns">
        <div class="col-context">
          {found.length > 0 ? (
            <section aria-labelledby="found-h" class="found-section">
              <h2 id="found-h">What was found</h2>
              <Findings list={found} id="found" />
            </section>
          ) : null}
          <RunDataView view={view} except={item.stepId} process={process} />
          {p.map ? (
            <section aria-labelledby="map-h">
              <h2 id="map-h">Where the run is</h2>
              <figure class="map">
                <a href={`/runs/${view.run.id}/map#here`}>
                  <img src={p.map} alt={`Map of ${processName(process, view.run.process)}: the run's steps, with where it is now`} />
                </a>
                <figcaption>
                  <a href={`/runs/${view.run.id}/map#here`}>Open the map full size</a>
                </figcaption>
              </figure>
            </section>
          ) : null}
          <details class="body">
            <summary>About this process</summary>
            <Markdown text={view.body} />
          </details>
        </div>
        <a class="action-bar" href="#decision">
          {jumpWords(item)} ↓
        </a>
        <div class="col-decide" id="decision">
          <DecideForms p={p} />
        </div>
      </div>
    </Layout>
  );
}

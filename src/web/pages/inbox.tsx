/** "My work": the signed-in person's open work items, oldest first, with filters by process and group and counts per group. */
import { Layout, type Frame } from './layout.js';
import { FilterSelect, Markdown, Notice, Value, When } from './parts.js';
import type { ProcessSummary, RunView, WorkEntry } from '../views.js';

export interface InboxRow {
  entry: WorkEntry;
  view: RunView | null;
}

export interface InboxProps {
  frame: Frame;
  rows: InboxRow[];
  processes: ProcessSummary[];
  groups: { group: string; count: number }[];
  filter: { process?: string; group?: string };
  total: number;
}

/** The first few inputs: what tells one run from another. */
function KeyInputs({ inputs }: { inputs: Record<string, unknown> }) {
  const keys = Object.keys(inputs).slice(0, 3);
  if (keys.length === 0) return null;
  return (
    <p class="key-inputs">
      {keys.map((k, i) => (
        <span key={k}>
          {i > 0 ? ' · ' : null}
          <span class="muted">{k}</span> <Value v={inputs[k]} />
        </span>
      ))}
    </p>
  );
}

function assigned(a: { group?: string; person?: string }): string {
  return a.group !== undefined ? `group ${a.group}` : `you (${a.person})`;
}

function Row({ row, title }: { row: InboxRow; title: string }) {
  const { entry, view } = row;
  const wi = entry.workItem;
  const step = view?.steps.find((s) => s.id === wi.stepId);
  const href = `/work/${entry.runId}/${wi.id}`;
  return (
    <li class={`item${step?.overdue ? ' overdue' : ''}`}>
      <article aria-labelledby={`t-${wi.id}`}>
        <h2 id={`t-${wi.id}`}>
          <a href={href}>{entry.process}: {wi.stepId}</a> <span class="kind">{wi.escalation ? 'escalation' : wi.kind}</span>
        </h2>
        {title !== entry.process ? <p class="desc">{title}</p> : null}
        {entry.mode === 'test' ? <p class="test-banner">Test run</p> : null}
        {view ? <KeyInputs inputs={view.data.inputs} /> : null}
        <div class="text"><Markdown text={wi.text.split('\n')[0] ?? ''} /></div>
        <p class="meta">
          For {assigned(wi.assignedTo)} · due <When at={wi.due} />
          {step?.overdue ? <strong class="overdue-tag"> overdue</strong> : null}
        </p>
        {wi.handoff?.returned ? <p class="returned">Returned by {wi.handoff.returned.by}: {wi.handoff.returned.note}</p> : null}
        {wi.escalation ? <p class="escalated">Escalated by {wi.escalation.by}: {wi.escalation.note}</p> : null}
      </article>
    </li>
  );
}

export function InboxPage(p: InboxProps) {
  const titles = new Map(p.processes.map((x) => [x.name, x.description || x.name]));
  return (
    <Layout frame={p.frame}>
      <h1>My work</h1>
      <form method="get" action="/work" class="filters" aria-label="Filter my work">
        <FilterSelect label="Process" name="process" any="all processes" options={p.processes.map((x) => ({ value: x.name, text: x.name }))} selected={p.filter.process} />
        <FilterSelect label="Group" name="group" any="all groups" options={p.groups.map((g) => ({ value: g.group, text: `${g.group} (${g.count})` }))} selected={p.filter.group} />
        <button type="submit">Filter</button>
      </form>
      <p class="counts">
        {p.total} open {p.total === 1 ? 'item' : 'items'}
        {p.groups.length > 0 ? <> · {p.groups.map((g) => `${g.group}: ${g.count}`).join(' · ')}</> : null}
      </p>
      {p.rows.length === 0 ? (
        <Notice kind="info" title="Nothing waiting for you">
          <p>Work items assigned to you or your groups appear here, oldest first.</p>
        </Notice>
      ) : (
        <ol class="items">
          {p.rows.map((r) => <Row key={r.entry.workItem.id} row={r} title={titles.get(r.entry.process) ?? r.entry.process} />)}
        </ol>
      )}
    </Layout>
  );
}

/**
 * "My work": the signed-in person's open work items, oldest first, with
 * filters by process and group and counts per group. Each card names the
 * step and the run in the process's words and shows what the earlier steps
 * found, a warning marked, so a claim flagged out of policy stands out.
 */
import type { ComponentChildren } from 'preact';
import type { Process } from '../../process/model.js';
import { findings, humanize, runTitle, stepTitleOf, type Finding } from '../../words/index.js';
import { Layout, type Frame } from './layout.js';
import { FilterSelect, Markdown, Notice, processName } from './parts.js';
import { OutLink, Person, usePageWords, WarnMark, When } from './words.js';
import type { ProcessSummary, RunView, WorkEntry, WorkItem } from '../views.js';
import { ViewPicker, type PickerProps } from './view-picker.js';

export interface InboxRow {
  entry: WorkEntry;
  view: RunView | null;
  /** The run's pinned version, or null when the board cannot read it (then ids stand in for words). */
  process: Process | null;
  /** Where the item stands on its reminder ladder, in words, or null (docs/people.md "Reminders"). */
  ladder?: string | null;
  /** Out of office: the person this item was handed over by, decided for them (docs/people.md "Out of office"). */
  forWhom?: string;
}

export interface InboxProps {
  frame: Frame;
  rows: InboxRow[];
  processes: ProcessSummary[];
  groups: { group: string; count: number }[];
  filter: { process?: string; group?: string };
  total: number;
  /** The signed-in person's own delegation in force, if they are out of office. */
  away?: { to: string; until: string } | null;
  /** WORK.md's saved views to pick from (none: no picker). */
  picker?: PickerProps;
  /** The saved view shown, if one is (docs/operators.md "Saved views"). */
  view?: InboxView;
}

/** My work in a saved view: its title, and for a board layout its columns, each with its work items' ids. */
export interface InboxView {
  title: string;
  refusal?: string;
  columns: { title: string; items: string[] }[] | null;
}

/** At most this many findings on a card: the verdicts, not the whole record. */
const CARD_FINDINGS = 6;

/** What a work item is, in a word. */
export function kindWord(w: Pick<WorkItem, 'kind' | 'escalation'>): string {
  return w.escalation ? 'Escalated' : w.kind === 'approve' ? 'Approval' : 'Task';
}

/** Who a work item is for, in words. */
export function ForWhom({ a }: { a: { group?: string; person?: string } }) {
  return a.group !== undefined ? (
    <>the {humanize(a.group).toLowerCase()} group</>
  ) : (
    <>
      you (<Person email={a.person} />)
    </>
  );
}

/** What the earlier steps found: label and value, warnings first in their mark. */
export function Findings({ list, id }: { list: Finding[]; id: string }) {
  if (list.length === 0) return null;
  const warned = list.filter((f) => f.warning).length;
  return (
    <div class="findings-box">
      <p class="visually-hidden" id={`${id}-sum`}>
        {warned > 0 ? `${warned} of these findings ${warned === 1 ? 'is a warning' : 'are warnings'}.` : 'No finding is a warning.'}
      </p>
      <dl class="found" aria-describedby={`${id}-sum`}>
        {list.map((f, i) => (
          <div key={i} class={f.warning ? 'warning' : undefined}>
            <dt>{f.label}</dt>
            <dd>
              {f.warning ? <WarnMark /> : null}
              {f.href ? <OutLink href={f.href}>{f.text}</OutLink> : f.text}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

function Row({ row, sub = false }: { row: InboxRow; sub?: boolean }) {
  const { people } = usePageWords();
  const { entry, view, process } = row;
  const wi = entry.workItem;
  const step = view?.steps.find((s) => s.id === wi.stepId);
  const href = `/work/${entry.runId}/${wi.id}`;
  const found =
    process && view
      ? findings(process, view, { people })
          .filter((f) => f.stepId !== wi.stepId)
          .slice(0, CARD_FINDINGS)
      : [];
  const name = process && view ? runTitle(process, view.data.inputs, people) : processName(process, entry.process);
  return (
    <li class={`item${step?.overdue ? ' overdue' : ''}${found.some((f) => f.warning) ? ' has-warning' : ''}`}>
      <article aria-labelledby={`t-${wi.id}`}>
        <Heading sub={sub} id={`t-${wi.id}`}>
          <a href={href}>{stepTitleOf(process, wi.stepId)}</a> <span class="kind">{kindWord(wi)}</span>
        </Heading>
        <p class="run-name">{name}</p>
        {entry.mode === 'test' ? <p class="test-banner">Test run</p> : null}
        {row.forWhom ? (
          <p class="on-behalf">
            For <Person email={row.forWhom} />, out of office: you decide it for them
          </p>
        ) : null}
        <Findings list={found} id={`f-${wi.id}`} />
        <p class="meta">
          For <ForWhom a={wi.assignedTo} />
          {wi.due ? (
            <>
              {' '}
              · due <When at={wi.due} />
            </>
          ) : null}
          {step?.overdue ? <strong class="overdue-tag"> · overdue</strong> : null}
        </p>
        {row.ladder ? <p class="ladder">{row.ladder}</p> : null}
        {wi.handoff?.returned ? (
          <p class="returned">
            Returned by <Person email={wi.handoff.returned.by} />: {wi.handoff.returned.note}
          </p>
        ) : null}
        {wi.escalation ? (
          <p class="escalated">
            Escalated by <Person email={wi.escalation.by} />: {wi.escalation.note}
          </p>
        ) : null}
        {!process ? (
          <div class="text">
            <Markdown text={wi.text.split('\n')[0] ?? ''} />
          </div>
        ) : null}
      </article>
    </li>
  );
}

/** A card's heading: below a column's heading when in a board layout. */
const Heading = ({ sub, id, children }: { sub: boolean; id: string; children: ComponentChildren }) => (sub ? <h3 id={id}>{children}</h3> : <h2 id={id}>{children}</h2>);

/** A board layout of My work: a column per state, level or waiter, the cards in My work's order. */
function ViewColumns({ columns, rows }: { columns: NonNullable<InboxView['columns']>; rows: InboxRow[] }) {
  return (
    <div class="view-board">
      {columns.map((c, i) => {
        const mine = rows.filter((r) => c.items.includes(r.entry.workItem.id));
        return (
          <section key={c.title} class="view-column" aria-labelledby={`col-${i}`}>
            <h2 id={`col-${i}`}>
              {c.title} <span class="count">{mine.length}</span>
            </h2>
            {mine.length ? (
              <ol class="items">
                {mine.map((r) => (
                  <Row key={r.entry.workItem.id} row={r} sub />
                ))}
              </ol>
            ) : (
              <p class="muted">None</p>
            )}
          </section>
        );
      })}
    </div>
  );
}

export function InboxPage(p: InboxProps) {
  return (
    <Layout frame={p.frame}>
      <h1>My work</h1>
      {p.away ? (
        <Notice kind="info" title="You are out of office">
          <p>
            <Person email={p.away.to} /> decides your work for you; it ends by itself <When at={p.away.until} />. <a href="/out-of-office">End it or change it</a>
          </p>
        </Notice>
      ) : (
        <p class="page-links">
          <a href="/out-of-office">Out of office? Hand your work to someone</a>
        </p>
      )}
      {p.picker ? <ViewPicker {...p.picker} /> : null}
      {p.view ? <h2 class="view-title">{p.view.title}</h2> : null}
      {p.view?.refusal ? (
        <Notice kind="error" title="No such view">
          <p>{p.view.refusal}</p>
        </Notice>
      ) : null}
      <form method="get" action="/work" class="filters" aria-label="Filter my work">
        <FilterSelect label="Process" name="process" any="all processes" options={p.processes.map((x) => ({ value: x.name, text: humanize(x.name) }))} selected={p.filter.process} />
        <FilterSelect label="Group" name="group" any="all groups" options={p.groups.map((g) => ({ value: g.group, text: `${humanize(g.group)} (${g.count})` }))} selected={p.filter.group} />
        {p.picker ? <input type="hidden" name="view" value="all" /> : null}
        <button type="submit">Filter</button>
      </form>
      <p class="counts">
        {p.total} open {p.total === 1 ? 'item' : 'items'}
        {p.groups.length > 0 ? <> · {p.groups.map((g) => `${humanize(g.group)}: ${g.count}`).join(' · ')}</> : null}
      </p>
      {p.rows.length === 0 ? (
        <Notice kind="info" title="Nothing waiting for you">
          <p>Work items assigned to you or your groups appear here, oldest first.</p>
        </Notice>
      ) : p.view?.columns ? (
        <ViewColumns columns={p.view.columns} rows={p.rows} />
      ) : (
        <ol class="items">
          {p.rows.map((r) => (
            <Row key={r.entry.workItem.id} row={r} />
          ))}
        </ol>
      )}
    </Layout>
  );
}

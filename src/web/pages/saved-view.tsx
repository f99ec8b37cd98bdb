/**
 * Saved views on Runs and My work (docs/operators.md "Saved views"): a
 * view's runs as a list or as a board of columns, each run by its
 * title with its state, level, whether it is blocked or overdue, and who it
 * waits for.
 */
import type { ComponentChildren } from 'preact';
import { NORMAL_PRIORITY } from '../../process/model.js';
import type { ViewRow } from '../../engine/view-filter.js';
import { humanize, inList, levelWords, waiterWords } from '../../words/index.js';
import { Layout, type Frame } from './layout.js';
import { Notice } from './parts.js';
import { stateWords } from './runs.js';
import { usePageWords, When } from './words.js';
import { ViewPicker, type PickerProps } from './view-picker.js';

export type { PickerProps };
export { ViewPicker };

/** A run in a view: its title, linked, and what a person needs to know of it at a glance. */
export function RunCard({ run, name }: { run: ViewRow; name: string }) {
  const { people } = usePageWords();
  return (
    <li class={`view-run${run.overdue ? ' overdue' : ''}`}>
      <a href={`/runs/${run.id}`}>{name}</a>
      <p class="view-facts">
        {run.blocked ? <strong class="blocked-tag">Blocked</strong> : <span>{stateWords(run.state, run.outcome)}</span>}
        {run.priority !== NORMAL_PRIORITY ? <span class={`level level-${run.priority}`}>{levelWords(run.priority)}</span> : null}
        {run.overdue ? <strong class="overdue-tag">Overdue</strong> : null}
      </p>
      {run.waitingFor.length > 0 && !run.blocked ? <p class="meta">Waiting for {inList(run.waitingFor.map((w) => waiterWords(w, { people })))}</p> : null}
      <p class="meta">
        Started <When at={run.startedAt} />
      </p>
    </li>
  );
}

export interface ViewPageProps {
  frame: Frame;
  heading: string;
  picker: PickerProps;
  title: string;
  /** The view's runs, each with its title in words. */
  runs: { run: ViewRow; name: string }[];
  /** A board layout's columns (heading and the runs' ids in order), or null for a list. */
  columns: { title: string; runs: string[] }[] | null;
}

export function ViewPage(p: ViewPageProps) {
  const byId = new Map(p.runs.map((r) => [r.run.id, r]));
  let body: ComponentChildren;
  if (p.runs.length === 0 && !p.columns?.length)
    body = (
      <Notice kind="info" title="No runs in this view">
        <p>No run on the board matches this view now.</p>
      </Notice>
    );
  else if (p.columns)
    body = (
      <div class="view-board">
        {p.columns.map((c, i) => (
          <section key={c.title} class="view-column" aria-labelledby={`col-${i}`}>
            <h2 id={`col-${i}`}>
              {c.title} <span class="count">{c.runs.length}</span>
            </h2>
            {c.runs.length ? <ol class="view-runs">{c.runs.map((id) => byId.get(id)).map((r) => (r ? <RunCard key={r.run.id} {...r} /> : null))}</ol> : <p class="muted">None</p>}
          </section>
        ))}
      </div>
    );
  else
    body = (
      <ol class="view-runs view-list">
        {p.runs.map((r) => (
          <RunCard key={r.run.id} {...r} />
        ))}
      </ol>
    );
  return (
    <Layout frame={p.frame}>
      <h1>{p.heading}</h1>
      <ViewPicker {...p.picker} />
      <h2 class="view-title">
        {p.title}{' '}
        <span class="count">
          {p.runs.length} {p.runs.length === 1 ? 'run' : 'runs'}
        </span>
      </h2>
      {body}
    </Layout>
  );
}

/** A heading for a process's column or a parent's when its words cannot be read: the name humanised. */
export const fallbackTitle = (name: string): string => humanize(name);

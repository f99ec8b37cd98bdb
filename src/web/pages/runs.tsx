/** Runs, newest first (list_runs): filters by process, state and inputs as `key=value` lines, one page at a time, each run linked to its page. */
import { Layout, type Frame } from './layout.js';
import { humanize } from '../../words/index.js';
import { FilterSelect, IssueList, Notice } from './parts.js';
import { When } from './words.js';
import { StackTable } from './stack-table.js';
import type { ProcessSummary } from '../views.js';
import type { RunRow } from '../../protocol/views.js';
import { ViewPicker, type PickerProps } from './view-picker.js';

export const RUN_STATES = ['active', 'waiting', 'ended', 'cancelled'] as const;

export interface RunsFilter {
  process?: string;
  state?: string;
  inputs?: string;
}

export interface RunsPageProps {
  frame: Frame;
  /** Each run with its name in words (runTitle, or the process's name when its version cannot be read). */
  rows: { run: RunRow; name: string }[];
  processes: ProcessSummary[];
  filter: RunsFilter;
  /** The address of the next page, or null on the last. */
  next: string | null;
  /** Whether this is a later page (so a link back to the first makes sense). */
  paged: boolean;
  issues: string[];
  /** The service's refusal of the filter, if it refused. */
  refusal?: string;
  /** WORK.md's saved views to pick from (none: no picker). */
  picker?: PickerProps;
}

/** A run's state in words: "Ended: approved", "Waiting". */
export function stateWords(state: string, outcome: string | null): string {
  return `${humanize(state)}${outcome ? `: ${humanize(outcome).toLowerCase()}` : ''}`;
}

export function RunsPage(p: RunsPageProps) {
  const f = p.filter;
  const problems = [...p.issues, ...(p.refusal ? [p.refusal] : [])];
  return (
    <Layout frame={p.frame}>
      <h1>Runs</h1>
      {p.picker ? <ViewPicker {...p.picker} /> : null}
      <form method="get" action="/runs" class="filters runs-filter" aria-label="Filter runs">
        <FilterSelect label="Process" name="process" any="all processes" options={p.processes.map((x) => ({ value: x.name, text: humanize(x.name) }))} selected={f.process} />
        <FilterSelect label="State" name="state" any="any state" options={RUN_STATES.map((s) => ({ value: s, text: humanize(s) }))} selected={f.state} />
        <label class="stack">
          Started with
          <textarea name="inputs" rows={1} aria-describedby={problems.length ? 'inputs-hint filter-issues' : 'inputs-hint'}>
            {f.inputs ?? ''}
          </textarea>
          <span class="desc" id="inputs-hint">
            A field and its value on each line, such as payee = Sam
          </span>
        </label>
        {p.picker ? <input type="hidden" name="view" value="all" /> : null}
        <button type="submit">Filter</button>
      </form>
      <IssueList id="filter-issues" list={problems} />
      {p.rows.length === 0 ? (
        <Notice kind="info" title="No runs here">
          <p>{problems.length ? 'Fix the filter above.' : 'No run matches these filters.'}</p>
        </Notice>
      ) : (
        <div class="table-wrap">
          <StackTable
            kind="runs"
            caption="Runs, newest first"
            columns={[{ head: 'Run' }, { head: 'State' }, { head: 'Started' }, { head: 'Updated' }]}
            rows={p.rows.map(({ run: r, name }) => ({
              key: r.id,
              head: (
                <>
                  <a href={`/runs/${r.id}`}>{name}</a>{' '}
                  <span class="small-id">
                    {r.id} · version {r.version}
                  </span>
                </>
              ),
              cells: [<span>{stateWords(r.state, r.outcome)}</span>, <When at={r.startedAt} />, <When at={r.updatedAt} />],
            }))}
          />
        </div>
      )}
      <nav class="pager" aria-label="Pages of runs">
        {p.paged ? <a href={firstPage(f)}>First page</a> : null}
        {p.next ? (
          <a href={p.next} rel="next">
            Next page
          </a>
        ) : null}
      </nav>
    </Layout>
  );
}

/** The address of these filters' first page. */
export function firstPage(f: RunsFilter, cursor?: string): string {
  const q = new URLSearchParams();
  if (f.process) q.set('process', f.process);
  if (f.state) q.set('state', f.state);
  if (f.inputs) q.set('inputs', f.inputs);
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return s ? `/runs?${s}` : '/runs';
}

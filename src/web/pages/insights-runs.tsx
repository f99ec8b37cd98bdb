/**
 * The runs behind one Insights figure: what a bar or a number links to,
 * newest first, each run by its title.
 */
import { Layout, type Frame } from './layout.js';
import { IssueList, When } from './parts.js';
import { StackTable } from './stack-table.js';

export interface InsightsRunsPageProps {
  frame: Frame;
  what: string;
  back: string;
  issues: string[];
  runs: { id: string; title: string; startedAt: string; outcome: string | null; mode: 'live' | 'test' }[];
}

export function InsightsRunsPage(p: InsightsRunsPageProps) {
  return (
    <Layout frame={p.frame}>
      <p class="crumbs">
        <a href={p.back}>Insights</a>
      </p>
      <h1>{`${p.runs.length} ${p.runs.length === 1 ? 'run' : 'runs'}: ${p.what}`}</h1>
      <IssueList list={p.issues} />
      {p.runs.length > 0 ? (
        <div class="table-wrap">
          <StackTable
            kind="runs"
            caption="Runs behind the figure, newest first"
            columns={[{ head: 'Run' }, { head: 'Started' }, { head: 'Outcome' }]}
            rows={p.runs.map((r) => ({
              key: r.id,
              head: (
                <>
                  <a href={`/runs/${r.id}`}>{r.title}</a>
                  {r.mode === 'test' ? ' (test run)' : ''} <span class="small-id">{r.id}</span>
                </>
              ),
              cells: [<When at={r.startedAt} />, r.outcome ?? 'open'],
            }))}
          />
        </div>
      ) : null}
    </Layout>
  );
}

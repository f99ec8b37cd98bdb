/**
 * The runs behind one Insights figure: what a bar or a number links to,
 * newest first, each run by its title.
 */
import { Layout, type Frame } from './layout.js';
import { IssueList, When } from './parts.js';

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
          <table class="runs stack">
            <caption class="visually-hidden">{`Runs behind the figure, newest first`}</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Started</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {p.runs.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <a href={`/runs/${r.id}`}>{r.title}</a>
                    {r.mode === 'test' ? ' (test run)' : ''} <span class="small-id">{r.id}</span>
                  </th>
                  <td data-label="Started">
                    <When at={r.startedAt} />
                  </td>
                  <td data-label="Outcome">{r.outcome ?? 'open'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Layout>
  );
}

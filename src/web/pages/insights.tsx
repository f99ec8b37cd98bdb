/**
 * Insights: the figures of `workboard stats` as charts drawn on the server,
 * each with its table (for screen readers and for copying) and each bar and
 * number linked to the runs behind it; a GET form filters them.
 */
import type { ComponentChildren } from 'preact';
import type { Bar } from '../../insights/bars.js';
import type { Insights } from '../../insights/figures.js';
import { durationText, type Labels } from '../../insights/labels.js';
import { Layout, type Frame } from './layout.js';
import { ChildrenSection } from './insights-children.js';
import { FilterSelect, IssueList, Notice } from './parts.js';
import { StackTable } from './stack-table.js';

/** A chart drawn for a wide screen and for a phone (app.css shows the one that fits). */
export interface Drawn {
  wide: string;
  narrow: string;
}

export interface Charts {
  throughput: Drawn | null;
  cycle: Drawn | null;
  waiting: Drawn | null;
  rework: Drawn | null;
}

export interface InsightsPageProps {
  frame: Frame;
  stats: Insights;
  labels: Labels;
  processes: { name: string; title: string }[];
  /** The chosen process's title when it is published and has no run yet. */
  runless: string | null;
  /** The filter as typed, to show it again in the form. */
  form: Record<string, string>;
  issues: string[];
  charts: Charts;
  /** The coloured map's address when one process is chosen. */
  map: string | null;
  runsHref: (b: Bar) => string;
}

/** The same figures from the command line, so anyone can check a number. */
function statsCommand(s: Insights): string {
  const f = s.filter;
  const parts = ['workboard stats'];
  if (f.process) parts.push(f.process);
  if (f.version) parts.push(`--version-number ${f.version}`);
  if (f.since) parts.push(`--since ${f.since}`);
  if (f.until) parts.push(`--until ${f.until}`);
  if (f.modes.length === 2) parts.push('--tests');
  else if (f.modes[0] === 'test') parts.push('--tests only');
  return `${parts.join(' ')} --json`;
}

function Chart({ title, svg, children }: { title: string; svg: Drawn | null; children: ComponentChildren }) {
  if (svg === null) return <p class="desc">Nothing to draw for these runs.</p>;
  return (
    <figure class="chart">
      <figcaption class="visually-hidden">{title}</figcaption>
      <div class="chart-svg chart-wide" dangerouslySetInnerHTML={{ __html: svg.wide }} />
      <div class="chart-svg chart-narrow" dangerouslySetInnerHTML={{ __html: svg.narrow }} />
      <details>
        <summary>{`${title}: the table`}</summary>
        <div class="table-wrap">{children}</div>
      </details>
    </figure>
  );
}

const Count = ({ n, href }: { n: number; href: string }) => (n > 0 ? <a href={href}>{n}</a> : <>0</>);

export function InsightsPage(p: InsightsPageProps) {
  const s = p.stats;
  const l = p.labels;
  const step = (process: string, id: string) => (s.filter.process ? l.step(process, id) : `${l.process(process)} · ${l.step(process, id)}`);
  const outcomes = [...new Set(s.periods.flatMap((w) => Object.keys(w.ended)))].sort();
  const checks = s.checks.length > 0;
  return (
    <Layout frame={p.frame}>
      <h1>Insights</h1>
      <p class="desc">
        Figures from the runs' audit chains. Each bar and each number links to the runs behind it, and every figure is what <code>{statsCommand(s)}</code> prints. Times are those of the audit lines;
        the definitions are in docs/insights.md.
      </p>
      <form method="get" action="/insights" class="filters" aria-label="Filter the figures">
        <FilterSelect label="Process" name="process" any="every process" options={p.processes.map((x) => ({ value: x.name, text: x.title }))} selected={p.form.process || undefined} />
        <label>
          Version
          <input name="version" inputmode="numeric" size={4} value={p.form.version} />
        </label>
        <label>
          Started from
          <input name="since" size={12} value={p.form.since} aria-describedby="when-hint" />
        </label>
        <label>
          Started until
          <input name="until" size={12} value={p.form.until} aria-describedby="when-hint" />
        </label>
        <FilterSelect
          label="Runs"
          name="tests"
          any="live runs"
          options={[
            { value: 'also', text: 'live and test runs' },
            { value: 'only', text: 'test runs only' },
          ]}
          selected={p.form.tests || undefined}
        />
        <button type="submit">Show</button>
      </form>
      <p class="desc" id="when-hint">
        A date (2026-11-30), a date and time, or an age such as 7d, 12h or 4w; an until date counts its own day.
      </p>
      <IssueList list={p.issues} />
      {p.runless !== null ? (
        <Notice kind="info" title="No runs yet">
          <p>{`${p.runless} is published and has no runs yet, so every figure below is zero. They fill in as its runs start.`}</p>
        </Notice>
      ) : s.runs.started === 0 ? (
        <Notice kind="info" title="No runs here">
          <p>No run you may see matches these filters.</p>
        </Notice>
      ) : null}

      <section aria-labelledby="in-short">
        <h2 id="in-short">In short</h2>
        <dl class="pairs">
          <dt>Runs started</dt>
          <dd>{s.runs.started}</dd>
          <dt>Ended</dt>
          <dd>{`${s.runs.ended}${
            s.runs.ended
              ? ` (${Object.entries(s.runs.byOutcome)
                  .map(([o, n]) => `${n} ${o}`)
                  .join(', ')})`
              : ''
          }`}</dd>
          <dt>Open</dt>
          <dd>{s.runs.open}</dd>
          <dt>Start to end</dt>
          <dd>{`median ${durationText(s.runs.cycle.p50Ms)}, 90th percentile ${durationText(s.runs.cycle.p90Ms)}`}</dd>
          <dt>Waiting for agents</dt>
          <dd>{durationText(s.waiting.agentsMs)}</dd>
          <dt>Waiting for people</dt>
          <dd>{durationText(s.waiting.peopleMs)}</dd>
          <dt>Claims that expired</dt>
          <dd>{s.leaseExpiries}</dd>
          <dt>Steps overdue now</dt>
          <dd>{s.overdueNow}</dd>
        </dl>
      </section>

      <section aria-labelledby="throughput">
        <h2 id="throughput">{`Runs per ${s.per}`}</h2>
        <Chart title={`Runs started and ended per ${s.per}`} svg={p.charts.throughput}>
          <StackTable
            columns={[{ head: s.per[0]!.toUpperCase() + s.per.slice(1) }, { head: 'Started' }, ...outcomes.map((o) => ({ head: `Ended ${o}` })), { head: 'Fell overdue' }]}
            rows={s.periods.map((w) => ({
              key: w.period,
              head: `${w.period} (from ${w.from})`,
              cells: [
                <Count n={w.started} href={p.runsHref({ bar: 'started', period: w.period })} />,
                ...outcomes.map((o) => <Count n={w.ended[o] ?? 0} href={p.runsHref({ bar: 'ended', period: w.period, outcome: o })} />),
                <Count n={w.overdue} href={p.runsHref({ bar: 'overdue', period: w.period })} />,
              ],
            }))}
          />
        </Chart>
      </section>

      <section aria-labelledby="cycle">
        <h2 id="cycle">Time per step</h2>
        <p class="desc">
          From the moment a step is reached to the moment it is finished (completed, decided or timed out), in the unit its axis names; waiting is the part of it spent unclaimed or with a person.
        </p>
        <Chart title="Time from reaching a step to finishing it" svg={p.charts.cycle}>
          <StackTable
            columns={[{ head: 'Step' }, { head: 'Finished' }, { head: 'Median' }, { head: '90th percentile' }, { head: 'Median waiting' }, { head: '90th percentile waiting' }]}
            rows={s.steps.map((x) => ({
              key: `${x.process}/${x.step}`,
              head: step(x.process, x.step),
              cells: [
                <Count n={x.wall.count} href={p.runsHref({ bar: 'step', process: x.process, step: x.step })} />,
                durationText(x.wall.p50Ms),
                durationText(x.wall.p90Ms),
                durationText(x.waiting.p50Ms),
                durationText(x.waiting.p90Ms),
              ],
            }))}
          />
        </Chart>
      </section>

      <section aria-labelledby="waiting">
        <h2 id="waiting">Where runs wait</h2>
        <Chart title="Time waited at each step, by whom it waited for" svg={p.charts.waiting}>
          <StackTable
            columns={[{ head: 'Step' }, { head: 'For agents' }, { head: 'For people' }, { head: 'For timers and events', label: 'For timers' }, { head: 'Waiting now' }, { head: 'Overdue now' }]}
            rows={s.steps.map((x) => {
              const waited = (ms: number, whom: 'agent' | 'person' | 'timer') =>
                ms > 0 ? <a href={p.runsHref({ bar: 'waiting', process: x.process, step: x.step, for: whom })}>{durationText(ms)}</a> : '0 s';
              return {
                key: `${x.process}/${x.step}`,
                head: step(x.process, x.step),
                cells: [waited(x.waitingForAgentsMs, 'agent'), waited(x.waitingForPeopleMs, 'person'), waited(x.waitingForTimersMs, 'timer'), x.waitingNow, x.overdueNow],
              };
            })}
          />
        </Chart>
      </section>

      <section aria-labelledby="rework">
        <h2 id="rework">Sent back</h2>
        <Chart title="Rejections per approval step" svg={p.charts.rework}>
          <StackTable
            columns={[{ head: 'Step' }, { head: 'Rejections' }, { head: 'Runs' }, { head: 'Most frequent notes', label: 'Notes' }]}
            rows={s.rework.map((x) => ({
              key: `${x.process}/${x.step}`,
              head: step(x.process, x.step),
              cells: [
                <Count n={x.rejections} href={p.runsHref({ bar: 'rework', process: x.process, step: x.step })} />,
                x.runs,
                <ul class="values">
                  {x.topNotes.map((n) => (
                    <li key={n.note}>{`${n.count}× “${n.note}”`}</li>
                  ))}
                </ul>,
              ],
            }))}
          />
        </Chart>
      </section>

      <section aria-labelledby="agents">
        <h2 id="agents">Agents</h2>
        {s.agents.length === 0 ? (
          <p class="desc">No agent escalated, had work returned or let a claim expire.</p>
        ) : (
          <div class="table-wrap">
            <StackTable
              caption="Escalations, returns and expired claims per agent"
              columns={[{ head: 'Agent' }, { head: 'Escalations' }, { head: 'Of them by a check', label: 'By a check' }, { head: 'Returned' }, { head: 'Expired claims' }]}
              rows={s.agents.map((a) => ({
                key: a.agent,
                head: <a href={p.runsHref({ bar: 'agent', agent: a.agent })}>{l.who(a.agent)}</a>,
                cells: [a.escalations, a.checkEscalations, a.returns, a.leaseExpiries],
              }))}
            />
          </div>
        )}
      </section>

      {checks ? (
        <section aria-labelledby="checks">
          <h2 id="checks">Checks</h2>
          <div class="table-wrap">
            <StackTable
              caption="Check verdicts per checked step"
              columns={[{ head: 'Step' }, { head: 'Passed' }, { head: 'Failed' }, { head: 'Unsure' }]}
              rows={s.checks.map((c) => ({ key: `${c.process}/${c.step}`, head: step(c.process, c.step), cells: [c.pass, c.fail, c.unsure] }))}
            />
          </div>
        </section>
      ) : null}

      {s.children ? <ChildrenSection children={s.children} labels={l} step={step} /> : null}

      <section aria-labelledby="map">
        <h2 id="map">The process map by time spent</h2>
        {p.map ? (
          <figure class="map-full" tabIndex={0} aria-label="The map; scroll to move around it">
            <img src={p.map} alt="The process map, each step's card shaded darker the longer its median time from reaching it to finishing it; the table under Time per step gives the figures." />
          </figure>
        ) : (
          <p class="desc">Choose one process above to see its map shaded by the median time of each step.</p>
        )}
      </section>
    </Layout>
  );
}

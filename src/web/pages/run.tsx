/** A run: its state, every step with state, who and when, outputs and evidence, its open work items, the map, and the audit timeline verified as read. */
import type { ComponentChildren } from 'preact';
import { Layout, type Frame } from './layout.js';
import { Notice, RunDataView, TestBanner, When } from './parts.js';
import type { RunView } from '../views.js';

export interface TimelineEvent {
  ts: string;
  actor: string;
  action: string;
  entity: string;
}

export interface RunPageProps {
  frame: Frame;
  view: RunView;
  timeline: { events: TimelineEvent[]; breaks: { line: number | null; reason: string }[]; superseded: { after: number; events: TimelineEvent[] }[] } | null;
  map: string | null;
  /** What just happened, when the person arrives here after doing it. */
  done?: { title: string; text?: string };
  /** Operators' actions, when the signed-in person is one. */
  actions?: ComponentChildren;
}

export function RunPage(p: RunPageProps) {
  const { view } = p;
  const r = view.run;
  return (
    <Layout frame={p.frame}>
      <p class="crumbs"><a href="/runs">Runs</a> › {r.id}</p>
      <h1>{r.process} v{r.version}: {r.state}{r.outcome ? ` (${r.outcome})` : ''}</h1>
      {r.mode === 'test' ? <TestBanner /> : null}
      {p.done ? <Notice kind="ok" title={p.done.title}>{p.done.text ? <p>{p.done.text}</p> : null}</Notice> : null}
      <p class="meta">
        Started by {r.startedBy} at <When at={r.startedAt} /> · updated <When at={r.updatedAt} />
        {r.ended ? <> · ended by {r.ended.by} at <When at={r.ended.at} />{r.ended.note ? `: ${r.ended.note}` : ''}</> : null}
      </p>
      {view.workItems.length > 0 ? (
        <section aria-labelledby="open-h">
          <h2 id="open-h">Open work items</h2>
          <ul>
            {view.workItems.map((w) => (
              <li key={w.id}>
                <a href={`/work/${r.id}/${w.id}`}>{w.stepId}</a> ({w.escalation ? 'escalation' : w.kind}) for {w.assignedTo.group ? `group ${w.assignedTo.group}` : w.assignedTo.person} · due <When at={w.due} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="steps-table-h">
        <h2 id="steps-table-h">Steps</h2>
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Step</th><th scope="col">Kind</th><th scope="col">State</th><th scope="col">By</th><th scope="col">When</th></tr></thead>
            <tbody>
              {view.steps.map((s) => {
                const d = view.data.steps[s.id];
                return (
                  <tr key={s.id}>
                    <th scope="row">{s.id}</th>
                    <td>{s.kind}</td>
                    <td>{s.state ?? '–'}{s.overdue ? <strong class="overdue-tag"> overdue</strong> : null}</td>
                    <td>{d?.by ?? '–'}</td>
                    <td><When at={d?.at ?? s.due} /></td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
      {p.actions}
      <div class="columns">
        <div class="col-main"><RunDataView view={view} /></div>
        <div class="col-side">
          {p.map ? (
            <section aria-labelledby="map-h">
              <h2 id="map-h">Map</h2>
              <figure class="map"><img src={p.map} alt={`Map of ${r.process}: the run's steps, with where it is now`} /></figure>
            </section>
          ) : null}
        </div>
      </div>
      <section aria-labelledby="audit-h">
        <h2 id="audit-h">Audit timeline</h2>
        {p.timeline === null ? <p class="muted">No audit chain is readable for this run.</p> : (
          <>
            {p.timeline.breaks.length === 0 ? <p class="ok-line">Verified as read: every line's hash and link is intact.</p> : (
              <Notice kind="error" title="The audit chain is broken">
                <ul>{p.timeline.breaks.map((b, i) => <li key={i}>line {b.line ?? '?'}: {b.reason}</li>)}</ul>
              </Notice>
            )}
            <ol class="timeline">
              {p.timeline.events.map((e, i) => (
                <li key={i}><When at={e.ts} /> <strong>{e.actor}</strong> {e.action} <span class="muted">{e.entity.replace(`runs/${r.id}/`, '').replace(`${r.id}/`, '')}</span></li>
              ))}
            </ol>
            {p.timeline.superseded.map((b, n) => (
              <section key={n} aria-labelledby={`superseded-${n}`}>
                <h3 id={`superseded-${n}`}>Superseded on merge</h3>
                <p class="muted">This run moved on two clones of the board before they synced; the merge kept the other side whole. These {b.events.length} transition(s), after line {b.after}, are kept here, signed, but no longer count.</p>
                <ol class="timeline">
                  {b.events.map((e, i) => (
                    <li key={i}><When at={e.ts} /> <strong>{e.actor}</strong> {e.action} <span class="muted">{e.entity.replace(`${r.id}/`, '')}</span></li>
                  ))}
                </ol>
              </section>
            ))}
          </>
        )}
      </section>
    </Layout>
  );
}

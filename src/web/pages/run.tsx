/** A run: its state, every step with state, who and when, outputs and evidence, its open work items, the map, and the audit timeline verified as read. */
import type { ComponentChildren } from 'preact';
import type { Process } from '../../process/model.js';
import { humanize, stepStateWord, stepTitleOf } from '../../words/index.js';
import { Layout, type Frame } from './layout.js';
import { Notice, RunDataView, TestBanner, processName, type RunTitles } from './parts.js';
import { ForWhom, kindWord } from './inbox.js';
import { stateWords } from './runs.js';
import { Person, When } from './words.js';
import { StackTable } from './stack-table.js';
import type { RunFlow, RunLineage, RunView } from '../views.js';
import { levelName } from '../../engine/priority.js';

/** An audit line as `workboard log` says it: what happened, and its detail (a note whole, a claim's end). */
export interface TimelineEvent {
  ts: string;
  what: string;
  detail?: string;
}

export interface RunPageProps {
  frame: Frame;
  view: RunView;
  /** The run's pinned version, for words; null when the board cannot read it. */
  process: Process | null;
  /** The run's name in words. */
  name: string;
  timeline: { events: TimelineEvent[]; breaks: { line: number | null; reason: string }[]; superseded: { after: number; events: TimelineEvent[] }[] } | null;
  map: string | null;
  /** flow-1: the run's priority and blockers (docs/profile-flow-1.md), or null for a run without the profile. */
  flow: RunFlow | null;
  /** flow-1: the run's parent, children and their rolled-up state (docs/profile-flow-1.md "7. Lineage and rollup"); null when it has none. */
  lineage?: RunLineage | null;
  /** What just happened, when the person arrives here after doing it. */
  done?: { title: string; text?: string };
  /** Operators' actions, when the signed-in person is one. */
  actions?: ComponentChildren;
}

/** A step kind as a word. */
const KIND_WORDS: Record<string, string> = {
  agent: 'Agent',
  task: 'Task',
  approve: 'Approval',
  wait: 'Wait',
  wait_until: 'Wait until',
  wait_for: 'Wait for an event',
  parallel: 'Side by side',
  finish: 'Finish',
  subprocess: 'Runs of another process',
};

/** flow-1: a linked run by its title, linked, with where it stands. */
function Linked({ r }: { r: RunLineage['children'][number] }) {
  return (
    <>
      {r.state === null ? r.title : <a href={`/runs/${r.id}`}>{r.title}</a>} · {r.state === null ? 'not on this board' : stateWords(r.state, r.outcome)}
    </>
  );
}

/** flow-1: the run that started this one, the runs it started (by the step that did, or as follow-ons), and their rolled-up state. */
function LineageFacts({ lineage, process }: { lineage: RunLineage; process: Process | null }) {
  const follow = lineage.children.filter((c) => c.via === null);
  const bySteps = lineage.children.filter((c) => c.via !== null);
  return (
    <section aria-labelledby="lineage-h">
      <h2 id="lineage-h">Lineage</h2>
      {lineage.parent ? (
        <p>
          Started by the run <Linked r={lineage.parent} />
        </p>
      ) : null}
      {lineage.rollup ? (
        <p>
          Its runs, rolled up: <strong>{humanize(lineage.rollup)}</strong> ({lineage.children.filter((c) => c.state === 'ended' || c.state === 'cancelled').length} of {lineage.children.length} ended)
        </p>
      ) : null}
      {bySteps.length > 0 ? (
        <>
          <p>Runs its steps started:</p>
          <ul>
            {bySteps.map((c) => (
              <li key={c.id}>
                <Linked r={c} /> <span class="muted">· from “{stepTitleOf(process, c.via ?? '')}”</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {follow.length > 0 ? (
        <>
          <p>Runs its end started:</p>
          <ul>
            {follow.map((c) => (
              <li key={c.id}>
                <Linked r={c} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

/** An audit line in words: "Mira Okafor rejected “Approve the payout” → back to “Review the claim”", the note beneath, whole. */
function Happened({ e }: { e: TimelineEvent }) {
  return (
    <li>
      <When at={e.ts} /> {e.what}
      {e.detail ? <span class="muted"> · {e.detail}</span> : null}
    </li>
  );
}

/** flow-1: the run's priority, and the runs it waits or waited for, each linked with where it stands. */
function FlowFacts({ flow, blocked }: { flow: RunFlow; blocked: boolean }) {
  return (
    <section aria-labelledby="flow-h">
      <h2 id="flow-h">{blocked ? 'Blocked' : 'Priority and dependencies'}</h2>
      <p>
        Priority: <strong>{humanize(levelName(flow.priority))}</strong>
      </p>
      {flow.blockedBy.length > 0 ? (
        <>
          <p>{blocked ? 'Its work starts once every one of these runs has ended well:' : 'It waited for:'}</p>
          <ul>
            {flow.blockedBy.map((b) => (
              <li key={b.id}>
                {b.state === null ? b.title : <a href={`/runs/${b.id}`}>{b.title}</a>} · {b.state === null ? 'not on this board' : stateWords(b.state, b.outcome)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

/** flow-1: the runs this page names, by id, with their titles: the inputs list names a blocked_by input's runs by these. */
function linkedTitles(p: RunPageProps): RunTitles {
  const all = [...(p.flow?.blockedBy ?? []), ...(p.lineage?.parent ? [p.lineage.parent] : []), ...(p.lineage?.children ?? [])];
  return new Map(all.map((r) => [r.id, { title: r.title, onBoard: r.state !== null }]));
}

export function RunPage(p: RunPageProps) {
  const { view, process } = p;
  const r = view.run;
  const blocked = p.flow?.blocked === true && (r.state === 'active' || r.state === 'waiting');
  return (
    <Layout frame={p.frame}>
      <p class="crumbs">
        <a href="/runs">Runs</a> › {p.name}
      </p>
      <h1>{p.name}</h1>
      <p class="small-id">
        Run {r.id} · {processName(process, r.process)}, version {r.version}
      </p>
      {r.mode === 'test' ? <TestBanner /> : null}
      {p.done ? (
        <Notice kind="ok" title={p.done.title}>
          {p.done.text ? <p>{p.done.text}</p> : null}
        </Notice>
      ) : null}
      <p class="meta">
        <strong>{blocked ? <span class="blocked-tag">Blocked</span> : stateWords(r.state, r.outcome)}</strong> · started by <Person email={r.startedBy} /> <When at={r.startedAt} /> · updated{' '}
        <When at={r.updatedAt} />
        {r.ended ? (
          <>
            {' '}
            · ended by <Person email={r.ended.by} /> <When at={r.ended.at} />
            {r.ended.note ? `: ${r.ended.note}` : ''}
          </>
        ) : null}
      </p>
      {p.flow ? <FlowFacts flow={p.flow} blocked={blocked} /> : null}
      {p.lineage ? <LineageFacts lineage={p.lineage} process={process} /> : null}
      {view.workItems.length > 0 ? (
        <section aria-labelledby="open-h">
          <h2 id="open-h">Open work items</h2>
          <ul>
            {view.workItems.map((w) => (
              <li key={w.id}>
                <a href={`/work/${r.id}/${w.id}`}>{stepTitleOf(process, w.stepId)}</a> ({kindWord(w).toLowerCase()}) for <ForWhom a={w.assignedTo} />
                {w.due ? (
                  <>
                    {' '}
                    · due <When at={w.due} />
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="steps-table-h">
        <h2 id="steps-table-h">Steps</h2>
        <div class="table-wrap">
          <StackTable
            columns={[{ head: 'Step' }, { head: 'Kind' }, { head: 'State' }, { head: 'By' }, { head: 'When' }]}
            rows={view.steps.map((s) => {
              const d = view.data.steps[s.id];
              return {
                key: s.id,
                head: stepTitleOf(process, s.id),
                cells: [
                  KIND_WORDS[process?.steps.find((d) => d.id === s.id)?.kind ?? s.kind] ?? humanize(s.kind),
                  <>
                    {s.state ? humanize(stepStateWord(s.state, d?.decision)) : 'not reached'}
                    {s.overdue ? <strong class="overdue-tag"> · overdue</strong> : null}
                  </>,
                  d?.by ? <Person email={d.by} /> : '–',
                  <When at={d?.at ?? s.due} />,
                ],
              };
            })}
          />
        </div>
      </section>
      {p.actions}
      <div class="columns">
        <div class="col-main">
          <RunDataView view={view} process={process} heading="What each step recorded" runs={linkedTitles(p)} />
        </div>
        <div class="col-side">
          {p.map ? (
            <section aria-labelledby="map-h">
              <h2 id="map-h">Map</h2>
              <figure class="map">
                <a href={`/runs/${r.id}/map#here`}>
                  <img src={p.map} alt={`Map of ${processName(process, r.process)}: the run's steps, with where it is now`} />
                </a>
                <figcaption>
                  <a href={`/runs/${r.id}/map#here`}>Open the map full size</a>
                </figcaption>
              </figure>
            </section>
          ) : null}
        </div>
      </div>
      <section aria-labelledby="audit-h">
        <h2 id="audit-h">Audit timeline</h2>
        {p.timeline === null ? (
          <p class="muted">No audit chain is readable for this run.</p>
        ) : (
          <>
            {p.timeline.breaks.length === 0 ? (
              <p class="ok-line">Verified as read: every line's hash and link is intact.</p>
            ) : (
              <Notice kind="error" title="The audit chain is broken">
                <ul>
                  {p.timeline.breaks.map((b, i) => (
                    <li key={i}>
                      line {b.line ?? '?'}: {b.reason}
                    </li>
                  ))}
                </ul>
              </Notice>
            )}
            <ol class="timeline">
              {p.timeline.events.map((e, i) => (
                <Happened key={i} e={e} />
              ))}
            </ol>
            {p.timeline.superseded.map((b, n) => (
              <section key={n} aria-labelledby={`superseded-${n}`}>
                <h3 id={`superseded-${n}`}>Superseded on merge</h3>
                <p class="muted">
                  This run moved on two clones of the board before they synced; the merge kept the other side whole. These {b.events.length} transition(s), after line {b.after}, are kept here, signed,
                  but no longer count.
                </p>
                <ol class="timeline">
                  {b.events.map((e, i) => (
                    <Happened key={i} e={e} />
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

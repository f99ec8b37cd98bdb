/**
 * The operators' pages: the escalations queue (work items assigned to the
 * operators), what doctor reports, and on a run's page the forms to cancel
 * it with a reason (after a confirmation) and to send it an event.
 */
import { Layout, type Frame } from './layout.js';
import type { Process } from '../../process/model.js';
import { stepTitleOf } from '../../words/index.js';
import { IssueList, Notice, TextField, processName } from './parts.js';
import { kindWord } from './inbox.js';
import { Person, When } from './words.js';
import { DECISION_LABELS } from './work-item.js';
import type { Posted } from '../form-values.js';
import type { WorkEntry } from '../views.js';
import type { Finding } from '../../service/doctor.js';

function OperatorNav({ current }: { current: 'queue' | 'doctor' }) {
  return (
    <nav aria-label="Operators" class="subnav">
      <a href="/operators" aria-current={current === 'queue' ? 'page' : undefined}>
        Escalations
      </a>
      {' · '}
      <a href="/operators/doctor" aria-current={current === 'doctor' ? 'page' : undefined}>
        Doctor
      </a>
    </nav>
  );
}

export function QueuePage({ frame, items }: { frame: Frame; items: { entry: WorkEntry; process: Process | null; runName: string | null }[] }) {
  return (
    <Layout frame={frame}>
      <h1>Escalations</h1>
      <OperatorNav current="queue" />
      <p class="counts">
        {items.length} open {items.length === 1 ? 'escalation' : 'escalations'}, oldest first
      </p>
      {items.length === 0 ? (
        <Notice kind="info" title="Nothing escalated">
          <p>When an agent escalates a step, or a check cannot decide, the work item comes here for an operator.</p>
        </Notice>
      ) : (
        <ol class="items">
          {items.map(({ entry: e, process, runName }) => {
            const wi = e.workItem;
            return (
              <li key={wi.id} class="item">
                <article aria-labelledby={`q-${wi.id}`}>
                  <h2 id={`q-${wi.id}`}>
                    <a href={`/work/${e.runId}/${wi.id}`}>{stepTitleOf(process, wi.stepId)}</a> <span class="kind">{kindWord(wi)}</span>
                  </h2>
                  <p class="run-name">{runName ?? processName(process, e.process)}</p>
                  {e.mode === 'test' ? <p class="test-banner">Test run</p> : null}
                  {wi.escalation ? (
                    <p class="escalated">
                      Escalated by <Person email={wi.escalation.by} /> <When at={wi.escalation.at} />: {wi.escalation.note}
                    </p>
                  ) : null}
                  <p class="meta">
                    <a href={`/runs/${e.runId}`}>See the run</a>
                    {wi.due ? (
                      <>
                        {' '}
                        · due <When at={wi.due} />
                      </>
                    ) : null}{' '}
                    · choices: {wi.decide.decisions.map((d) => (d === 'completed' && wi.decide.decisions.includes('returned') ? 'Complete in its place' : (DECISION_LABELS[d] ?? d))).join(', ')}
                  </p>
                </article>
              </li>
            );
          })}
        </ol>
      )}
    </Layout>
  );
}

const KIND_TITLES: Record<Finding['kind'], string> = {
  'git-sync': 'Sync with the git remote failing',
  'refused-file': 'Refused files',
  'stale-lock': 'Stale locks',
  'held-lock': 'Locks held now',
  'pending-journal': 'Interrupted commits',
  superseded: 'Superseded on merge',
  notification: 'Parked notifications',
  overdue: 'Overdue work',
  'four-eyes': 'Approvals four eyes leaves to nobody',
  nobody: 'Work assigned to nobody',
  'merge-conflict': 'Merge conflicts',
  audit: 'Audit breaks',
  'signing-key': 'Signing key missing',
  'no-evaluator': 'Checks with no evaluator',
  incident: 'Internal faults (last 24 hours)',
};

/** `serve --git-sync`'s state in sentences (service/sync-state.ts), when a serve synced this board. */
export interface SyncShown {
  good: string;
  failure: string | null;
  next: string;
  failing: boolean;
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function SyncSection({ sync }: { sync: SyncShown }) {
  return (
    <section aria-labelledby="d-sync-state" class="findings sync-state">
      <h2 id="d-sync-state">Sync with the git remote{sync.failing ? ': failing' : ''}</h2>
      <ul>
        <li>{capital(sync.good)}.</li>
        {sync.failure ? <li>{capital(sync.failure)}</li> : null}
        <li>{capital(sync.next)}.</li>
      </ul>
    </section>
  );
}

export function DoctorPage({ frame, findings, sync }: { frame: Frame; findings: Finding[]; sync?: SyncShown | null }) {
  const kinds = (Object.keys(KIND_TITLES) as Finding['kind'][]).filter((k) => findings.some((f) => f.kind === k));
  return (
    <Layout frame={frame}>
      <h1>Doctor</h1>
      <OperatorNav current="doctor" />
      <p class="meta">
        What <code>workboard doctor</code> reports for this board, read now.
      </p>
      {findings.length === 0 ? <Notice kind="ok" title="Healthy: nothing needs an operator" /> : null}
      {sync ? <SyncSection sync={sync} /> : null}
      {kinds.map((k) => (
        <section key={k} aria-labelledby={`d-${k}`} class="findings">
          <h2 id={`d-${k}`}>{KIND_TITLES[k]}</h2>
          <ul>
            {findings
              .filter((f) => f.kind === k)
              .map((f, i) => (
                <li key={i}>
                  <strong class="where">{f.where}</strong>: {f.detail}
                </li>
              ))}
          </ul>
        </section>
      ))}
    </Layout>
  );
}

export interface RunActionsProps {
  runId: string;
  csrf: string;
  posted: Posted;
  /** Issues by form part: `cancel.reason`, `event.name`, `event.data`, or `cancel` / `event` for the form as a whole. */
  issues: Map<string, string[]>;
  /** The events the run waits for now. */
  awaited: string[];
}

/** On a run's page, for operators: cancel with a reason, send an event. */
export function RunActions({ runId, csrf, posted, issues, awaited }: RunActionsProps) {
  const v = (k: string) => posted.get(k)?.[0] ?? '';
  const reasonIssues = issues.get('cancel.reason');
  const nameIssues = issues.get('event.name');
  const dataIssues = issues.get('event.data');
  return (
    <section aria-labelledby="ops-h" class="operator-actions">
      <h2 id="ops-h">Operator actions</h2>
      <div class="columns">
        <form method="post" action={`/runs/${runId}/cancel`} class="decide" aria-labelledby="cancel-h">
          <h3 id="cancel-h">Cancel this run</h3>
          <IssueList id="cancel-issues" list={issues.get('cancel')} />
          <input type="hidden" name="csrf" value={csrf} />
          <TextField id="f-cancel-reason" name="reason" label="Reason (required)" rows={2} value={v('reason')} issues={reasonIssues} />
          <div class="buttons">
            <button type="submit" class="danger">
              Cancel the run…
            </button>
          </div>
        </form>
        <form method="post" action={`/runs/${runId}/event`} class="decide" aria-labelledby="event-h">
          <h3 id="event-h">Send an event</h3>
          <IssueList id="event-issues" list={issues.get('event')} />
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="requestId" value={v('requestId')} />
          <div class={`field${nameIssues ? ' has-issues' : ''}`}>
            <label for="f-event-name">Event name</label>
            <input
              type="text"
              id="f-event-name"
              name="name"
              value={v('name')}
              list={awaited.length ? 'awaited-events' : undefined}
              aria-describedby={[awaited.length ? 'f-event-name-desc' : '', nameIssues ? 'f-event-name-issues' : ''].filter(Boolean).join(' ') || undefined}
            />
            {awaited.length ? (
              <>
                <p class="desc" id="f-event-name-desc">
                  This run waits for {awaited.join(', ')}.
                </p>
                <datalist id="awaited-events">
                  {awaited.map((e) => (
                    <option key={e} value={e} />
                  ))}
                </datalist>
              </>
            ) : null}
            <IssueList id="f-event-name-issues" list={nameIssues} />
          </div>
          <TextField id="f-event-data" name="data" label="Data (a JSON object, optional)" rows={3} value={v('data')} issues={dataIssues} />
          <div class="buttons">
            <button type="submit">Send the event</button>
          </div>
        </form>
      </div>
    </section>
  );
}

/** Asked before a run is cancelled: the reason again, and the choice. */
/** The question before a cancel, naming the run as people know it ("Expense approval · Jon Berg · 184.50 EUR"). */
export function CancelConfirmPage({ frame, runId, name, reason, csrf, requestId }: { frame: Frame; runId: string; name: string; reason: string; csrf: string; requestId: string }) {
  return (
    <Layout frame={frame}>
      <p class="crumbs">
        <a href="/runs">Runs</a> › <a href={`/runs/${runId}`}>{name}</a>
      </p>
      <h1>Cancel {name}?</h1>
      <Notice kind="warn" title="Cancelling ends the run">
        <p>No later step runs, open work items close, and the run cannot be resumed.</p>
        <p>
          Reason: <strong>{reason}</strong>
        </p>
      </Notice>
      <form method="post" action={`/runs/${runId}/cancel`}>
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="reason" value={reason} />
        <input type="hidden" name="requestId" value={requestId} />
        <input type="hidden" name="confirm" value="yes" />
        <div class="buttons">
          <button type="submit" class="danger">
            Yes, cancel the run
          </button>
          <a href={`/runs/${runId}`} class="button">
            No, keep it
          </a>
        </div>
      </form>
    </Layout>
  );
}

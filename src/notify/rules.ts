/**
 * Who is told what (pure): the audit events of one committed transition
 * become notifications, each with its recipients, a subject, plain text and
 * the web page where the recipient acts. They are written to the outbox in
 * the same transaction as the transition (see outbox.ts), so none is lost
 * and none is sent for a transition that did not commit.
 */
import type { Manifest } from '../board/manifest.js';
import type { EngineEvent, Pinned, RunState } from '../engine/types.js';
import { assignment, OPERATORS } from '../engine/view.js';
import type { Assignment } from '../protocol/views.js';

export type NotificationKind =
  | 'work_item'
  | 'escalation'
  | 'check_unsure'
  | 'returned'
  | 'rejected'
  | 'overdue'
  | 'run_ended'
  | 'edit_refused'
  | 'internal_fault'
  | 'evaluator_failing'
  | 'superseded';

export interface Notification {
  id: string;
  kind: NotificationKind;
  at: string;
  /** Test runs are recorded and never sent (§3.3). */
  mode: 'live' | 'test';
  board: string;
  runId?: string;
  process?: string;
  stepId?: string;
  workItemId?: string;
  /** Emails, as the board named them when the notification was made. */
  recipients: string[];
  subject: string;
  /** Plain text without the link; the link is added when it is sent (the base URL may change). */
  text: string;
  /** The web app's page for this notification, e.g. `/work/<run>/<item>`. */
  path: string;
}

/** The emails a work item's assignment reaches: a person, a group's members, or the operators. */
export function recipientsOf(a: Assignment, manifest: Manifest): string[] {
  if (a.person !== undefined) return a.person === '' ? [] : [a.person];
  if (a.group === OPERATORS) return [...manifest.operators];
  return [...(manifest.groups[a.group ?? ''] ?? [])];
}

/** A few of the run's inputs as one line, so two similar items can be told apart. */
function inputsLine(state: RunState): string {
  const parts = Object.entries(state.run.inputs)
    .filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    .slice(0, 4)
    .map(([k, v]) => `${k}: ${String(v).slice(0, 80)}`);
  return parts.length > 0 ? parts.join(', ') : '';
}

const uniq = (xs: string[]) => [...new Set(xs.map((x) => x.toLowerCase()))];

/**
 * The notifications one transition causes. `newId` gives each a fresh id;
 * `at` is the transition's time.
 */
export function runNotifications(events: readonly EngineEvent[], state: RunState, pinned: Pinned, manifest: Manifest, at: string, newId: () => string): Notification[] {
  const r = state.run;
  const p = pinned.process;
  const base = { at, mode: r.mode, board: manifest.name, runId: r.id, process: r.process };
  const about = inputsLine(state);
  const out: Notification[] = [];
  const push = (n: Omit<Notification, 'id' | keyof typeof base>) => {
    if (n.recipients.length > 0) out.push({ id: newId(), ...base, ...n, recipients: uniq(n.recipients) });
  };
  const rejectedInto = new Map<string, { note: string; by: string }>();
  for (const e of events) {
    if (e.action === 'step.rejected' && typeof e.changes?.to === 'string') rejectedInto.set(e.changes.to, { note: String(e.changes.note ?? ''), by: e.actor });
  }
  const lines = (...xs: (string | false | null | undefined)[]) => xs.filter((x): x is string => typeof x === 'string' && x !== '').join('\n');

  for (const e of events) {
    const def = p.steps.find((s) => s.id === e.entity);
    const st = def ? state.steps[def.id] : undefined;
    switch (e.action) {
      case 'work-item.opened':
      case 'step.returned': {
        if (!def || !st?.workItem || st.state !== 'waiting') break;
        const to = recipientsOf(assignment(state, pinned, def, st), manifest);
        const rejected = rejectedInto.get(def.id);
        const returned = e.action === 'step.returned';
        const kind = rejected ? 'rejected' : returned ? 'returned' : 'work_item';
        const verb = def.kind === 'approve' ? 'to approve' : 'to do';
        push({
          kind,
          stepId: def.id,
          workItemId: st.workItem,
          recipients: to,
          subject: rejected ? `Sent back to you: ${def.id} in ${p.name}` : returned ? `Returned to you: ${def.id} in ${p.name}` : `Waiting for you ${verb}: ${def.id} in ${p.name}`,
          text: lines(
            `${p.name} (${r.id})${about ? ` — ${about}` : ''}`,
            def.value,
            rejected && `Rejected by ${rejected.by}: ${rejected.note}`,
            returned && st.handoff?.returned && `Returned by ${st.handoff.returned.by}: ${st.handoff.returned.note}`,
            st.due ? `Due ${st.due}.` : undefined,
          ),
          path: `/work/${r.id}/${st.workItem}`,
        });
        break;
      }
      case 'step.rejected':
        // Told through the step it reopens (above) when that is a person's; an agent's step is simply ready again.
        break;
      case 'step.escalated': {
        if (!def || !st?.workItem) break;
        const unsure = st.escalation?.check !== undefined;
        push({
          kind: unsure ? 'check_unsure' : 'escalation',
          stepId: def.id,
          workItemId: st.workItem,
          recipients: manifest.operators,
          subject: unsure ? `A check was unsure; a person decides: ${def.id} in ${p.name}` : `Escalated by ${e.actor}: ${def.id} in ${p.name}`,
          text: lines(`${p.name} (${r.id})${about ? ` — ${about}` : ''}`, def.value, `Note: ${st.escalation?.note ?? ''}`),
          path: `/work/${r.id}/${st.workItem}`,
        });
        break;
      }
      case 'step.overdue': {
        if (!def || !st) break;
        const assigned = def.kind === 'agent' && !st.escalation ? [] : recipientsOf(assignment(state, pinned, def, st), manifest);
        push({
          kind: 'overdue',
          stepId: def.id,
          ...(st.workItem ? { workItemId: st.workItem } : {}),
          recipients: [...assigned, ...manifest.operators],
          subject: `Overdue: ${def.id} in ${p.name}`,
          text: lines(`${p.name} (${r.id})${about ? ` — ${about}` : ''}`, def.value, `It was due ${st.due ?? 'earlier'}.`),
          path: st.workItem ? `/work/${r.id}/${st.workItem}` : `/runs/${r.id}`,
        });
        break;
      }
      case 'run.ended':
      case 'run.cancelled': {
        if (!r.initiator) break;
        const how = e.action === 'run.cancelled' ? 'was cancelled' : `ended: ${r.outcome ?? 'no outcome'}`;
        push({
          kind: 'run_ended',
          recipients: [r.initiator],
          subject: `Your run of ${p.name} ${how}`,
          text: lines(`${p.name} (${r.id})${about ? ` — ${about}` : ''}`, `It ${how}.`, r.ended?.note ? `Note: ${r.ended.note}` : undefined),
          path: `/runs/${r.id}`,
        });
        break;
      }
    }
  }
  return out;
}

/** A notification for the operators about the board itself: a refused hand edit, an internal fault, a failing evaluator. */
export function operatorNotification(
  kind: 'edit_refused' | 'internal_fault' | 'evaluator_failing',
  manifest: Manifest,
  at: string,
  id: string,
  detail: { subject: string; text: string; runId?: string },
): Notification {
  return {
    id,
    kind,
    at,
    mode: 'live',
    board: manifest.name,
    ...(detail.runId ? { runId: detail.runId } : {}),
    recipients: uniq(manifest.operators),
    subject: detail.subject,
    text: detail.text,
    path: detail.runId ? `/runs/${detail.runId}` : '/operators',
  };
}

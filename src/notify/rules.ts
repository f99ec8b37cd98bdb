/**
 * Who is told what (pure): the audit events of one committed transition
 * become notifications, each with its recipients, a subject, plain text and
 * the web page where the recipient acts. They are written to the outbox in
 * the same transaction as the transition (see outbox.ts), so none is lost
 * and none is sent for a transition that did not commit.
 */
import type { Manifest } from '../board/manifest.js';
import type { EngineEvent, Pinned, RunState } from '../engine/types.js';
import { assignment, OPERATORS, snapshotOf } from '../engine/view.js';
import type { Process, Step } from '../process/model.js';
import type { Assignment } from '../protocol/views.js';
import { cutAtWord, exactTime, fieldLabel, findings, formatValue, humanize, inSentence, personName, runTitle, stepTitle, type WordsContext } from '../words/index.js';

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
  | 'superseded'
  | 'reminder'
  | 'ladder_escalation'
  | 'ladder_owner'
  | 'delegation_set'
  | 'delegation_ended';

export interface Notification {
  id: string;
  kind: NotificationKind;
  at: string;
  /** Test runs are recorded and never sent (docs/operators.md "Notifications"). */
  mode: 'live' | 'test';
  board: string;
  runId?: string;
  /** The run's name in words ("Expense approval · Jon Berg · 184.50 EUR"), as it was when the notification was made. */
  runTitle?: string;
  process?: string;
  stepId?: string;
  /** The step's title in words. */
  stepTitle?: string;
  workItemId?: string;
  /** When the step is due, if it is. */
  due?: string | null;
  /** Emails, as the board named them when the notification was made. */
  recipients: string[];
  subject: string;
  /** Plain text without the link; the link is added when it is sent (the base URL may change). */
  text: string;
  /** The web app's page for this notification, e.g. `/work/<run>/<item>`. */
  path: string;
  /**
   * With a Slack channel configured only (docs/operators.md "Slack"): the run data's snapshot
   * when the item was told of, and its step's kind, for the message's buttons.
   */
  snapshot?: string;
  stepKind?: Step['kind'];
}

/** The emails a work item's assignment reaches: a person, a group's members, or the operators. */
export function recipientsOf(a: Assignment, manifest: Manifest): string[] {
  if (a.person !== undefined) return a.person === '' ? [] : [a.person];
  if (a.group === OPERATORS) return [...manifest.operators];
  return [...(manifest.groups[a.group ?? ''] ?? [])];
}

/** The run's inputs as `Label: value` pairs in words, so two similar items can be told apart. */
function inputsLine(state: RunState, process: Process, ctx: WordsContext): string {
  return Object.entries(state.run.inputs)
    .filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    .slice(0, 4)
    .map(([k, v]) => `${fieldLabel(k, process.inputs[k])}: ${cutAtWord(formatValue(process.inputs[k], v, ctx).text, 80)}`)
    .join(' · ');
}

/** An agent's notes or a person's answer in an email: enough to decide on, cut at a word. */
const EMAIL_TEXT = 300;

/** What the steps done so far found, one line each, a warning marked ⚠; notes and answers too, cut short. */
function foundLines(state: RunState, process: Process, ctx: WordsContext): string[] {
  const data = { steps: Object.fromEntries(Object.entries(state.steps).map(([id, st]) => [id, { ...(st.current?.output ? { output: st.current.output } : {}) }])) };
  const found = findings(process, { data }, ctx, { longText: EMAIL_TEXT });
  return found.length === 0 ? [] : ['What was found:', ...found.map((f) => `${f.warning ? '⚠ ' : '- '}${f.label}: ${f.text}`)];
}

/** When a step is (or was) due, as a sentence in the board's zone: "Due Thu 3 Dec 2026, 19:54 CET." Single emails and digests say it alike. */
export function dueSentence(due: string | null | undefined, timeZone: string, was = false): string | undefined {
  return due ? `${was ? 'It was due' : 'Due'} ${exactTime(due, timeZone)}.` : undefined;
}

/** A step's title as the end of a subject: "…: approve the payout". */
const subjectStep = (step: Step): string => inSentence(cutAtWord(stepTitle(step), 50));

const uniq = (xs: string[]) => [...new Set(xs.map((x) => x.toLowerCase()))];

/**
 * The notifications one transition causes. `newId` gives each a fresh id;
 * `at` is the transition's time.
 */
export function runNotifications(events: readonly EngineEvent[], state: RunState, pinned: Pinned, manifest: Manifest, at: string, newId: () => string): Notification[] {
  const r = state.run;
  const p = pinned.process;
  const ctx: WordsContext = { people: manifest.people, timeZone: manifest.notifications.timeZone };
  const runName = runTitle(p, r.inputs, manifest.people);
  const base = { at, mode: r.mode, board: manifest.name, runId: r.id, runTitle: runName, process: r.process };
  const about = inputsLine(state, p, ctx);
  const found = foundLines(state, p, ctx);
  const name = (email: string) => personName(manifest.people, email);
  const dueLine = (due: string | null | undefined, was = false) => dueSentence(due, ctx.timeZone!, was);
  const out: Notification[] = [];
  // Slack's buttons decide on the data as it is now; nothing is added without a Slack channel.
  const forSlack = (n: Omit<Notification, 'id' | keyof typeof base>) => {
    const kind = manifest.notifications.slack && n.workItemId ? p.steps.find((s) => s.id === n.stepId)?.kind : undefined;
    return kind ? { snapshot: snapshotOf(state, pinned), stepKind: kind } : {};
  };
  const push = (n: Omit<Notification, 'id' | keyof typeof base>) => {
    if (n.recipients.length > 0) out.push({ id: newId(), ...base, ...n, recipients: uniq(n.recipients), ...forSlack(n) });
  };
  const rejectedInto = new Map<string, { note: string; by: string }>();
  for (const e of events) {
    if (e.action === 'step.rejected' && typeof e.changes?.to === 'string') rejectedInto.set(e.changes.to, { note: typeof e.changes.note === 'string' ? e.changes.note : '', by: e.actor });
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
        push({
          kind,
          stepId: def.id,
          stepTitle: stepTitle(def),
          workItemId: st.workItem,
          due: st.due ?? null,
          recipients: to,
          subject: `${runName}: ${subjectStep(def)}${rejected ? ' (sent back to you)' : returned ? ' (returned to you)' : ''}`,
          text: lines(
            about,
            def.value,
            ...found,
            rejected && `Rejected by ${name(rejected.by)}: ${rejected.note}`,
            returned && st.handoff?.returned && `Returned by ${name(st.handoff.returned.by)}: ${st.handoff.returned.note}`,
            dueLine(st.due),
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
          stepTitle: stepTitle(def),
          workItemId: st.workItem,
          due: st.due ?? null,
          recipients: manifest.operators,
          subject: `${runName}: ${subjectStep(def)} (${unsure ? 'a check was unsure; a person decides' : `escalated by ${name(e.actor)}`})`,
          text: lines(about, def.value, ...found, `Note: ${st.escalation?.note ?? ''}`),
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
          stepTitle: stepTitle(def),
          ...(st.workItem ? { workItemId: st.workItem } : {}),
          due: st.due ?? null,
          recipients: [...assigned, ...manifest.operators],
          subject: `Overdue: ${runName}: ${subjectStep(def)}`,
          text: lines(about, def.value, ...found, dueLine(st.due, true) ?? 'It was due earlier.'),
          path: st.workItem ? `/work/${r.id}/${st.workItem}` : `/runs/${r.id}`,
        });
        break;
      }
      case 'run.ended':
      case 'run.cancelled': {
        if (!r.initiator) break;
        const how = e.action === 'run.cancelled' ? 'was cancelled' : `ended: ${r.outcome ? inSentence(humanize(r.outcome)) : 'no outcome'}`;
        push({
          kind: 'run_ended',
          recipients: [r.initiator],
          subject: `${runName}: your run ${how}`,
          text: lines(about, `It ${how}.`, ...found, r.ended?.note ? `Note: ${r.ended.note}` : undefined),
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

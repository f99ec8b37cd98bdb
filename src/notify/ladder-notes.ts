/**
 * A ladder in words (pure): who a rung tells, the notification it sends, and
 * where an item stands on its ladder ("Reminded twice; goes to the finance
 * leads in 4 hours."), for the item's page, My work and the emails alike
 * (docs/people.md "Reminders").
 */
import type { Manifest } from '../board/manifest.js';
import type { Pinned, RunState, StepState } from '../engine/types.js';
import { assignment, OPERATORS } from '../engine/view.js';
import type { Step } from '../process/model.js';
import type { Assignment } from '../protocol/views.js';
import { cutAtWord, humanize, inSentence, personName, relativeTime, runTitle, stepTitle, type PersonLike } from '../words/index.js';
import type { PlannedRung, Rung, RungRecords } from './ladder.js';
import { dueSentence, recipientsOf, type Notification } from './rules.js';

/** A group, "operators" or a person, as a person reads it: "the finance leads", "the operators", "Mira Okafor". */
export function audienceWords(to: string, people: readonly PersonLike[]): string {
  if (to === OPERATORS) return 'the operators';
  if (to.includes('@')) return personName(people, to);
  return `the ${humanize(to).toLowerCase()}`;
}

/** Who an assignment names: a person by name, or a group in words. */
export function assigneeWords(a: Assignment, people: readonly PersonLike[]): string {
  if (a.person !== undefined) return a.person === '' ? 'nobody' : personName(people, a.person);
  return audienceWords(a.group ?? '', people);
}

/** Who a rung tells: the assignees, a group, the operators, or a person. */
export function rungRecipients(rung: Pick<Rung, 'to'>, assigned: Assignment, manifest: Manifest): string[] {
  if (rung.to === null) return recipientsOf(assigned, manifest);
  if (rung.to.includes('@')) return [rung.to];
  return recipientsOf({ group: rung.to }, manifest);
}

const TIMES = ['never', 'once', 'twice'];
const timesWord = (n: number) => TIMES[n] ?? `${n} times`;

/** What the next rung will do, in words: "next reminder in 2 hours", "goes to the finance leads in 4 hours". */
function nextWords(next: PlannedRung, now: Date, people: readonly PersonLike[]): string {
  // A rung already due (no serve ran to send it) goes as soon as one does: "now", never "2 hours ago".
  const when = next.fireAt <= now.getTime() ? 'now' : relativeTime(new Date(next.fireAt).toISOString(), now);
  const wait = next.waited === 'quiet hours' ? ' (after quiet hours)' : next.waited === 'day off' ? ' (on the next working day)' : '';
  if (next.kind === 'remind') return `next reminder ${when}${wait}`;
  const who = audienceWords(next.to ?? '', people);
  return `goes to ${who}${next.kind === 'owner' ? ', the process owner,' : ''} ${when}${wait}`;
}

/**
 * Where an item stands on its ladder, as one sentence: what was sent and what
 * comes next. Null when the ladder has nothing sent and nothing to come.
 */
export function ladderSentence(done: RungRecords, next: PlannedRung | null, now: Date, people: readonly PersonLike[]): string | null {
  const sent = Object.values(done).filter((r) => r.sent);
  const reminded = sent.filter((r) => r.kind === 'remind').length;
  const told = sent.filter((r) => r.kind !== 'remind').map((r) => audienceWords(r.to ?? '', people));
  const clauses: string[] = [];
  if (reminded > 0) clauses.push(`reminded ${timesWord(reminded)}`);
  if (told.length > 0) clauses.push(`told ${told.join(' and ')}`);
  if (next) clauses.push(nextWords(next, now, people));
  else if (clauses.length > 0) clauses.push('no more reminders');
  if (clauses.length === 0) return null;
  const s = clauses.join('; ');
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}

/** The notification a rung sends about a waiting work item. */
export function rungNotification(
  rung: PlannedRung,
  state: RunState,
  pinned: Pinned,
  def: Step,
  st: StepState,
  manifest: Manifest,
  at: string,
  id: string,
  after: PlannedRung | null,
): Notification | null {
  const r = state.run;
  const people = manifest.people;
  const assigned = assignment(state, pinned, def, st);
  const recipients = [...new Set(rungRecipients(rung, assigned, manifest).map((x) => x.toLowerCase()))];
  if (recipients.length === 0 || !st.workItem) return null;
  const runName = runTitle(pinned.process, r.inputs, people);
  const step = inSentence(cutAtWord(stepTitle(def), 50));
  const tz = manifest.notifications.timeZone;
  const overdue = st.due !== null && Date.parse(st.due) <= Date.parse(at);
  const due = dueSentence(st.due, tz, overdue);
  const who = assigneeWords(assigned, people);
  const then = after ? `If it is still open, it ${nextWords(after, new Date(at), people)}.` : undefined;
  const common = {
    id,
    at,
    mode: r.mode,
    board: manifest.name,
    runId: r.id,
    runTitle: runName,
    process: r.process,
    stepId: def.id,
    stepTitle: stepTitle(def),
    workItemId: st.workItem,
    due: st.due,
    recipients,
    path: `/work/${r.id}/${st.workItem}`,
  };
  const lines = (...xs: (string | undefined)[]) => xs.filter((x): x is string => typeof x === 'string' && x !== '').join('\n');
  if (rung.kind === 'remind') {
    return { ...common, kind: 'reminder', subject: `Reminder: ${runName}: ${step}${overdue ? ' (overdue)' : ''}`, text: lines(`This still waits for you${a(assigned)}.`, def.value, due, then) };
  }
  const role = rung.kind === 'owner' ? ' as the owner of this process' : '';
  return {
    ...common,
    kind: rung.kind === 'owner' ? 'ladder_owner' : 'ladder_escalation',
    subject: `Still waiting on ${who}: ${runName}: ${step}`,
    text: lines(`You are told${role} because this work item is still open; it is assigned to ${who}. Nothing is decided for them.`, def.value, due, then),
  };
}

/** " (as one of the finance group)": how a group's member is reached. */
function a(assigned: Assignment): string {
  return assigned.group && assigned.group !== OPERATORS ? ` (as one of the ${humanize(assigned.group).toLowerCase()})` : '';
}

/**
 * A person's decision on a work item (docs/agents.md "The tools", decide; docs/people.md "Out of office"):
 * who may decide, in the documented order of refusals, and what each decision does to the run.
 * Split from commands.ts, whose submission path (check, cap) a completed decision shares.
 */
import type { Step } from '../process/model.js';
import { checkIssues, type CheckOutcome } from './check.js';
import { accept, type FileCheck, type Submission } from './acceptance.js';
import type { Machine } from './machine.js';
import type { Actor, StepState } from './types.js';
import type { Completion } from '../protocol/completions.js';
import { fourEyesProblem } from './rights.js';
import { decidesFor, delegatorActor } from './delegation.js';
import { assignment, decisionsFor, snapshotOf, OPERATORS } from './view.js';
import { capIssue, completeChecked, no, RUN_ENDED, withCheck, type Stop } from './commands.js';

export interface Decision extends Submission {
  workItemId: string;
  snapshot: string;
  decision: 'completed' | 'approved' | 'rejected' | 'returned' | 'failed';
  note?: string;
}

/** What a decision is checked against besides the run: the board's groups, and whether four eyes applies to this process. */
export interface DecideRules {
  groups: Record<string, string[]>;
  fourEyes: boolean;
}

/** Is this person among those the work item is assigned to? */
export function mayDecide(actor: Actor, assigned: { group?: string; person?: string }, groups: Record<string, string[]>): boolean {
  if (actor.kind !== 'person') return false;
  if (assigned.person !== undefined) return assigned.person.toLowerCase() === actor.email.toLowerCase();
  if (assigned.group === OPERATORS) return actor.operator;
  return (groups[assigned.group ?? ''] ?? []).some((e) => e.toLowerCase() === actor.email.toLowerCase());
}

export function decide(m: Machine, d: Decision, actor: Actor, rules: DecideRules, checkFile: FileCheck, check?: CheckOutcome): Stop | undefined {
  const groups = rules.groups;
  // The documented order: run_ended, already_decided, not_found, stale, forbidden, not_accepted.
  if (m.ended) return RUN_ENDED();
  const steps = Object.values(m.state.steps);
  const st = steps.find((s) => s.workItem === d.workItemId);
  if (!st) {
    if (steps.some((s) => s.decided.includes(d.workItemId))) return no('conflict', 'this work item was already decided', ['already_decided']);
    return no('not_found', `no work item ${d.workItemId} on this run`);
  }
  if (d.snapshot !== snapshotOf(m.state, m.pinned)) {
    return no('stale', 'the run data changed since you read it; call get_run for a fresh snapshot and decide again');
  }
  const def = m.def(st.id);
  if (actor.kind !== 'person') return no('forbidden', 'only a person decides; an agent identity never can');
  const assigned = assignment(m.state, m.pinned, def, st);
  const may = (a: Actor) => mayDecide(a, assigned, groups);
  const eyesOf = (a: Actor) => (rules.fourEyes ? fourEyesProblem(m.state, def, a) : null);
  // docs/people.md "Out of office": the person's own assignment first, else a delegator's; four eyes for both.
  const forWhom = decidesFor(actor, may, (a) => eyesOf(a) !== null);
  if (forWhom === undefined) {
    const mine = may(actor) ? eyesOf(actor) : null;
    if (mine) return no('forbidden', mine, ['four_eyes']);
    const theirs = (actor.delegators ?? []).map(delegatorActor).filter(may);
    const blocked = eyesOf(actor) ?? theirs.map(eyesOf).find((e) => e !== null);
    if (theirs.length > 0 && blocked) return no('forbidden', blocked, ['four_eyes']);
    return no('forbidden', `${actor.email} is not assigned this work item`);
  }
  const from = m.events.length;
  const stop = decideAs(m, d, actor, def, st, checkFile, check);
  // The decision is the delegate's, recorded in their name, with the person it was made for.
  if (forWhom) for (const e of m.events.slice(from)) if (e.actor === actor.email) e.changes = { ...(e.changes ?? {}), for: forWhom.email };
  return stop;
}

function decideAs(m: Machine, d: Decision, actor: Actor & { kind: 'person' }, def: Step, st: StepState, checkFile: FileCheck, check?: CheckOutcome): Stop | undefined {
  const allowed = decisionsFor(def, st);
  const issues: string[] = [];
  if (!allowed.includes(d.decision)) issues.push(`decision: ${d.decision} is not allowed here; one of ${allowed.join(', ')}`);
  if (d.decision !== 'completed') {
    for (const k of ['output', 'evidence', 'summary', 'next', 'reason'] as const) if (d[k] !== undefined) issues.push(`${k}: only with decision completed`);
    if ((d.decision === 'rejected' || d.decision === 'returned' || d.decision === 'failed') && (d.note === undefined || d.note.trim() === '')) {
      issues.push(`note: required with decision ${d.decision}`);
    }
  } else if (d.note !== undefined) issues.push('note: not allowed with decision completed; use summary');
  if (issues.length > 0) return no('invalid', 'this decision does not fit the work item', issues);

  const by = actor.email;
  switch (d.decision) {
    case 'approved':
      // A note is optional here, but a person's words are kept when given, as a rejection's are.
      m.complete(st.id, { decision: 'approved', ...(d.note?.trim() ? { note: d.note } : {}), by, at: m.at });
      return;
    case 'rejected':
      close(st, { decision: 'rejected', note: d.note!, by, at: m.at }, 'done');
      m.emit('step.rejected', by, st.id, { note: d.note, ...(def.onReject ? { to: def.onReject } : {}) });
      if (def.onReject) m.rework(def.onReject, st.id);
      else m.end('ended', 'rejected', { by, at: m.at, note: d.note! });
      return;
    case 'failed':
      close(st, { decision: 'failed', note: d.note!, by, at: m.at }, 'failed');
      m.emit('step.failed', by, st.id, { note: d.note });
      m.end('ended', 'failed', { by, at: m.at, note: d.note! });
      return;
    case 'returned': {
      // Back to whoever had it: an agent step is ready again; a task reopens for its person.
      const check = st.escalation?.check;
      st.decided.push(st.workItem!);
      st.workItem = null;
      st.escalation = null;
      st.readySince = m.at;
      st.handoff = { returned: { note: d.note!, by, at: m.at }, ...(check ? { issues: checkIssues(def, check, m.ctx.limits), check } : {}) };
      if (def.kind === 'agent') st.state = 'ready';
      else st.workItem = m.workItemId(st.id);
      m.emit('step.returned', by, st.id, { note: d.note, ...(st.workItem ? { workItem: st.workItem } : {}) });
      return;
    }
    case 'completed': {
      const held = st.escalation?.candidate;
      const own = (['output', 'evidence', 'summary', 'next', 'reason'] as const).some((k) => d[k] !== undefined);
      if (held && !own) {
        // The person takes the submission the check was unsure of, as it was accepted then.
        m.complete(st.id, withCheck({ ...held, by, at: m.at }, st.escalation!.check!), held.next);
        return;
      }
      const { issues: problems, evidence } = accept(def, d, { summaryRequired: false, checkFile, people: m.ctx.people });
      const cap = problems.length === 0 ? capIssue(m, d) : null;
      if (cap) problems.push(cap);
      if (problems.length > 0) return no('not_accepted', `the completion of ${st.id} was not accepted; fix every issue and decide again`, problems);
      const completion: Completion = {
        output: (d.output ?? {}) as Record<string, unknown>,
        ...(evidence.length > 0 ? { evidence } : {}),
        ...(d.summary !== undefined ? { summary: d.summary } : {}),
        ...(d.next !== undefined ? { next: d.next, reason: d.reason! } : {}),
        by,
        at: m.at,
      };
      // A person completing an escalated step is not checked again; an ordinary task is (docs/processes.md "Verdicts").
      if (st.escalation) {
        const v = st.escalation.check;
        m.complete(st.id, v ? withCheck(completion, v) : completion, d.next);
        return;
      }
      return completeChecked(m, def, completion, actor, check);
    }
  }
}

/** Close a work item with a decision that does not move along `next`. */
function close(st: StepState, completion: Completion, state: 'done' | 'failed'): void {
  if (st.current) st.history.push(st.current);
  st.current = completion;
  if (st.workItem) st.decided.push(st.workItem);
  st.workItem = null;
  st.state = state;
}

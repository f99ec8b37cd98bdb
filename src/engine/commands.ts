/**
 * The protocol's writes as functions over a Machine (see docs/agents.md "The tools"
 * and docs/processes.md "How a run moves"). Each checks in the documented order and either applies the
 * transition with everything it triggers, or returns a `Stop`: a refusal
 * (changing nothing, unless it says what it keeps) or a request for a check
 * verdict. Nothing is thrown; `execute.ts` turns these into plans.
 */
import { formatPath } from '../core/issues.js';
import type { Process, Step } from '../process/model.js';
import { checkIssues, checkRequest, verdictOf, type CheckOutcome, type CheckRequest } from './check.js';
import { checkValues } from '../process/values.js';
import { accept, type FileCheck, type Submission } from './acceptance.js';
import { Machine } from './machine.js';
import { actorName, SERVER, type Actor, type Context, type Lease, type Pinned, type RunState, type StepState } from './types.js';
import { type Completion, type Verdict } from '../protocol/completions.js';
import { ToolError, type ErrorCode } from '../protocol/errors.js';
import { fourEyesProblem, inScope, scopeRefusal } from './rights.js';
import { decidesFor, delegatorActor } from './delegation.js';
import { blockerIssues, blockersVerdict, type BlockerReads } from './blockers.js';
import { startPriority } from './priority.js';
import { assignment, decisionsFor, snapshotOf, OPERATORS } from './view.js';

/**
 * Why a command did not complete: a refusal (with `keep` when what it found
 * must still be written: a failed check's verdict, a refused submission's
 * issues kept with its claim), or the verdict it needs on exactly this material.
 */
export type Stop = { refuse: ToolError; keep?: 'run' | 'lease' } | { check: CheckRequest };

export function isStop(x: unknown): x is Stop {
  return typeof x === 'object' && x !== null && ('refuse' in x || 'check' in x);
}

export const no = (code: ErrorCode, message: string, issues?: string[]): Stop => ({ refuse: new ToolError(code, message, issues) });

export const RUN_ENDED = () => no('conflict', 'the run has ended; nothing more can change it', ['run_ended']);

export function dataBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
}

function capIssue(m: Machine, extra: unknown): string | null {
  const size = dataBytes({ inputs: m.state.run.inputs, steps: m.state.steps, events: m.state.run.events, extra });
  return size > m.ctx.limits.runDataBytes ? `run data: ${size} bytes, over the limit of ${m.ctx.limits.runDataBytes}` : null;
}

/** An agent writes only to runs of the processes WORK.md lets it work on, as WORK.md says at this call. */
function outsideScope(actor: Actor, process: string): Stop | undefined {
  if (!inScope(actor, process)) return no('forbidden', scopeRefusal(actor, process), [`process: ${process} is outside this agent's scope`]);
}

/** Does any step assign work to the initiator (refused for an agent starter)? */
function usesInitiator(p: Process): boolean {
  return p.steps.some((s) => s.person === 'initiator');
}

/**
 * docs/processes.md "How a run moves" and flow-1: a new run from its inputs, entered at its first step, or
 * blocked (no step entered) while a run its `blocked_by` input names is open.
 * `blockers` is what the service read for each run that input names (null: none such).
 */
export function startRun(
  pinned: Pinned,
  args: { inputs: unknown; mode: 'live' | 'test'; blockers?: BlockerReads; parent?: string; priority?: number },
  actor: Actor,
  ctx: Context,
  runId: string,
): Machine | Stop {
  const issues: string[] = [];
  checkValues(pinned.process.inputs, args.inputs, ['inputs'], (path, message) => issues.push(`${formatPath(path)}: ${message}`), ctx.people);
  const blockedBy = issues.length === 0 ? namedBlockers(pinned.process, args.inputs) : [];
  if (blockedBy.length > 0) issues.push(...blockerIssues(pinned.process.flow!.blockedBy!, blockedBy, args.blockers ?? new Map()));
  const outside = outsideScope(actor, pinned.process.name);
  if (outside) return outside;
  if (actor.kind === 'agent' && usesInitiator(pinned.process)) {
    issues.push('initiator: this process assigns work to the person who starts it; an agent cannot start it');
  }
  const inputs = (args.inputs ?? {}) as Record<string, unknown>;
  if (dataBytes(inputs) > ctx.limits.runDataBytes) issues.push(`inputs: ${dataBytes(inputs)} bytes, over the limit of ${ctx.limits.runDataBytes}`);
  if (issues.length > 0) return no('invalid', `the inputs do not fit ${pinned.process.name} v${pinned.version}`, issues);
  const now = ctx.now.toISOString();
  const state: RunState = {
    run: {
      id: runId,
      process: pinned.process.name,
      version: pinned.version,
      hash: pinned.hash,
      mode: args.mode,
      state: 'active',
      outcome: null,
      ended: null,
      startedBy: actorName(actor),
      initiator: actor.kind === 'person' ? actor.email : null,
      startedAt: now,
      updatedAt: now,
      inputs,
      events: [],
    },
    steps: {},
    leases: {},
  };
  const priority = args.priority ?? startPriority(pinned.process, inputs);
  if (priority !== null) state.run.priority = priority;
  if (args.parent !== undefined) state.run.parent = args.parent;
  const m = new Machine(state, pinned, ctx);
  m.emit('run.started', actorName(actor), `run:${runId}`, { process: pinned.process.name, version: pinned.version, mode: args.mode });
  if (blockedBy.length > 0) {
    state.run.blockedBy = blockedBy;
    const verdict = blockersVerdict(blockedBy, args.blockers ?? new Map());
    if (verdict.kind === 'wait') {
      state.run.blocked = true;
      m.emit('run.blocked', SERVER, `run:${runId}`, { waitingFor: verdict.waitingFor });
      return m;
    }
  }
  m.enter(pinned.process.steps[0]!.id);
  return m;
}

/** The run ids a start's `blocked_by` input names (flow-1), or none. */
export function namedBlockers(process: Process, inputs: unknown): string[] {
  const field = process.flow?.blockedBy;
  const v = field !== undefined && typeof inputs === 'object' && inputs !== null && Object.hasOwn(inputs, field) ? (inputs as Record<string, unknown>)[field] : undefined;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function claim(m: Machine, stepId: string, actor: Actor): Lease | Stop {
  if (m.ended) return RUN_ENDED();
  if (actor.kind !== 'agent') return no('forbidden', 'only an agent claims steps; people use get_work and decide');
  const outside = outsideScope(actor, m.pinned.process.name);
  if (outside) return outside;
  const def = m.defs.get(stepId);
  if (!def) return no('not_found', `no step ${stepId} in this run`);
  if (def.kind !== 'agent') return no('forbidden', `${stepId} is a ${def.kind} step, not an agent step`);
  const st = m.state.steps[stepId];
  const lease = m.state.leases[stepId];
  if (lease) {
    const mine = lease.agent === actor.id;
    return mine
      ? no('conflict', `you already hold this claim until ${lease.expiresAt}; if its token was lost, repeat your claim call with the same requestId to get it back`, ['claimed_by_you'])
      : no('conflict', `another agent holds this step until ${lease.expiresAt} (unless it renews)`, ['claimed_by_other']);
  }
  if (!st || st.state !== 'ready') return no('conflict', `${stepId} is not ready`, ['not_ready']);
  const now = m.ctx.now.getTime();
  const claimed: Lease = {
    stepId,
    claimId: m.ctx.newId('c'),
    agent: actor.id,
    claimedAt: new Date(now).toISOString(),
    expiresAt: new Date(now + m.ctx.limits.leaseSeconds * 1000).toISOString(),
  };
  m.state.leases[stepId] = claimed;
  m.emit('step.claimed', actor.id, stepId, { expiresAt: claimed.expiresAt });
  return claimed;
}

/**
 * The live lease a token names, used by the agent that claimed it and no one
 * else: a token handed to (or stolen by) another identity is `forbidden`.
 */
function liveLease(m: Machine, stepId: string, claimId: string, actor: Actor): Lease | Stop {
  const lease = m.state.leases[stepId];
  if (!lease || lease.claimId !== claimId || Date.parse(lease.expiresAt) <= m.ctx.now.getTime()) {
    const done = m.state.steps[stepId];
    // Say who did the work instead: after a sync, the step may have been completed on another clone (docs/git.md "Never completed twice").
    if (done?.state === 'done' && done.current) return no('stale', `this claim is no longer current: ${done.current.by} completed ${stepId} at ${done.current.at}; call get_work again`);
    return no('stale', 'this claim is no longer current (its lease ended or it was replaced); call get_work again');
  }
  if (actor.kind !== 'agent' || lease.agent !== actor.id) return { refuse: claimedByAnother(lease.agent, actor) };
  return lease;
}

/**
 * A lease this coordinator keeps (under `.work/`) for a step that moved on
 * without it: the step is no longer ready, or was made ready again after the
 * claim. Within one coordinator every move of a step ends its lease, so this
 * happens only when the step's files arrive from another clone through git;
 * such a lease is over (docs/git.md "Never completed twice").
 */
export function leaseStranded(step: StepState | undefined, lease: Lease): boolean {
  return !step || step.state !== 'ready' || (step.readySince !== null && step.readySince > lease.claimedAt);
}

/** Events that change only who holds a step until when: they move no run file. */
export const LEASE_ONLY_EVENTS: ReadonlySet<string> = new Set(['step.renewed']);

/** The refusal for a claim token used by an identity other than the agent that claimed. */
function claimedByAnother(claimant: string, actor: Actor): ToolError {
  return new ToolError('forbidden', `this claim token was issued to agent ${claimant}; only ${claimant} may use it`, [`token: issued to ${claimant}, not ${actorName(actor)}`]);
}

/**
 * Before renew, submit or escalate: a token works only for the agent it was
 * issued to (`claimant`, as the token says), whatever became of its lease,
 * and only on a process in its scope. Only run_ended comes first, as on every write.
 */
export function tokenHolder(m: Machine, claimant: string | undefined, actor: Actor): Stop | undefined {
  if (m.ended) return RUN_ENDED();
  if (claimant !== undefined && (actor.kind !== 'agent' || actor.id !== claimant)) return { refuse: claimedByAnother(claimant, actor) };
  // A claim taken before the agent's scope narrowed is worked no further.
  return outsideScope(actor, m.pinned.process.name);
}

export function renew(m: Machine, stepId: string, claimId: string, progress: string | undefined, actor: Actor): Lease | Stop {
  if (m.ended) return RUN_ENDED();
  const old = liveLease(m, stepId, claimId, actor);
  if (isStop(old)) return old;
  const now = m.ctx.now.getTime();
  const next: Lease = {
    ...old,
    claimId: m.ctx.newId('c'),
    expiresAt: new Date(now + m.ctx.limits.leaseSeconds * 1000).toISOString(),
    ...(progress !== undefined ? { progress } : {}),
  };
  m.state.leases[stepId] = next;
  // Audited like every change of who holds the work and until when; the step file is untouched.
  m.emit('step.renewed', actorName(actor), stepId, { expiresAt: next.expiresAt, ...(progress !== undefined ? { progress } : {}) });
  return next;
}

export function submit(m: Machine, stepId: string, claimId: string, sub: Submission, actor: Actor, checkFile: FileCheck, check?: CheckOutcome): Stop | undefined {
  if (m.ended) return RUN_ENDED();
  const lease = liveLease(m, stepId, claimId, actor);
  if (isStop(lease)) return lease;
  const def = m.def(stepId);
  const { issues, evidence } = accept(def, sub, { summaryRequired: true, checkFile, people: m.ctx.people });
  const cap = issues.length === 0 ? capIssue(m, sub) : null;
  if (cap) issues.push(cap);
  // Refused, and the issues stay with the claim so a next claimant's handoff shows them.
  if (issues.length > 0) return { refuse: new ToolError('not_accepted', `the submission for ${stepId} was not accepted; fix every issue and submit again`, issues), keep: 'lease' };
  const completion: Completion = {
    output: (sub.output ?? {}) as Record<string, unknown>,
    ...(evidence.length > 0 ? { evidence } : {}),
    summary: sub.summary!,
    ...(sub.next !== undefined ? { next: sub.next, reason: sub.reason! } : {}),
    by: actorName(actor),
    at: m.at,
  };
  return completeChecked(m, def, completion, actor, check);
}

/**
 * Complete a step through its check, if it has one (docs/processes.md "Verdicts"): pass and
 * advisory verdicts complete it with the verdict recorded; fail refuses with
 * the verdict in the handoff; unsure holds the submission for a person;
 * an evaluator that did not answer is `retry`.
 */
function completeChecked(m: Machine, def: Step, completion: Completion, actor: Actor, outcome: CheckOutcome | undefined): Stop | undefined {
  if (!def.check) {
    m.complete(def.id, completion, completion.next);
    return;
  }
  const request = checkRequest(m.state, m.pinned, def, completion, m.ctx.limits);
  if (!outcome || outcome.material !== request.hash) return { check: request };
  const v = verdictOf(def, outcome, request, m.ctx.limits, m.at);
  const lines = checkIssues(def, v, m.ctx.limits);
  if (!v.advisory && v.verdict === 'error') {
    return no('retry', `the check evaluator did not answer (${'error' in outcome ? outcome.error : 'no answer'}); nothing changed, submit again with the same requestId`);
  }
  if (!v.advisory && v.verdict === 'fail') {
    const st = m.step(def.id);
    st.handoff = { ...(st.handoff ?? {}), issues: lines, check: v };
    m.emit('step.check-failed', actorName(actor), def.id, { issues: lines });
    // Refused, and the verdict is kept in the step's handoff (written with the refusal).
    return { refuse: new ToolError('not_accepted', `the check on ${def.id} failed; fix what it names and submit again`, lines), keep: 'run' };
  }
  if (!v.advisory && v.verdict === 'unsure') {
    m.escalate(def.id, { note: `The check was unsure; a person decides. ${lines.join('; ')}`, by: SERVER, at: m.at, check: v, candidate: completion });
    return;
  }
  m.complete(def.id, withCheck(completion, v), completion.next);
}

/** A completion with its verdict, in the file's key order (check before by and at). */
function withCheck(c: Completion, v: Verdict): Completion {
  const { by, at, check: _old, ...rest } = c;
  return { ...rest, check: v, by, at };
}

export function escalate(m: Machine, stepId: string, claimId: string, note: string, actor: Actor): Stop | undefined {
  if (m.ended) return RUN_ENDED();
  const lease = liveLease(m, stepId, claimId, actor);
  if (isStop(lease)) return lease;
  m.escalate(stepId, { note, by: actorName(actor), at: m.at });
}

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

export function cancel(m: Machine, reason: string, actor: Actor): Stop | undefined {
  if (m.ended) return RUN_ENDED();
  if (actor.kind !== 'person' || !actor.operator) return no('forbidden', 'only an operator cancels a run');
  m.end('cancelled', null, { by: actor.email, at: m.at, note: reason });
}

/** A removed agent's claims end at once: each step it held is ready again, with a handoff (as when a lease expires). */
export function endClaims(m: Machine, agent: string, by: string): void {
  for (const lease of Object.values(m.state.leases)) if (lease.agent === agent) m.endLease(lease, 'claim.ended', by, { agent, reason: 'the agent was removed from the board' });
}

/** docs/processes.md "How a run moves", Events: deliver an event to the wait that is ready for it, or hold it. Returns the step that consumed it, or null. */
export function sendEvent(m: Machine, name: string, data: Record<string, unknown> | undefined, actor: Actor): { consumedBy: string | null } | Stop {
  if (m.ended) return RUN_ENDED();
  if (actor.kind === 'person' && !actor.operator) return no('forbidden', 'events come from agents and operators');
  const outside = outsideScope(actor, m.pinned.process.name);
  if (outside) return outside;
  const by = actorName(actor);
  const held = { name, ...(data !== undefined ? { data } : {}), by, at: m.at };
  // Delivered or held, the event's data joins the run data, so the cap applies either way.
  const cap = capIssue(m, held);
  if (cap) return no('not_accepted', 'the event does not fit in the run data', [cap]);
  const waiting = m.pinned.process.steps.find((s) => s.kind === 'wait_for' && s.value === name && m.state.steps[s.id]?.state === 'waiting');
  if (waiting) {
    m.emit('event.received', by, waiting.id, { name });
    m.complete(waiting.id, { output: data ?? {}, by, at: m.at });
    return { consumedBy: waiting.id };
  }
  m.state.run.events.push(held);
  m.emit('event.held', by, `run:${m.state.run.id}`, { name });
  return { consumedBy: null };
}

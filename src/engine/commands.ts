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
import { inScope, scopeRefusal } from './rights.js';
import { blockerIssues, blockersVerdict, type BlockerReads } from './blockers.js';
import { startPriority } from './priority.js';

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

export function capIssue(m: Machine, extra: unknown): string | null {
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
export function completeChecked(m: Machine, def: Step, completion: Completion, actor: Actor, outcome: CheckOutcome | undefined): Stop | undefined {
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
export function withCheck(c: Completion, v: Verdict): Completion {
  const { by, at, check: _old, ...rest } = c;
  return { ...rest, check: v, by, at };
}

export function escalate(m: Machine, stepId: string, claimId: string, note: string, actor: Actor): Stop | undefined {
  if (m.ended) return RUN_ENDED();
  const lease = liveLease(m, stepId, claimId, actor);
  if (isStop(lease)) return lease;
  m.escalate(stepId, { note, by: actorName(actor), at: m.at });
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

/**
 * The engine's front door. A command applied to a run's stored state returns
 * a plan, a plain value the service carries out: commit this state with these
 * audit events and this result; refuse (keeping, when it must, what it found);
 * or ask for a check verdict on exactly this material. The stored state is
 * never touched: the engine works on its own copy, applies elapsed deadlines,
 * runs the command and settles once.
 */
import type { Submission, FileCheck } from './acceptance.js';
import type { CheckOutcome, CheckRequest } from './check.js';
import * as cmd from './commands.js';
import { decide, type DecideRules, type Decision } from './decide.js';
import type { BlockerReads } from './blockers.js';
import { childRefused, childrenMoved, parentEnded, setPriority, unblock } from './flow-commands.js';
import type { ChildReads } from './children.js';
import { Machine } from './machine.js';
import type { ToolError } from '../protocol/errors.js';
import type { Actor, ChildStart, Context, EngineEvent, Lease, Pinned, RunState } from './types.js';

/** A write on an existing run, with what the service found for it (file hashes, a verdict). */
export type Command =
  | { tool: 'claim'; stepId: string }
  | ({ tool: 'renew'; progress?: string } & ClaimRef)
  | ({ tool: 'submit'; submission: Submission; checkFile: FileCheck; check?: CheckOutcome } & ClaimRef)
  | ({ tool: 'escalate'; note: string } & ClaimRef)
  | { tool: 'decide'; decision: Decision; rules: DecideRules; checkFile: FileCheck; check?: CheckOutcome }
  | { tool: 'cancel'; reason: string }
  | { tool: 'send_event'; name: string; data?: Record<string, unknown> }
  /** Nothing but the deadlines that fell due (the daemon's tick). */
  | { tool: 'tick' }
  /** End every claim an agent holds (it was removed from the board by `by`). */
  | { tool: 'end_claims'; agent: string; by: string }
  /** flow-1: a blocked run's blockers as read now (docs/profile-flow-1.md "3. Runs blocked by other runs"). */
  | { tool: 'unblock'; blockers: BlockerReads }
  /** flow-1: a person sets the run's priority (docs/profile-flow-1.md "2. Priority"). */
  | { tool: 'set_priority'; priority: number }
  /** flow-1: a parent's children as read now (docs/profile-flow-1.md "5. Subprocess steps"). */
  | { tool: 'children'; children: ChildReads }
  /** flow-1: a child could not be started; the step waiting for it fails. */
  | { tool: 'child_refused'; child: string; note: string }
  /** flow-1: this run's parent ended; it is cancelled, saying so. */
  | { tool: 'parent_ended'; note: string };

/** What a claim token names: the claim, and the agent it was issued to (absent in tokens that do not say). */
export interface ClaimRef {
  stepId: string;
  claimId: string;
  claimant?: string;
}

/** What a committed command hands back besides the new state: the lease it made, the wait an event reached. */
export type CommandResult = { lease: Lease } | { consumedBy: string | null } | null;

export interface Change {
  state: RunState;
  events: EngineEvent[];
  /** flow-1: the runs this change starts, in its commit (absent: none). */
  starts?: ChildStart[];
}

export type Plan = ({ kind: 'commit'; result: CommandResult } & Change) | { kind: 'refuse'; error: ToolError; keep?: Change } | { kind: 'check'; request: CheckRequest };

/** docs/processes.md "How a run moves": a new run from its validated inputs, entered at its first step and settled. */
export function start(pinned: Pinned, args: Parameters<typeof cmd.startRun>[1], actor: Actor, ctx: Context, runId: string): Plan {
  const m = cmd.startRun(pinned, args, actor, ctx, runId);
  if (cmd.isStop(m)) return planOfStop(m, null, null, undefined);
  m.applyDeadlines();
  m.settle();
  return { kind: 'commit', state: m.state, events: m.events, result: null, ...startsOf(m) };
}

export function execute(stored: RunState, pinned: Pinned, ctx: Context, actor: Actor, command: Command): Plan {
  const m = new Machine(structuredClone(stored), pinned, ctx);
  // Deadlines that fell due are applied first and written with this call. A refused
  // call writes nothing of them; the next write (or the daemon) records them.
  m.applyDeadlines();
  const updatedBefore = m.state.run.updatedAt;
  m.state.run.updatedAt = ctx.now.toISOString();
  const out = apply(m, actor, command);
  if (cmd.isStop(out)) return planOfStop(out, m, stored, 'stepId' in command ? command.stepId : undefined);
  // A call that moved no step (renew, a tick with nothing due) leaves the run's files as
  // they were: a lease is coordinator state, and only its audit line records it.
  if (m.events.every((e) => cmd.LEASE_ONLY_EVENTS.has(e.action))) m.state.run.updatedAt = updatedBefore;
  m.settle();
  return { kind: 'commit', state: m.state, events: m.events, result: out ?? null, ...startsOf(m) };
}

const startsOf = (m: Machine): { starts?: ChildStart[] } => (m.starts.length > 0 ? { starts: m.starts } : {});

function apply(m: Machine, actor: Actor, c: Command): CommandResult | cmd.Stop | undefined {
  const refused = 'claimId' in c ? cmd.tokenHolder(m, c.claimant, actor) : undefined;
  if (refused) return refused;
  switch (c.tool) {
    case 'claim':
      return leaseOf(cmd.claim(m, c.stepId, actor));
    case 'renew':
      return leaseOf(cmd.renew(m, c.stepId, c.claimId, c.progress, actor));
    case 'submit':
      return cmd.submit(m, c.stepId, c.claimId, c.submission, actor, c.checkFile, c.check);
    case 'escalate':
      return cmd.escalate(m, c.stepId, c.claimId, c.note, actor);
    case 'decide':
      return decide(m, c.decision, actor, c.rules, c.checkFile, c.check);
    case 'cancel':
      return cmd.cancel(m, c.reason, actor);
    case 'send_event':
      return cmd.sendEvent(m, c.name, c.data, actor);
    case 'tick':
      return null;
    case 'end_claims':
      cmd.endClaims(m, c.agent, c.by);
      return null;
    case 'unblock':
      unblock(m, c.blockers);
      return null;
    case 'set_priority':
      return setPriority(m, c.priority, actor);
    case 'children':
      childrenMoved(m, c.children);
      return null;
    case 'child_refused':
      childRefused(m, c.child, c.note);
      return null;
    case 'parent_ended':
      parentEnded(m, c.note);
      return null;
  }
}

const leaseOf = (x: Lease | cmd.Stop): CommandResult | cmd.Stop => (cmd.isStop(x) ? x : { lease: x });

/**
 * A stop as a plan. `keep: 'run'` writes the machine as it stands (a failed
 * check's verdict in the handoff); `keep: 'lease'` writes only the refused
 * submission's issues onto the claim that made it, so a next claimant sees them.
 */
function planOfStop(stop: cmd.Stop, m: Machine | null, stored: RunState | null, stepId: string | undefined): Plan {
  if ('check' in stop) return { kind: 'check', request: stop.check };
  if (stop.keep === 'run' && m) {
    m.settle();
    return { kind: 'refuse', error: stop.refuse, keep: { state: m.state, events: m.events } };
  }
  const lease = stepId !== undefined ? stored?.leases[stepId] : undefined;
  if (stop.keep === 'lease' && stored && lease) {
    // The stored lease is the one the token named: the command found it live and the caller's.
    const state = { ...stored, leases: { ...stored.leases, [lease.stepId]: { ...lease, issues: stop.refuse.issues } } };
    return { kind: 'refuse', error: stop.refuse, keep: { state, events: [] } };
  }
  return { kind: 'refuse', error: stop.refuse };
}

/**
 * A run as of `ctx.now`: elapsed deadlines applied on a copy and settled,
 * with the time until which that stays true (its next deadline).
 */
export function asOf(stored: RunState, pinned: Pinned, ctx: Context): { state: RunState; until: number } {
  const m = new Machine(structuredClone(stored), pinned, ctx);
  m.applyDeadlines();
  m.settle();
  return { state: m.state, until: m.nextDeadline()?.at ?? Infinity };
}

/** When the stored run's earliest deadline falls (ms since the epoch), past ones included; null if none. */
export function nextDeadlineAt(stored: RunState, pinned: Pinned, ctx: Context): number | null {
  return new Machine(stored, pinned, ctx).nextDeadline()?.at ?? null;
}

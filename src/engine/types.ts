/**
 * The run engine's plain data. The engine is pure: it takes a run's state,
 * a command, the time and fresh ids, and returns the new state, audit
 * events and a result, or a refusal. No fs, no clock, no randomness here.
 */
import type { Process, StepKind } from '../process/model.js';
import type { Completion, Escalation, Handoff } from '../protocol/completions.js';

/**
 * Who is calling. People are named by email (and the emails WORK.md says
 * they had before a rename); agents by their id in WORK.md, with the
 * processes WORK.md limits them to (absent: every process).
 */
export type Actor =
  { kind: 'agent'; id: string; processes?: readonly string[] } | { kind: 'person'; email: string; operator: boolean; formerEmails?: readonly string[]; delegators?: readonly Delegator[] };

/** A person who has handed their work to the caller for now (docs/people.md "Out of office"), with the emails they had before a rename. */
export interface Delegator {
  email: string;
  formerEmails?: readonly string[];
}

export function actorName(a: Actor): string {
  return a.kind === 'agent' ? a.id : a.email;
}

export const SERVER = 'server';

export type StoredStepState = 'ready' | 'waiting' | 'done' | 'failed' | 'cancelled' | null;

export interface StepState {
  id: string;
  kind: StepKind;
  state: StoredStepState;
  /** When this attempt became ready (agent steps) or its work item opened. */
  readySince: string | null;
  due: string | null;
  overdue: boolean;
  /** The open work item's id: person steps and escalated agent steps. */
  workItem: string | null;
  /** Work items of this step decided before, so a late decision learns `already_decided`. */
  decided: string[];
  /** When a wait continues on its own (wait, wait_until, wait_for timeout). */
  wakeAt: string | null;
  /** flow-1 subprocess step: the runs this attempt started and waits for (absent on other steps). */
  children?: string[];
  /** Parallel step: branch entries that have reached join in this fork. */
  joined: string[];
  handoff: Handoff | null;
  escalation: Escalation | null;
  current: Completion | null;
  history: Completion[];
}

export interface HeldEvent {
  name: string;
  data?: Record<string, unknown>;
  by: string;
  at: string;
}

export interface RunRecord {
  id: string;
  process: string;
  version: number;
  hash: string;
  mode: 'live' | 'test';
  state: 'active' | 'waiting' | 'ended' | 'cancelled';
  outcome: string | null;
  ended: { by: string; at: string; note: string | null } | null;
  startedBy: string;
  /** The person who started the run; null when an agent did. */
  initiator: string | null;
  startedAt: string;
  updatedAt: string;
  inputs: Record<string, unknown>;
  /** flow-1 (docs/profile-flow-1.md): the run's level, 10 low to 40 urgent. Absent on runs of other processes. */
  priority?: number;
  /** flow-1: the runs this run was started to wait for, as named at start. */
  blockedBy?: string[];
  /** flow-1: true while the run waits for its blockers (no step entered yet); absent once it woke. */
  blocked?: true;
  /** flow-1: the run that started this one (docs/profile-flow-1.md "7. Lineage and rollup"). */
  parent?: string;
  /** flow-1: the follow-on runs this run's end started. */
  followOns?: string[];
  events: HeldEvent[];
}

/** A live claim on an agent step. Kept under `.work/leases/`, never committed. */
export interface Lease {
  stepId: string;
  claimId: string;
  agent: string;
  claimedAt: string;
  expiresAt: string;
  progress?: string;
  /** The issues of this claim's last refused submission, handed to the next claimant if the lease ends. */
  issues?: string[];
}

/** Everything the engine needs about a run. */
export interface RunState {
  run: RunRecord;
  steps: Record<string, StepState>;
  leases: Record<string, Lease>;
}

/** The published version a run is pinned to, with its role → group map. */
export interface Pinned {
  process: Process;
  version: number;
  hash: string;
  roles: Record<string, string>;
}

export interface Limits {
  runDataBytes: number;
  leaseSeconds: number;
  /** docs/processes.md "Checks (check-1)": default thresholds, and how much run data an evaluator is shown. */
  checkPass: number;
  checkFail: number | null;
  checkConfidence: number;
  checkStateBytes: number;
}

/** The world around a command: time, fresh ids, limits, and who the board's people are. */
export interface Context {
  now: Date;
  newId: (prefix: string) => string;
  limits: Limits;
  /** The board's people (lowercased emails) a `person` value may name; absent: any well-formed email. */
  people?: ReadonlySet<string>;
}

/** An audit event the engine asks the store to record. */
export interface EngineEvent {
  action: string;
  actor: string;
  entity: string;
  changes?: Record<string, unknown>;
}

/**
 * flow-1: a run another run starts (docs/profile-flow-1.md "5. Subprocess steps", "6. Follow-on runs"):
 * its id, made by the parent's commit, which records this start beside it; the
 * service starts it after that commit, and again after a crash until it exists.
 */
export interface ChildStart {
  run: string;
  process: string;
  inputs: Record<string, unknown>;
  parent: string;
  /** The person who started the parent, who starts this run too; null: an agent did. */
  initiator: string | null;
  mode: 'live' | 'test';
  /** The subprocess step that waits for it; absent for a follow-on run. */
  step?: string;
  priority?: number;
}

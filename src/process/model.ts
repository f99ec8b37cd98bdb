/** The shape of a validated PROCESS.md, as the rest of workboard uses it. */
import type { EvidenceKind } from '../protocol/completions.js';

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'datetime', 'list', 'object', 'person'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const STEP_KINDS = ['agent', 'task', 'approve', 'wait', 'wait_until', 'wait_for', 'finish', 'parallel', 'subprocess'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export type Scalar = string | number | boolean;

export interface FieldSpec {
  type: FieldType;
  description?: string;
  optional: boolean;
  oneOf?: Scalar[];
  items?: FieldSpec;
  /** fields-1 (docs/profile-fields-1.md "The keys"): the least and the most a number input may be, inclusive. */
  minimum?: number;
  maximum?: number;
}

export type Fields = Record<string, FieldSpec>;

export interface Route {
  to: string;
  when?: string;
}

export type CheckQuestion =
  | { kind: 'yes_no'; ask: string; pass?: number; fail?: number }
  | { kind: 'choice'; ask: string; oneOf: Record<string, string>; pass: string[]; unsure: string[]; confidence?: number }
  | { kind: 'rubric'; ask: string; levels: string[]; pass: number; confidence?: number };

export interface Step {
  id: string;
  kind: StepKind;
  /** The kind key's value: instructions, duration, data path, event name or outcome. Empty for parallel. */
  value: string;
  /** Branch entries of a parallel step. */
  branches?: string[];
  output?: Fields;
  evidence?: EvidenceKind[];
  /**
   * Where the run goes next, resolved: a step id (the following step when the
   * file names none), `join` inside a parallel branch, a list of routes, or
   * null for a finish.
   */
  next: string | Route[] | null;
  person?: string;
  onReject?: string;
  due?: string;
  timeout?: string;
  onTimeout?: string;
  check?: CheckQuestion[];
  advisory?: boolean;
  /** flow-1: a subprocess step's keys (its `value` is the other process's name). */
  subprocess?: SubprocessKeys;
}

/**
 * flow-1 (docs/profile-flow-1.md "5. Subprocess steps"): how a step starts runs of another
 * process. `inputs` maps each of the other process's inputs to where its value
 * comes from in this run's data: `inputs.<field>`, `steps.<id>.output.<field>`,
 * and, in a fan-out, `item` or `item.<field>`.
 */
export interface SubprocessKeys {
  inputs: Record<string, string>;
  /** A path to a list in run data: one child per item. */
  forEach?: string;
  /** What one failed child means in a fan-out: the step fails at once (default), or the step waits for all and routes on `failed`. */
  onFailure: 'fail' | 'continue';
}

/** flow-1 (docs/profile-flow-1.md "6. Follow-on runs"): a run that ends with one of `when` starts a run of `start`, without waiting for it. */
export interface FollowOn {
  when: string[];
  start: string;
  inputs: Record<string, string>;
  priority?: number;
}

/** At most this many follow-on rules per process (ForkFlux's routing rules). */
export const MAX_FOLLOW_ONS = 10;

/** ForkFlux's four priority levels (docs/profile-flow-1.md "2. Priority"): the word a file says, the number a run records. */
export const PRIORITY_LEVELS = { low: 10, normal: 20, high: 30, urgent: 40 } as const;
export const NORMAL_PRIORITY = PRIORITY_LEVELS.normal;

/** The flow-1 keys as bound at publication: a default level, and the inputs that set the level and the blockers. */
export interface FlowKeys {
  priority?: number;
  /** The input field (a level's word) that sets a run's priority when given. */
  priorityFrom?: string;
  /** The input field (a list of run ids) naming the runs a new run waits for. */
  blockedBy?: string;
  /** Runs started when a run of this process ends with a given outcome. */
  followOn?: FollowOn[];
}

export interface Process {
  name: string;
  description: string;
  inputs: Fields;
  requires?: { systems: string[] };
  /** flow-1: present only when the file has `flow:`. */
  flow?: FlowKeys;
  steps: Step[];
  /** The frontmatter exactly as parsed: what the content hash covers and what tools echo back. */
  frontmatter: Record<string, unknown>;
  body: string;
}

/** The reserved `next` value that ends a parallel branch. */
export const JOIN = 'join';

export const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const STEP_ID_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
/** Our rule for role names: like a step id but may start with a digit; never a dot (a dot makes a path). */
export const ROLE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Our rule for field names: a letter first, so `__proto__` and friends can never be fields. */
export const FIELD_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const DURATION_PATTERN = /^(\d{1,9})(m|h|d)$/;

/** Duration in milliseconds; the pattern is checked at validation. */
export function durationMs(d: string): number {
  const m = DURATION_PATTERN.exec(d);
  if (!m) throw new Error(`not a duration: ${d}`);
  const n = Number(m[1]);
  const unit = m[2] === 'm' ? 60_000 : m[2] === 'h' ? 3_600_000 : 86_400_000;
  return n * unit;
}

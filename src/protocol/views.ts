/**
 * What the read and write tools answer, as types: the run view, run data,
 * work items with their exact `decide` call, `get_work` items and the run
 * list. The engine builds these values; every transport and the web app
 * read them through these types rather than by cast.
 */
import type { Completion, Escalation, EvidenceKind, Handoff } from './completions.js';
import type { Fields, StepState } from './tool-results.js';

export type RunState = 'active' | 'waiting' | 'ended' | 'cancelled';
export type StepViewState = 'ready' | 'claimed' | 'waiting' | 'done' | 'failed' | 'cancelled' | null;
export type Decision = 'completed' | 'approved' | 'rejected' | 'returned' | 'failed';

export interface EvidenceView {
  kind: EvidenceKind;
  ref: string;
  sha256?: string;
  /** A short-lived download address for a file, when the transport can serve one. */
  url?: string;
}

/** One completion of a step as run data shows it (an approval shows only its decision, note, who and when). */
export type CompletionView = Partial<Omit<Completion, 'evidence'>> & { evidence?: EvidenceView[] };

/** A step's entry in run data: its current completion (if any), a pending verdict, and every earlier one. */
export type StepDataView = CompletionView & { history: CompletionView[] };

export interface RunData {
  inputs: Record<string, unknown>;
  steps: Record<string, StepDataView>;
}

export interface Route {
  to: string;
  when?: string;
}

/** A step's requirements as written in the process: output fields, evidence kinds, routes. */
export interface Requirements {
  output: Fields | null;
  evidence: EvidenceKind[] | null;
  next: Route[] | null;
}

/** A work item's assignment: a role's group, or one person (the other key is absent, so either reads as optional). */
export type Assignment = { group: string; person?: undefined } | { person: string; group?: undefined };

export interface WorkItemView extends Requirements {
  id: string;
  stepId: string;
  kind: 'agent' | 'task' | 'approve';
  text: string;
  handoff: Handoff | null;
  assignedTo: Assignment;
  snapshot: string;
  due: string | null;
  escalation: Escalation | null;
  decide: {
    tool: 'decide';
    arguments: { runId: string; workItemId: string; snapshot: string; requestId: string };
    decisions: Decision[];
  };
  mode?: 'test';
}

export interface RunSummaryView {
  id: string;
  process: string;
  version: number;
  mode: 'live' | 'test';
  state: RunState;
  outcome: string | null;
  ended: { by: string; at: string; note: string | null } | null;
  startedBy: string;
  startedAt: string;
  updatedAt: string;
}

export interface StepView {
  id: string;
  /** A step's kind as the core names it (a flow-1 subprocess step shows as wait_for). */
  kind: StepState['kind'];
  state: StepViewState;
  due?: string;
  overdue?: boolean;
}

export interface RunView {
  run: RunSummaryView;
  data: RunData;
  steps: StepView[];
  workItems: WorkItemView[];
  body: string;
}

/** One `get_work` item: a claimable step for an agent, or a work item for a person. */
export type WorkEntry =
  | {
      runId: string;
      stepId: string;
      process: string;
      version: number;
      mode: 'live' | 'test';
      readySince: string;
      due: string | null;
      overdue: boolean;
      handoff: Handoff | null;
      claim: { tool: 'claim'; arguments: { runId: string; stepId: string; requestId: string } };
    }
  | { runId: string; process: string; version: number; mode: 'live' | 'test'; workItem: WorkItemView };

/** One `list_runs` row. */
export interface RunRow {
  id: string;
  process: string;
  version: number;
  state: RunState;
  outcome: string | null;
  startedAt: string;
  updatedAt: string;
  inputs: Record<string, unknown>;
}

/** One `list_processes` item: a published process at its latest version. */
export interface ProcessSummary {
  name: string;
  description: string;
  version: number;
  inputs: Record<string, unknown>;
  requires?: { systems: string[] };
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * flow-1 (docs/profile-flow-1.md): a run's priority and blockers as a person
 * reads them, beside the run view (whose shape the core fixes). Each blocker
 * with its run's title in words; one not on this board has null process and state.
 */
export interface RunFlow {
  priority: number;
  blocked: boolean;
  blockedBy: { id: string; title: string; process: string | null; state: RunState | null; outcome: string | null }[];
}

/** flow-1 (docs/profile-flow-1.md "7. Lineage and rollup"): a run linked to another, by its title, with where it stands; one not on this board has null process and state. */
export interface LinkedRun {
  id: string;
  title: string;
  process: string | null;
  state: RunState | null;
  outcome: string | null;
  /** The parent's subprocess step that started it; null for a follow-on run (or a parent). */
  via: string | null;
}

/** flow-1: a run's parent, its children (subprocess children, then follow-on runs) and their rolled-up state. */
export interface RunLineage {
  parent: LinkedRun | null;
  children: LinkedRun[];
  rollup: 'done' | 'blocked' | 'overdue' | 'waiting' | 'active' | null;
}

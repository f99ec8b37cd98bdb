/**
 * The fields of the tools' results that the CLI reads, typed for the CLI
 * alone: the service hands back plain records, and each command names here
 * the shape it renders instead of casting field by field.
 */

/** A tool's arguments as the CLI builds them; the service checks them against the tool's schema. */
export type ToolArgs = Record<string, unknown>;

export interface Route {
  to: string;
  when?: string;
}

export interface Evidence {
  kind: string;
  ref: string;
  sha256?: string;
}

/** One completion of a step, as run data holds it (the current one carries its earlier attempts). */
export interface Completion {
  by?: string;
  at?: string;
  decision?: string;
  next?: string;
  reason?: string;
  output?: Record<string, unknown>;
  summary?: string;
  note?: string;
  evidence?: Evidence[];
  history?: Completion[];
}

export interface WorkItem {
  id: string;
  stepId: string;
  kind: string;
  text: string;
  due: string | null;
  snapshot: string;
  assignedTo: { group?: string; person?: string };
  /** Output fields as the process declares them, when completing needs them. */
  output: Record<string, unknown> | null;
  evidence: string[] | null;
  next: Route[] | null;
  handoff: Handoff | null;
  escalation: { by: string; note: string; at?: string } | null;
  decide: { decisions: string[] };
}

/** What an earlier attempt left for the next one: progress, a returned note, a check's issues. */
export interface Handoff {
  progress?: string;
  returned?: { note: string; by: string; at: string };
  issues?: string[];
}

/** `get_run`, and every write that answers with the run. */
export interface RunView {
  run: {
    id: string;
    process: string;
    version: number;
    mode: string;
    state: string;
    outcome: string | null;
    ended: { at: string; by: string; note?: string } | null;
    startedBy: string;
    startedAt: string;
    updatedAt: string;
  };
  data: { inputs: Record<string, unknown>; steps: Record<string, Completion> };
  steps: { id: string; kind: string; state: string | null; due?: string; overdue?: boolean }[];
  workItems: WorkItem[];
  /** The process file's markdown body; its first heading is the process's title. */
  body?: string;
}

/** `get_work`: a work item for a person, or a ready step for an agent. */
export interface WorkPage {
  items: { runId: string; process?: string; version?: number; mode?: string; workItem?: WorkItem; stepId?: string; readySince?: string }[];
}

export interface RunsPage {
  items: { id: string; process: string; state: string; outcome: string | null; startedAt: string }[];
  nextCursor: string | null;
}

export interface Description {
  protocol: string;
  version: string;
  profiles: string[];
  leaseSeconds: number;
  maxUploadBytes: number;
  limits: Record<string, unknown>;
  tools: string[];
}

/** `claim` and `renew`. */
export interface Lease {
  token: string;
  expiresAt: string;
}

export interface Upload {
  id: string;
  sha256: string;
  bytes: number;
}

export interface EventResult {
  consumedBy: string | null;
}

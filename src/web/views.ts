/**
 * The shapes of the service results the pages read (tool contracts,
 * "Shared shapes"), typed only as far as the pages use them.
 */
export interface Evidence {
  kind: 'file' | 'link';
  ref: string;
  sha256?: string;
}

export interface Completion {
  output?: Record<string, unknown>;
  evidence?: Evidence[];
  summary?: string;
  next?: string;
  reason?: string;
  decision?: string;
  note?: string | null;
  by?: string;
  at?: string;
  check?: unknown;
}

export type StepData = Completion & { history?: Completion[] };

export interface Handoff {
  progress?: string;
  returned?: { note: string; by: string; at: string };
  issues?: string[];
  check?: unknown;
}

export interface WorkItem {
  id: string;
  stepId: string;
  kind: 'agent' | 'task' | 'approve';
  text: string;
  output: Record<string, unknown> | null;
  evidence: string[] | null;
  next: { to: string; when?: string }[] | null;
  handoff: Handoff | null;
  assignedTo: { group?: string; person?: string };
  snapshot: string;
  due: string | null;
  escalation: { note: string; by: string; at: string; check?: unknown; candidate?: Completion } | null;
  decide: { decisions: string[] };
  mode?: 'test';
}

export interface RunView {
  run: {
    id: string;
    process: string;
    version: number;
    mode: 'live' | 'test';
    state: string;
    outcome: string | null;
    ended: { by: string; at: string; note: string | null } | null;
    startedBy: string;
    startedAt: string;
    updatedAt: string;
  };
  data: { inputs: Record<string, unknown>; steps: Record<string, StepData | undefined> };
  steps: { id: string; kind: string; state: string | null; due?: string; overdue?: boolean }[];
  workItems: WorkItem[];
  body: string;
}

export interface WorkEntry {
  runId: string;
  process: string;
  version: number;
  mode: 'live' | 'test';
  workItem: WorkItem;
}

export interface ProcessSummary {
  name: string;
  description: string;
  version: number;
  inputs: Record<string, unknown>;
}

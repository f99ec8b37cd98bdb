/**
 * A step's recorded work as the run's files and every answer show it: a
 * completion, the handoff to the next claimant, an escalation, and a check's
 * verdict. Protocol vocabulary, so the views and the engine share one shape.
 */

export const EVIDENCE_KINDS = ['file', 'link'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export interface EvidenceRecord {
  kind: EvidenceKind;
  ref: string;
  sha256?: string;
}

/** One completion of a step, as run data shows it. */
export interface Completion {
  output?: Record<string, unknown>;
  evidence?: EvidenceRecord[];
  summary?: string;
  next?: string;
  reason?: string;
  decision?: 'approved' | 'rejected' | 'failed';
  note?: string;
  check?: Verdict;
  by: string;
  at: string;
}

/** One question of a check, answered and judged (docs/processes.md "Verdicts"). */
export interface QuestionResult {
  ask: string;
  kind: 'yes_no' | 'choice' | 'rubric';
  answer: number | string | null;
  confidence?: number;
  result: 'pass' | 'fail' | 'unsure';
}

/** A check's verdict as run data, handoffs and escalations show it (key order is the file's order). */
export interface Verdict {
  verdict: 'pass' | 'fail' | 'unsure' | 'error';
  advisory: boolean;
  model: string;
  questions: QuestionResult[];
  truncated?: boolean;
  at: string;
}

export interface Handoff {
  progress?: string;
  returned?: { note: string; by: string; at: string };
  issues?: string[];
  check?: Verdict;
}

export interface Escalation {
  note: string;
  by: string;
  at: string;
  check?: Verdict;
  /** The submission a check was unsure of, held for the person who decides. */
  candidate?: Completion;
}

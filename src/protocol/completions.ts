/**
 * A step's recorded work as the run's files and every answer show it: a
 * completion, the handoff to the next claimant, an escalation, and a check's
 * verdict. Protocol vocabulary, so the views and the engine share one shape.
 */
import type { QuestionResult, Verdict } from './tool-results.js';

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

// A check's verdict and its questions are what the results' schema says (schemas/results/): one shape
// for the run's files, handoffs, escalations and every answer (docs/processes.md "Verdicts").
export type { QuestionResult, Verdict };

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

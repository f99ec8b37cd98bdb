/**
 * What callers see of a run (tool contracts, "Shared shapes"): run data, the
 * run view, work items with their exact `decide` call, and `get_work` items.
 * Pure. Tokens never appear here.
 */
import { canonicalJson, sha256Hex } from '../core/hash.js';
import type { Step } from '../process/model.js';
import type { Assignment, CompletionView, Decision, EvidenceView, Requirements, RunData, RunView, StepDataView, StepViewState, WorkItemView } from '../protocol/views.js';
import { dataAt } from './machine.js';
import type { Pinned, RunState, StepState } from './types.js';
import type { Completion, EvidenceRecord } from '../protocol/completions.js';
import type { Field, Fields } from '../protocol/tool-results.js';

/** How a file evidence item gets its short-lived `url` (the service decides). */
export type FileUrl = (ref: string) => string;

const APPROVAL_FIELDS = ['decision', 'note', 'by', 'at'] as const;
const FIELDS = ['output', 'evidence', 'summary', 'next', 'reason', 'decision', 'note', 'check', 'by', 'at'] as const;

function evidenceView(items: EvidenceRecord[], url: FileUrl | null): EvidenceView[] {
  return items.map((e) => (e.kind === 'file' ? { kind: e.kind, ref: e.ref, ...(e.sha256 ? { sha256: e.sha256 } : {}), ...(url ? { url: url(e.ref) } : {}) } : { kind: e.kind, ref: e.ref }));
}

function completionView(kind: Step['kind'], c: Completion, url: FileUrl | null): CompletionView {
  const out: Record<string, unknown> = {};
  const keys = kind === 'approve' && c.decision !== 'failed' ? APPROVAL_FIELDS : FIELDS;
  for (const k of keys) {
    const v = c[k];
    if (v === undefined) continue;
    out[k] = k === 'evidence' ? evidenceView(v as EvidenceRecord[], url) : v;
  }
  return out;
}

/** `data`: inputs, and for each step that has completed (now or before), its fields and history. */
export function runData(state: RunState, pinned: Pinned, url: FileUrl | null): RunData {
  const steps: Record<string, StepDataView> = {};
  for (const def of pinned.process.steps) {
    const st = state.steps[def.id];
    // While a check's unsure verdict waits on a person, run data shows it (docs/processes.md "Verdicts").
    const pending = st?.escalation?.check;
    if (!st || (!st.current && st.history.length === 0 && !pending)) continue;
    if (def.kind === 'parallel' || (def.kind === 'finish' && !st.current)) continue;
    steps[def.id] = {
      ...(st.current ? completionView(def.kind, st.current, url) : {}),
      ...(pending ? { check: pending } : {}),
      history: st.history.map((h) => completionView(def.kind, h, url)),
    };
  }
  return { inputs: state.run.inputs, steps };
}

/** A hash of the run data at the time of this read (docs/processes.md "How a run moves"); file urls are left out so it is stable. */
export function snapshotOf(state: RunState, pinned: Pinned): string {
  return sha256Hex(canonicalJson(runData(state, pinned, null)));
}

export function leaseLive(state: RunState, stepId: string, now: Date): boolean {
  const l = state.leases[stepId];
  return l !== undefined && Date.parse(l.expiresAt) > now.getTime();
}

export function viewState(state: RunState, st: StepState, now: Date): StepViewState {
  if (st.state === 'ready' && leaseLive(state, st.id, now)) return 'claimed';
  return st.state;
}

/** The step's requirements as `claim` gives them: output fields as written, evidence kinds, routes when `next` is a list. */
export function requirements(def: Step): Requirements {
  return {
    output: def.output ? rawFields(def) : null,
    evidence: def.evidence ?? null,
    next: Array.isArray(def.next) ? def.next.map((r) => ({ to: r.to, ...(r.when !== undefined ? { when: r.when } : {}) })) : null,
  };
}

/** The output fields exactly as the process file declares them. */
function rawFields(def: Step): Fields {
  const out: Fields = {};
  for (const [name, spec] of Object.entries(def.output ?? {})) {
    const simple = !spec.optional && spec.description === undefined && spec.oneOf === undefined && spec.items === undefined;
    out[name] = simple ? spec.type : fieldObject(spec);
  }
  return out;
}

function fieldObject(spec: NonNullable<Step['output']>[string]): Exclude<Field, string> {
  return {
    type: spec.type,
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    ...(spec.optional ? { optional: true } : {}),
    ...(spec.oneOf !== undefined ? { one_of: spec.oneOf } : {}),
    ...(spec.items !== undefined
      ? { items: spec.items.description === undefined && spec.items.oneOf === undefined && spec.items.items === undefined ? spec.items.type : fieldObject(spec.items) }
      : {}),
  };
}

/** Who a work item is for: the role's group, the initiator, a person in run data, or the operators for an escalation. */
export function assignment(state: RunState, pinned: Pinned, def: Step, st: StepState): Assignment {
  if (def.kind === 'agent' || st.escalation) return { group: OPERATORS };
  const p = def.person ?? '';
  if (p === 'initiator') return { person: state.run.initiator ?? '' };
  if (p.includes('.')) {
    const v = dataAt(state, p);
    return { person: v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v) };
  }
  return { group: pinned.roles[p] ?? p };
}

/** The pseudo-group of the board's operators, where escalations go. */
export const OPERATORS = 'operators';

export function decisionsFor(def: Step, st: StepState): Decision[] {
  // An escalation (an agent's, or a check unsure of an agent's or a task's submission) can be returned.
  if (def.kind === 'agent' || (st.escalation && def.kind === 'task')) return ['returned', 'completed', 'failed'];
  return def.kind === 'approve' ? ['approved', 'rejected', 'failed'] : ['completed', 'failed'];
}

/** Whether a step holds an open work item: waiting on a person (or on operators, for an escalation). */
export function hasOpenWorkItem(st: StepState | undefined): st is StepState & { workItem: string } {
  return !!st?.workItem && st.state === 'waiting';
}

export function workItems(state: RunState, pinned: Pinned, snapshot: string): WorkItemView[] {
  const items: WorkItemView[] = [];
  for (const def of pinned.process.steps) {
    const st = state.steps[def.id];
    if (!hasOpenWorkItem(st)) continue;
    const kind = def.kind as 'agent' | 'task' | 'approve';
    const req = kind === 'approve' ? { output: null, evidence: null, next: null } : requirements(def);
    items.push({
      id: st.workItem,
      stepId: def.id,
      kind,
      text: def.value,
      output: req.output,
      evidence: req.evidence,
      next: req.next,
      handoff: st.handoff,
      assignedTo: assignment(state, pinned, def, st),
      snapshot,
      due: st.due,
      escalation: st.escalation,
      decide: {
        tool: 'decide',
        arguments: { runId: state.run.id, workItemId: st.workItem, snapshot, requestId: '<new UUID>' },
        decisions: decisionsFor(def, st),
      },
      ...(state.run.mode === 'test' ? { mode: 'test' } : {}),
    });
  }
  return items;
}

export function runView(state: RunState, pinned: Pinned, now: Date, url: FileUrl | null): RunView {
  const r = state.run;
  const snapshot = snapshotOf(state, pinned);
  return {
    run: {
      id: r.id,
      process: r.process,
      version: r.version,
      mode: r.mode,
      state: r.state,
      outcome: r.outcome,
      ended: r.ended,
      startedBy: r.startedBy,
      startedAt: r.startedAt,
      updatedAt: r.updatedAt,
    },
    data: runData(state, pinned, url),
    steps: pinned.process.steps.map((def) => {
      const st = state.steps[def.id];
      const s = st ? viewState(state, st, now) : null;
      const open = s === 'ready' || s === 'claimed' || s === 'waiting';
      return {
        id: def.id,
        // flow-1: the core has no subprocess kind; such a step waits, as a wait_for does (docs/profile-flow-1.md "5. Subprocess steps").
        kind: def.kind === 'subprocess' ? 'wait_for' : def.kind,
        state: s,
        ...(open && st?.due ? { due: st.due, overdue: st.overdue } : {}),
      };
    }),
    workItems: workItems(state, pinned, snapshot),
    body: pinned.process.body,
  };
}

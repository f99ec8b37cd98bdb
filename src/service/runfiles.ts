/**
 * A run's state as board files, and back: `RUN.md`, one markdown file per
 * reached step (the current summary as its body), and leases under
 * `.work/leases/<run>/<step>.json`.
 */
import { paths } from '../board/layout.js';
import type { BoardDoc } from '../board/document.js';
import type { Lease, RunRecord, StepState, StoredStepState } from '../engine/types.js';
import { STEP_KINDS, type StepKind } from '../process/model.js';
import type { Completion } from '../protocol/completions.js';

const COMPLETION_KEYS = ['output', 'evidence', 'next', 'reason', 'decision', 'note', 'check', 'by', 'at'] as const;
const STEP_KEYS = ['readySince', 'due', 'overdue', 'workItem', 'decided', 'wakeAt', 'children', 'joined', 'handoff', 'escalation'] as const;

function defined<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function runDoc(run: RunRecord): { data: Record<string, unknown>; body: string } {
  const { events, ...rest } = run;
  return { data: defined({ ...rest, ...(events.length > 0 ? { events } : {}) }), body: `# ${run.process} run ${run.id}\n` };
}

export function runFromDoc(doc: BoardDoc): RunRecord {
  const d = doc.data as unknown as RunRecord;
  return { ...d, events: d.events ?? [], initiator: d.initiator ?? null, outcome: d.outcome ?? null, ended: d.ended ?? null };
}

/** A step file: state and bookkeeping, the current completion flattened (its summary as the body), then history. */
export function stepDoc(st: StepState): { data: Record<string, unknown>; body: string } {
  const data: Record<string, unknown> = { id: st.id, kind: st.kind, state: st.state };
  for (const k of STEP_KEYS) {
    const v = st[k];
    const empty = v === null || v === false || (Array.isArray(v) && v.length === 0);
    if (!empty) data[k] = v;
  }
  if (st.current) for (const k of COMPLETION_KEYS) if (st.current[k] !== undefined) data[k] = st.current[k];
  if (st.history.length > 0) data.history = st.history.map((h) => defined({ ...h }));
  return { data, body: st.current?.summary ? `${st.current.summary}\n` : '' };
}

// A step file's fields, read with guards: the file was checked against its schema when it was
// read (schemas/board/step.schema.json), so a guard that fails means a schema and this reader disagree.
const STORED_STATES: readonly StoredStepState[] = ['ready', 'waiting', 'done', 'failed', 'cancelled'];
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const isStepKind = (v: unknown): v is StepKind => STEP_KINDS.some((k) => k === v);
const isStoredState = (v: unknown): v is StoredStepState => STORED_STATES.some((k) => k === v);

function stepKind(v: unknown): StepKind {
  if (!isStepKind(v)) throw new Error(`a step file's kind is ${String(v)}, not a step kind`);
  return v;
}

export function stepFromDoc(doc: BoardDoc): StepState {
  const d = doc.data;
  const hasCurrent = typeof d.by === 'string';
  const current: Completion | null = hasCurrent
    ? (defined({
        ...Object.fromEntries(COMPLETION_KEYS.map((k) => [k, d[k]])),
        ...(doc.body.trim() !== '' ? { summary: doc.body.replace(/\n$/, '') } : {}),
      }) as unknown as Completion)
    : null;
  return {
    id: str(d.id) ?? '',
    kind: stepKind(d.kind),
    state: isStoredState(d.state) ? d.state : null,
    readySince: str(d.readySince),
    due: str(d.due),
    overdue: d.overdue === true,
    workItem: str(d.workItem),
    decided: strs(d.decided),
    wakeAt: str(d.wakeAt),
    joined: strs(d.joined),
    ...(Array.isArray(d.children) ? { children: strs(d.children) } : {}),
    handoff: (d.handoff as StepState['handoff'] | undefined) ?? null,
    escalation: (d.escalation as StepState['escalation'] | undefined) ?? null,
    current,
    history: (d.history as Completion[] | undefined) ?? [],
  };
}

export function leasePath(runId: string, stepId: string): string {
  return `${paths.leaseDir(runId)}/${stepId}.json`;
}

function isLease(v: unknown): v is Lease {
  return typeof v === 'object' && v !== null && 'stepId' in v && typeof v.stepId === 'string' && 'claimId' in v && typeof v.claimId === 'string' && 'expiresAt' in v && typeof v.expiresAt === 'string';
}

export function parseLease(text: string): Lease | null {
  try {
    const v: unknown = JSON.parse(text);
    return isLease(v) ? v : null;
  } catch {
    return null;
  }
}

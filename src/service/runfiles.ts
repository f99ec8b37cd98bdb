/**
 * A run's state as board files, and back: `RUN.md`, one markdown file per
 * reached step (the current summary as its body), and leases under
 * `.work/leases/<run>/<step>.json`.
 */
import { paths } from '../board/layout.js';
import type { BoardDoc } from '../board/document.js';
import type { Lease, RunRecord, StepState } from '../engine/types.js';
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
    id: d.id as string,
    kind: d.kind as StepState['kind'],
    state: (d.state ?? null) as StepState['state'],
    readySince: (d.readySince as string | undefined) ?? null,
    due: (d.due as string | undefined) ?? null,
    overdue: d.overdue === true,
    workItem: (d.workItem as string | undefined) ?? null,
    decided: (d.decided as string[] | undefined) ?? [],
    wakeAt: (d.wakeAt as string | undefined) ?? null,
    joined: (d.joined as string[] | undefined) ?? [],
    ...(Array.isArray(d.children) ? { children: d.children as string[] } : {}),
    handoff: (d.handoff as StepState['handoff'] | undefined) ?? null,
    escalation: (d.escalation as StepState['escalation'] | undefined) ?? null,
    current,
    history: (d.history as Completion[] | undefined) ?? [],
  };
}

export function leasePath(runId: string, stepId: string): string {
  return `${paths.leaseDir(runId)}/${stepId}.json`;
}

export function parseLease(text: string): Lease | null {
  try {
    const v = JSON.parse(text) as Lease;
    return typeof v.stepId === 'string' && typeof v.claimId === 'string' && typeof v.expiresAt === 'string' ? v : null;
  } catch {
    return null;
  }
}

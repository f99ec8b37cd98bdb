/**
 * A run on its map: each step's state, how often it was reworked, and which
 * lines the run has taken, read from the run view (`get_run`). Pure.
 */
import type { MapEdge, MapGraph } from './model.js';
import { START } from './model.js';

/** What a run map reads of a run view. The CLI's and the service's run views both fit. */
export interface RunMapView {
  run: { id?: string; state: string; outcome: string | null };
  steps: readonly { id: string; state: string | null; overdue?: boolean }[];
  data: { steps: Record<string, RunCompletion | undefined> };
}

interface RunCompletion {
  next?: string;
  decision?: string;
  history?: readonly { next?: string; decision?: string }[];
}

export interface RunMarks {
  /** Step or node id → `done`, `ready`, `claimed`, `waiting`, `failed`, `cancelled`; absent where the run has not been. */
  state: Map<string, string>;
  /** Step id → how many earlier attempts its history holds. */
  rework: Map<string, number>;
  overdue: Set<string>;
  /** Edge ids the run has gone along. */
  taken: Set<string>;
  /** The run's own state and outcome, for the title. */
  run: { state: string; outcome: string | null };
}

export const OPEN_STATES = new Set(['ready', 'claimed', 'waiting']);

export function runMarks(g: MapGraph, view: RunMapView): RunMarks {
  const state = new Map<string, string>();
  for (const s of view.steps) if (s.state !== null) state.set(s.id, s.state);
  const rework = new Map<string, number>();
  const completions = new Map<string, { next?: string; decision?: string }[]>();
  for (const [id, d] of Object.entries(view.data.steps)) {
    if (!d) continue;
    const all = [...(d.history ?? []), ...(d.next !== undefined || d.decision !== undefined ? [d] : [])];
    completions.set(id, all);
    if ((d.history?.length ?? 0) > 0) rework.set(id, d.history!.length);
  }
  const reached = (id: string | undefined) => id !== undefined && (state.has(id) || completions.has(id));
  const outcome = view.run.outcome;
  const taken = new Set<string>();
  const went = (e: MapEdge): boolean => {
    if (e.from === START) return reached(e.toStep);
    const from = e.fromStep;
    if (from === undefined || !(state.get(from) === 'done' || state.get(from) === 'failed' || completions.has(from))) return false;
    const done = completions.get(from) ?? [];
    switch (e.kind) {
      case 'route':
        return done.some((c) => c.next === e.toStep) || (done.length === 0 && reached(e.toStep));
      case 'approved':
        return done.some((c) => c.decision === 'approved');
      case 'rejected':
        return done.some((c) => c.decision === 'rejected') && (e.toStep !== undefined || outcome === 'rejected');
      case 'failed':
        return done.some((c) => c.decision === 'failed');
      default:
        // A line into a decision point, a join or out of a fork: taken when the step it leaves is done
        // and what it leads to was reached (or it leads to no step of its own).
        return state.get(from) === 'done' && (e.toStep === undefined || reached(e.toStep));
    }
  };
  for (const e of g.edges) if (went(e)) taken.add(e.id);
  // Nodes that are not steps: the synthetic ends the run reached, decision points and joins it passed.
  for (const n of g.nodes) {
    if (state.has(n.id)) continue;
    if (n.kind === 'start') state.set(n.id, 'done');
    else if (g.edges.some((e) => e.to === n.id && taken.has(e.id))) state.set(n.id, 'done');
  }
  const overdue = new Set(view.steps.filter((s) => s.overdue).map((s) => s.id));
  return { state, rework, overdue, taken, run: { state: view.run.state, outcome } };
}

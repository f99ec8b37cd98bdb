/**
 * A saved view's runs as the board holds them now (docs/operators.md "Saved
 * views"): each run read into the row the view's rules take (engine/view-filter.ts),
 * open runs as of now, ended runs from the index unless the view needs more.
 */
import type { SavedView } from '../engine/saved-views.js';
import type { Pinned, RunState } from '../engine/types.js';
import { priorityOf } from '../engine/priority.js';
import { assignment } from '../engine/view.js';
import { columns, needsFullRead, viewRuns, type Column, type ViewRow, type Waiter } from '../engine/view-filter.js';
import { ToolError } from '../protocol/errors.js';
import type { RunReader } from './run-reader.js';
import type { RunSummary } from './run-summary-scan.js';

/** A view's answer: the view, its runs in order, and, for a board layout, its columns, each with the ids of its runs in order. */
export interface ViewAnswer {
  view: SavedView;
  runs: ViewRow[];
  columns: { key: Column['key']; runs: string[] }[] | null;
}

/** The view a request names, or the first (the default) when it names none; not_found names the views there are. */
export function pickView(views: readonly SavedView[], id: string | undefined): SavedView {
  const v = id === undefined ? views[0] : views.find((x) => x.id === id);
  if (v) return v;
  const there = views.length ? `the views are ${views.map((x) => x.id).join(', ')}` : 'WORK.md declares no views';
  throw new ToolError('not_found', id === undefined ? `no view: ${there}` : `no view ${id}: ${there}`);
}

/** Who or what a run waits for now, step by step in the process's order. */
export function waitersOf(state: RunState, pinned: Pinned): Waiter[] {
  if (state.run.blocked) return [{ kind: 'runs' }];
  const out: Waiter[] = [];
  for (const def of pinned.process.steps) {
    const st = state.steps[def.id];
    if (!st) continue;
    if (st.state === 'waiting' && st.workItem) {
      const a = assignment(state, pinned, def, st);
      out.push(a.group !== undefined ? { kind: 'group', name: a.group } : { kind: 'person', email: a.person ?? '' });
    } else if (st.state === 'ready' && def.kind === 'agent') out.push({ kind: 'agent' });
    else if (st.state === 'waiting' && def.kind === 'wait_for') out.push({ kind: 'event' });
    else if (st.state === 'waiting' && (def.kind === 'wait' || def.kind === 'wait_until')) out.push({ kind: 'time' });
  }
  return out;
}

/** The run a child was started by (RUN.md `parent:`), when its record has one. */
function parentOf(run: object): string | null {
  return 'parent' in run && typeof run.parent === 'string' ? run.parent : null;
}

function fromState(state: RunState, pinned: Pinned): ViewRow {
  const r = state.run;
  return {
    id: r.id,
    process: r.process,
    version: r.version,
    state: r.state,
    outcome: r.outcome,
    mode: r.mode,
    priority: priorityOf(r),
    blocked: r.blocked === true,
    overdue: r.state !== 'ended' && r.state !== 'cancelled' && Object.values(state.steps).some((s) => s.overdue && (s.state === 'ready' || s.state === 'waiting')),
    parent: parentOf(r),
    waitingFor: r.state === 'ended' || r.state === 'cancelled' ? [] : waitersOf(state, pinned),
    startedAt: r.startedAt,
    updatedAt: r.updatedAt,
    inputs: r.inputs,
  };
}

const fromSummary = (s: RunSummary): ViewRow => ({ ...s, priority: priorityOf({}), blocked: false, overdue: false, parent: null, waitingFor: [] });

/**
 * The view's runs: every run the index lists, those the index alone rules out
 * (process, mode, an ended state) never read; open runs read as of now.
 */
export async function runsInView(reader: RunReader, view: SavedView, groups: Readonly<Record<string, readonly string[]>>, now: Date, only?: ReadonlySet<string>): Promise<ViewAnswer> {
  const f = view.filter;
  const full = needsFullRead(view);
  const rows: ViewRow[] = [];
  for (const s of await reader.summaries()) {
    if (only && !only.has(s.id)) continue;
    if (f.process && !f.process.includes(s.process)) continue;
    if (f.mode !== undefined && s.mode !== f.mode) continue;
    const open = s.state === 'active' || s.state === 'waiting';
    if (!open && f.state && !f.state.includes(s.state)) continue;
    if (!open && (f.blocked === true || f.overdue === true || f.assignee !== undefined)) continue;
    if (!open && !full) {
      rows.push(fromSummary(s));
      continue;
    }
    try {
      const m = reader.current(await reader.read(s.id, true), now);
      rows.push(fromState(m.state, m.pinned));
    } catch {
      // a run whose files are being repaired is left out of the view, as get_work leaves it out
    }
  }
  const runs = viewRuns(view, rows, groups);
  return { view, runs, columns: view.layout === 'board' ? columns(view, runs).map((c) => ({ key: c.key, runs: c.runs.map((r) => r.id) })) : null };
}

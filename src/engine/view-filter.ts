/**
 * Which runs a saved view shows, in what order, and in which column
 * (docs/operators.md "Saved views"). Pure: the service reads each run into a
 * ViewRow and hands the rows over.
 */
import { listPrefix } from './priority.js';
import { VIEW_STATES, type SavedView, type ViewFilter, type ViewGroup } from './saved-views.js';
import type { RunRecord } from './types.js';

/** Who or what an open run waits for now. */
export type Waiter = { kind: 'person'; email: string } | { kind: 'group'; name: string } | { kind: 'agent' } | { kind: 'event' } | { kind: 'time' } | { kind: 'runs' };

/** What a view reads of one run. */
export interface ViewRow {
  id: string;
  process: string;
  version: number;
  state: RunRecord['state'];
  outcome: string | null;
  mode: RunRecord['mode'];
  /** The run's level; a run of a process without flow: is normal (20). */
  priority: number;
  blocked: boolean;
  overdue: boolean;
  /** The run it was started by as a child (RUN.md `parent:`), or null. */
  parent: string | null;
  /** Empty for an ended run. */
  waitingFor: Waiter[];
  startedAt: string;
  updatedAt: string;
  inputs: Record<string, unknown>;
}

const waitsFor = (w: Waiter, who: string, groups: Readonly<Record<string, readonly string[]>>): boolean =>
  (w.kind === 'person' && w.email === who) || (w.kind === 'group' && (w.name === who || (groups[w.name] ?? []).includes(who)));

/** Whether a view's filter keeps this run. `groups` are the board's, so a person matches the steps open for their groups. */
export function matches(f: ViewFilter, row: ViewRow, groups: Readonly<Record<string, readonly string[]>>): boolean {
  if (f.process && !f.process.includes(row.process)) return false;
  if (f.state && !f.state.includes(row.state)) return false;
  if (f.blocked !== undefined && row.blocked !== f.blocked) return false;
  if (f.priority && !f.priority.includes(row.priority)) return false;
  if (f.overdue !== undefined && row.overdue !== f.overdue) return false;
  if (f.mode !== undefined && row.mode !== f.mode) return false;
  if (f.parent !== undefined && row.parent !== f.parent) return false;
  const who = f.assignee;
  if (who !== undefined && !row.waitingFor.some((w) => waitsFor(w, who, groups))) return false;
  return true;
}

/** The filter's fields a run's index summary does not hold: when a view needs none of them, an ended run is not read in full. */
export function needsFullRead(v: SavedView): boolean {
  return v.filter.priority !== undefined || v.filter.parent !== undefined || v.groupBy === 'priority' || v.groupBy === 'parent';
}

/** The Runs page's order (list_runs under flow-1): open runs of a higher level first, then newest first. */
export function ordered(rows: readonly ViewRow[]): ViewRow[] {
  const key = (r: ViewRow) => `${listPrefix(r)}${r.id}`;
  return [...rows].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}

/** A view's runs: those its filter keeps, in the Runs page's order. */
export function viewRuns(v: SavedView, rows: readonly ViewRow[], groups: Readonly<Record<string, readonly string[]>>): ViewRow[] {
  return ordered(rows.filter((r) => matches(v.filter, r, groups)));
}

/** A column of a board layout: its key (a state, a level, a waiter, a process or a parent run), and its runs in order. */
export interface Column {
  key: ColumnKey;
  runs: ViewRow[];
}

export type ColumnKey =
  | { by: 'state'; state: RunRecord['state'] }
  | { by: 'priority'; level: number }
  | { by: 'waitingFor'; waiter: Waiter | null }
  | { by: 'process'; process: string }
  | { by: 'parent'; parent: string | null };

const LEVELS_DOWN = [40, 30, 20, 10];

function keyOf(by: ViewGroup, r: ViewRow): ColumnKey {
  switch (by) {
    case 'state':
      return { by, state: r.state };
    case 'priority':
      return { by, level: r.priority };
    case 'waitingFor':
      return { by, waiter: r.waitingFor[0] ?? null };
    case 'process':
      return { by, process: r.process };
    case 'parent':
      return { by, parent: r.parent };
  }
}

/** The order of columns: states and levels as the protocol lists them (most urgent first), the rest in order of first appearance, "nobody" and "no parent" last. */
function rank(k: ColumnKey): number {
  if (k.by === 'state') return VIEW_STATES.indexOf(k.state);
  if (k.by === 'priority') return LEVELS_DOWN.indexOf(k.level);
  if (k.by === 'waitingFor') return k.waiter === null ? 1 : 0;
  if (k.by === 'parent') return k.parent === null ? 1 : 0;
  return 0;
}

/**
 * The runs in columns, by the view's groupBy (a board without one: by state).
 * A run waiting for several is in the column of the first; one waiting for no
 * one (ended, or between steps) is in the "nobody" column. Empty columns are
 * left out, except the states a board layout by state names in its filter.
 */
export function columns(v: SavedView, runs: readonly ViewRow[]): Column[] {
  const by = v.groupBy ?? 'state';
  const out = new Map<string, Column>();
  if (by === 'state') for (const s of v.filter.state ?? []) out.set(JSON.stringify({ by, state: s }), { key: { by, state: s }, runs: [] });
  for (const r of runs) {
    const key = keyOf(by, r);
    const id = JSON.stringify(key);
    const col = out.get(id) ?? { key, runs: [] };
    col.runs.push(r);
    out.set(id, col);
  }
  const cols = [...out.values()];
  return cols
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c.key) - rank(b.c.key) || a.i - b.i)
    .map(({ c }) => c);
}

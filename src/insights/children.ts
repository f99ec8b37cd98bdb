/**
 * flow-1 on Insights (docs/profile-flow-1.md "7. Lineage and rollup"): the runs that the selected
 * runs started, listed under their parent's process and the step (or the end)
 * that started them. Each child is measured on its own, from its start to its
 * end, as every run is; a parent's own time already includes its subprocess
 * children's, since it cannot end before them. Pure.
 */
import type { RunFacts } from './facts.js';
import { spread, type Spread } from './time.js';

export interface ChildFigures {
  /** The parent runs' process. */
  process: string;
  /** The subprocess step that started them; null for follow-on runs, started by the parent's end. */
  step: string | null;
  /** The process the started runs run. */
  child: string;
  /** Runs started, how many ended and how, and the ended ones' time from start to end. */
  runs: number;
  ended: number;
  byOutcome: Record<string, number>;
  cycle: Spread;
  /** Runs recorded as started that the facts given do not hold: not on this board (yet: git may bring them), or left out of what a reader may see. */
  missing: number;
}

/** One row per parent process, step and child process, in that order; none when no selected run started any. */
export function childFigures(selected: readonly RunFacts[], all: readonly RunFacts[]): ChildFigures[] {
  if (!selected.some((r) => r.started.length > 0)) return [];
  const byId = new Map(all.map((r) => [r.id, r]));
  const rows = new Map<string, { f: ChildFigures; cycles: number[] }>();
  for (const parent of selected) {
    for (const s of parent.started) {
      const key = JSON.stringify([parent.process, s.step ?? '', s.process]);
      let row = rows.get(key);
      if (!row) rows.set(key, (row = { f: { process: parent.process, step: s.step, child: s.process, runs: 0, ended: 0, byOutcome: {}, cycle: spread([]), missing: 0 }, cycles: [] }));
      row.f.runs++;
      const child = byId.get(s.run);
      if (!child) {
        row.f.missing++;
        continue;
      }
      if (child.endedAt === null) continue;
      row.f.ended++;
      const outcome = child.outcome ?? 'ended';
      row.f.byOutcome[outcome] = (row.f.byOutcome[outcome] ?? 0) + 1;
      row.cycles.push(child.endedAt - child.startedAt);
    }
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => ({ ...r.f, cycle: spread(r.cycles) }));
}

/**
 * What the open runs hold, counted by process and step (pure): serve's
 * /metrics reads it on each scrape, so no transition pays for it
 * (docs/operations.md). Runs and people are never keys: a board's processes
 * and their steps are few, its runs and people are not.
 */
import { leaseLive } from '../engine/view.js';
import type { Pinned, RunState } from '../engine/types.js';

/** One step of one process, with what waits at it across the open runs. */
export interface StepLoad {
  process: string;
  step: string;
  /** Agent steps ready to be claimed (no live lease). */
  ready: number;
  /** Agent steps claimed (a live lease). */
  claimed: number;
  /** Work items open for people. */
  waiting: number;
  /** Steps past their due time, whoever they wait for. */
  overdue: number;
}

export interface Workload {
  /** Open runs per process. */
  runs: Map<string, number>;
  /** Keyed by process and step; only steps where something waits. */
  steps: Map<string, StepLoad>;
  /** When the longest-waiting ready agent step, and the longest-waiting work item for people, became ready (ms since the epoch); null when none. */
  oldestAgent: number | null;
  oldestPerson: number | null;
}

export function emptyWorkload(): Workload {
  return { runs: new Map(), steps: new Map(), oldestAgent: null, oldestPerson: null };
}

const earlier = (a: number | null, b: number) => (a === null || b < a ? b : a);

/** Add one open run to `into`, as of `now`. */
export function addRun(into: Workload, m: { state: RunState; pinned: Pinned }, now: Date): void {
  const process = m.state.run.process;
  into.runs.set(process, (into.runs.get(process) ?? 0) + 1);
  for (const def of m.pinned.process.steps) {
    const st = m.state.steps[def.id];
    if (!st) continue;
    const agentReady = def.kind === 'agent' && st.state === 'ready';
    const item = st.workItem !== null && st.state === 'waiting';
    if (!agentReady && !item && !st.overdue) continue;
    const key = `${process}\u0000${def.id}`;
    let load = into.steps.get(key);
    if (!load) into.steps.set(key, (load = { process, step: def.id, ready: 0, claimed: 0, waiting: 0, overdue: 0 }));
    if (st.overdue) load.overdue++;
    const since = st.readySince === null ? null : Date.parse(st.readySince);
    if (agentReady) {
      if (leaseLive(m.state, def.id, now)) load.claimed++;
      else {
        load.ready++;
        if (since !== null) into.oldestAgent = earlier(into.oldestAgent, since);
      }
    }
    if (item) {
      load.waiting++;
      if (since !== null) into.oldestPerson = earlier(into.oldestPerson, since);
    }
  }
}

/**
 * flow-1's status rollup (docs/profile-flow-1.md "7. Lineage and rollup"), after AIP-20's: a
 * parent's direct children give it one state, derived whenever it is read and
 * never stored, by the first rule that holds. Pure.
 */
import type { RunRecord, RunState } from './types.js';

export type Rolled = 'done' | 'blocked' | 'overdue' | 'waiting' | 'active';

/** What the rollup reads of one child. */
export interface ChildStanding {
  state: RunRecord['state'];
  blocked: boolean;
  overdue: boolean;
}

/** The rules in order: the first that holds gives the state; no children, no state. */
export const ROLLUP_RULES: readonly { when: string; state: Rolled; holds: (c: readonly ChildStanding[]) => boolean }[] = [
  { when: 'all-children-terminal', state: 'done', holds: (c) => c.every(isTerminal) },
  { when: 'any-child-blocked', state: 'blocked', holds: (c) => c.some((x) => !isTerminal(x) && x.blocked) },
  { when: 'any-child-overdue', state: 'overdue', holds: (c) => c.some((x) => !isTerminal(x) && x.overdue) },
  { when: 'any-child-waiting', state: 'waiting', holds: (c) => c.some((x) => x.state === 'waiting') },
];

const isTerminal = (c: ChildStanding) => c.state === 'ended' || c.state === 'cancelled';

export function rollup(children: readonly ChildStanding[]): Rolled | null {
  if (children.length === 0) return null;
  return ROLLUP_RULES.find((r) => r.holds(children))?.state ?? 'active';
}

/** A child's standing from its state at `now`: blocked (docs/profile-flow-1.md "3. Runs blocked by other runs"), and overdue when an open step's due has passed. */
export function standingOf(state: RunState, now: number): ChildStanding {
  const overdue = Object.values(state.steps).some((st) => (st.state === 'ready' || st.state === 'waiting') && (st.overdue || (st.due !== null && Date.parse(st.due) <= now)));
  return { state: state.run.state, blocked: state.run.blocked === true, overdue };
}

/**
 * A step's state as a person reads it: a finished approval says how it was
 * decided ("rejected", not "done"), since that is what a reader of the run
 * wants to know; every other state is said as the protocol names it. Pure.
 */

/** `done` with a decision is that decision. */
export function stepStateWord(state: string, decision?: string): string {
  return state === 'done' && (decision === 'approved' || decision === 'rejected') ? decision : state;
}

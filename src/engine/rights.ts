/**
 * Who may do what beyond the protocol's own rules (pure): an agent's scope
 * (the processes WORK.md lets it start and claim steps of) and the board's
 * four-eyes policy (whoever started a run, or completed an earlier step of
 * it, does not decide its approvals). Core-2 lets any member decide; a board
 * that opts in narrows that.
 */
import type { Step } from '../process/model.js';
import type { Actor, RunState } from './types.js';

/** May this actor start, or claim steps of, this process? People are not scoped; agents by WORK.md. */
export function inScope(actor: Actor, process: string): boolean {
  return actor.kind !== 'agent' || actor.processes === undefined || actor.processes.includes(process);
}

export function scopeRefusal(actor: Actor, process: string): string {
  const id = actor.kind === 'agent' ? actor.id : '';
  return `agent ${id} may not work on ${process}: WORK.md limits it to ${actor.kind === 'agent' && actor.processes?.length ? actor.processes.join(', ') : 'no process'}`;
}

/** Does the four-eyes policy cover this process? */
export function fourEyesApplies(policy: boolean | readonly string[], process: string): boolean {
  return policy === true || (Array.isArray(policy) && policy.includes(process));
}

/**
 * Why the four-eyes policy keeps this person from deciding this approval,
 * or null: they started the run, or completed (now or before) another step of it.
 */
export function fourEyesProblem(state: RunState, def: Step, actor: Actor): string | null {
  if (def.kind !== 'approve' || actor.kind !== 'person') return null;
  const me = actor.email.toLowerCase();
  if (state.run.initiator?.toLowerCase() === me) return `four eyes: ${actor.email} started this run, so another member decides its approvals`;
  for (const st of Object.values(state.steps)) {
    if (st.id === def.id) continue;
    const done = [...(st.current ? [st.current] : []), ...st.history];
    if (done.some((c) => c.by.toLowerCase() === me)) return `four eyes: ${actor.email} completed step ${st.id} of this run, so another member decides its approvals`;
  }
  return null;
}

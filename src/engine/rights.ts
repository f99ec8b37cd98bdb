/**
 * Who may do what beyond the protocol's own rules (pure): an agent's scope
 * (the processes WORK.md lets it start and write to runs of) and the board's
 * four-eyes policy (whoever started a run, or completed an earlier step of
 * it, under any email they have had, does not decide its approvals). Core-2
 * lets any member decide; a board that opts in narrows that.
 */
import type { Step } from '../process/model.js';
import type { Actor, RunState } from './types.js';

/** May this actor start, or write to runs of, this process? People are not scoped; agents by WORK.md. */
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

/** Every email a person is known by on this board: theirs, and those they had before a rename (lowercased). */
export function emailsOf(person: { email: string; formerEmails?: readonly string[] }): Set<string> {
  return new Set([person.email, ...(person.formerEmails ?? [])].map((e) => e.toLowerCase()));
}

/**
 * Why the four-eyes policy keeps this person from deciding this approval,
 * or null: they started the run, or completed (now, or before a rework)
 * another step of it, under their email or one they had before a rename.
 */
export function fourEyesProblem(state: RunState, def: Step, actor: Actor): string | null {
  if (def.kind !== 'approve' || actor.kind !== 'person') return null;
  const mine = emailsOf(actor);
  const as = (recorded: string) => (recorded.toLowerCase() === actor.email.toLowerCase() ? '' : ` (as ${recorded})`);
  const initiator = state.run.initiator;
  if (initiator && mine.has(initiator.toLowerCase())) return `four eyes: ${actor.email} started this run${as(initiator)}, so another member decides its approvals`;
  for (const st of Object.values(state.steps)) {
    if (st.id === def.id) continue;
    const done = [...(st.current ? [st.current] : []), ...st.history].find((c) => mine.has(c.by.toLowerCase()));
    if (done) return `four eyes: ${actor.email} completed step ${st.id} of this run${as(done.by)}, so another member decides its approvals`;
  }
  return null;
}

/**
 * The flow-1 writes on an existing run (docs/profile-flow-1.md): a blocked
 * run woken, or ended because of a blocker; a run's priority changed by a
 * person. Same shape as commands.ts: apply, or return a Stop.
 */
import { blockersVerdict, type BlockerReads } from './blockers.js';
import type { Machine } from './machine.js';
import { levelName } from './priority.js';
import { actorName, SERVER, type Actor } from './types.js';
import { no, RUN_ENDED, type Stop } from './commands.js';

/**
 * A blocked run, its blockers as read now: it wakes at its first step (new
 * work, told as any other), ends as its failed or cancelled blocker did, or
 * stays blocked. A run that is not blocked (woken already, by another
 * coordinator) is left as it is.
 */
export function unblock(m: Machine, blockers: BlockerReads): void {
  const run = m.state.run;
  if (m.ended || !run.blocked) return;
  const v = blockersVerdict(run.blockedBy ?? [], blockers);
  if (v.kind === 'wait') return;
  delete run.blocked;
  if (v.kind === 'end') {
    m.end(v.state, v.outcome, { by: SERVER, at: m.at, note: v.note });
    return;
  }
  m.emit('run.unblocked', SERVER, `run:${run.id}`, { blockedBy: run.blockedBy ?? [] });
  m.enter(m.pinned.process.steps[0]!.id);
}

/** A person sets a running run's level: an operator, or the person who started it (docs/profile-flow-1.md "2. Priority"). */
export function setPriority(m: Machine, level: number, actor: Actor): Stop | undefined {
  const run = m.state.run;
  if (m.ended) return RUN_ENDED();
  if (run.priority === undefined) return no('invalid', `${run.process} does not use flow-1 (no flow: key), so its runs have no priority`, ['priority: not used by this process']);
  if (actor.kind !== 'person' || !(actor.operator || actor.email === run.initiator)) return no('forbidden', 'only an operator or the person who started the run sets its priority');
  if (run.priority === level) return undefined;
  m.emit('run.priority-changed', actorName(actor), `run:${run.id}`, { from: levelName(run.priority), to: levelName(level) });
  run.priority = level;
}

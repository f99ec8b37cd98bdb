/**
 * The flow-1 writes on an existing run (docs/profile-flow-1.md): a blocked
 * run woken, or ended because of a blocker; a run's priority changed by a
 * person; a subprocess step moved on by its children's ends; a child ended
 * with its parent. Same shape as commands.ts: apply, or return a Stop.
 */
import { blockersVerdict, runNamed, type BlockerReads } from './blockers.js';
import type { Machine } from './machine.js';
import { levelName } from './priority.js';
import { actorName, SERVER, type Actor } from './types.js';
import { no, RUN_ENDED, type Stop } from './commands.js';
import { endedBadly, endWord, routeFor, type ChildReads } from './children.js';

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

/**
 * A parent's subprocess steps, their children as read now (docs/profile-flow-1.md "5. Subprocess steps"):
 * one child's end routes the step on its outcome; a fan-out goes on when every
 * child has ended, or fails at the first failed child when its rule is `fail`.
 * The step's output is the child's final data (a fan-out: each child's, in `items`).
 */
export function childrenMoved(m: Machine, reads: ChildReads): void {
  for (const st of Object.values(m.state.steps)) {
    const def = m.defs.get(st.id);
    if (m.ended || st.state !== 'waiting' || !st.children?.length || def?.kind !== 'subprocess') continue;
    const ids = st.children;
    const ends = ids.map((id) => reads.get(id) ?? null);
    if (def.subprocess?.forEach === undefined) {
      const c = ends[0];
      const word = endWord(c);
      if (!c || word === null) continue;
      const to = routeFor(def, word, endedBadly(c));
      if (to === null) m.failByServer(st.id, `${runNamed(c)} ended ${word}`);
      else {
        m.emit('subprocess.ended', SERVER, st.id, { runs: ids, outcome: word });
        m.complete(st.id, { output: { run: c.id, outcome: word, ...c.data }, by: SERVER, at: m.at }, to);
      }
      continue;
    }
    const bad = ends.findIndex((c) => endedBadly(c));
    const c = ends[bad];
    if (c && def.subprocess.onFailure === 'fail') {
      m.failByServer(st.id, `${runNamed(c)} ended ${endWord(c)}, one of the ${ids.length} runs this step started`);
      continue;
    }
    if (ends.some((c) => endWord(c) === null)) continue;
    const word = bad >= 0 ? 'failed' : 'done';
    const to = routeFor(def, word, false);
    if (to === null) {
      m.failByServer(st.id, `no route for ${word}`);
      continue;
    }
    m.emit('subprocess.ended', SERVER, st.id, { runs: ids, outcome: word });
    const output = { runs: ids, outcomes: ends.map((c) => endWord(c)), items: ends.map((c) => c?.data ?? {}) };
    m.complete(st.id, { output, by: SERVER, at: m.at }, to);
  }
}

/** A child that could not be started (its process changed since publication): the step waiting for it fails, naming why. */
export function childRefused(m: Machine, child: string, note: string): void {
  if (m.ended) return;
  const st = Object.values(m.state.steps).find((s) => s.state === 'waiting' && s.children?.includes(child));
  if (st) m.failByServer(st.id, `could not start run ${child}: ${note}`);
}

/** A child whose parent ended or was cancelled ends too, cancelled, saying why (docs/profile-flow-1.md "5. Subprocess steps"). */
export function parentEnded(m: Machine, note: string): void {
  if (m.ended) return;
  m.end('cancelled', null, { by: SERVER, at: m.at, note });
}

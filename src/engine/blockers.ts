/**
 * Dependencies between runs (docs/profile-flow-1.md "3. Runs blocked by other runs"): which runs a new run
 * waits for, and what its blockers' ends mean for it. A blocker that ended
 * with a finish outcome is done with; one that failed or was rejected fails the
 * run, one that was cancelled cancels it, each naming the blocker. Pure: the
 * service reads the blockers and hands them over.
 */
import type { RunRecord } from './types.js';

/** What a blocked run is told of one blocker: enough to decide and to name it (`title`: the run's title in words). Null: no such run on this board. */
export type BlockerEnd = Pick<RunRecord, 'id' | 'process' | 'state' | 'outcome'> & { title?: string };

/** Another run as a note names it for people: by its title in words, else (no title read) by id and process. */
export const runNamed = (r: { id: string; process: string; title?: string | undefined }): string => (r.title !== undefined ? `“${r.title}”` : `run ${r.id} (${r.process})`);

/** Outcomes that end a run without its work done (docs/processes.md "How a run moves"): its dependants cannot go ahead. */
const FAILED_OUTCOMES: ReadonlySet<string | null> = new Set(['failed', 'rejected']);

const isOpen = (b: BlockerEnd) => b.state === 'active' || b.state === 'waiting';

export type BlockersVerdict = { kind: 'wait'; waitingFor: string[] } | { kind: 'wake' } | { kind: 'end'; state: 'ended' | 'cancelled'; outcome: string | null; note: string };

/** What the service read of each blocker named: null when the board has no such run (yet: git may bring it). */
export type BlockerReads = ReadonlyMap<string, BlockerEnd | null>;

/**
 * What a blocked run does now, given every blocker as read. The first blocker
 * (as named) that failed or was cancelled decides; a blocker not on this board
 * is waited for.
 */
export function blockersVerdict(ids: readonly string[], found: BlockerReads): BlockersVerdict {
  const waitingFor: string[] = [];
  for (const id of ids) {
    const b = found.get(id) ?? null;
    if (!b || isOpen(b)) {
      waitingFor.push(id);
      continue;
    }
    if (b.state === 'cancelled') return { kind: 'end', state: 'cancelled', outcome: null, note: `blocked by ${runNamed(b)}, which was cancelled` };
    if (b.state === 'ended' && FAILED_OUTCOMES.has(b.outcome)) return { kind: 'end', state: 'ended', outcome: 'failed', note: `blocked by ${runNamed(b)}, which ended ${b.outcome}` };
  }
  return waitingFor.length > 0 ? { kind: 'wait', waitingFor } : { kind: 'wake' };
}

/**
 * The blockers a start names, checked: each a run on this board, named once,
 * not one that already failed or was cancelled (the new run would end at
 * once). `found` holds what the service read for each id (null: no such run).
 */
export function blockerIssues(field: string, ids: readonly string[], found: BlockerReads): string[] {
  const issues: string[] = [];
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    const at = `inputs.${field}[${i}]`;
    const b = found.get(id) ?? null;
    if (seen.has(id)) issues.push(`${at}: run ${id} is named twice`);
    else if (!b) issues.push(`${at}: no run ${id} on this board`);
    else {
      const v = blockersVerdict([id], found);
      if (v.kind === 'end') issues.push(`${at}: run ${id} (${b.process}) already ${b.state === 'cancelled' ? 'was cancelled' : `ended ${b.outcome}`}; a run it blocks could never start`);
    }
    seen.add(id);
  });
  return issues;
}

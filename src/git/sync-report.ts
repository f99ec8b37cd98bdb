/**
 * What a sync says: its report (what arrived, what was merged, whether it
 * pushed) and, when it stops, why, as a code that picks the exit code
 * (docs/git.md "When a sync fails").
 */
import type { BoardMergeResult } from './board-merge.js';
import type { RunMerge } from './merge-run.js';
import type { SupersededBranch } from '../board/superseded.js';

export interface SyncReport {
  remote: string;
  branch: string;
  /** The commit made of what was uncommitted, if one was made. */
  committed: string | null;
  /** What arrived: nothing, a fast-forward, or a merge commit. */
  pulled: 'nothing' | 'fast-forward' | 'merge';
  /** Runs changed on both sides, and what the merge set aside. */
  merged: { run: string; taken: RunMerge['taken']; superseded: { side: 'ours' | 'theirs'; transitions: number; replayed: number; held: number } | null }[];
  pushed: boolean;
  head: string | null;
}

/** Why a sync stopped; `code` picks the exit code. */
export class SyncError extends Error {
  constructor(
    readonly code: 'unreachable' | 'not-git' | 'refused' | 'declined' | 'busy' | 'broken',
    message: string,
  ) {
    super(message);
    this.name = 'SyncError';
  }
}

/** What a merge did to each run that moved on both sides, as a report lists it. */
const count = (b: SupersededBranch, kind: 'replayed' | 'held'): number => (b.outcomes ?? []).filter((o) => kind in o).length;

function supersededSummary(side: 'ours' | 'theirs', b: SupersededBranch): NonNullable<SyncReport['merged'][number]['superseded']> {
  const replayed = count(b, 'replayed');
  const held = count(b, 'held');
  return { side, transitions: b.lines.length - replayed - held, replayed, held };
}

/** What of a superseded side still holds, as the report's words add it: `, 2 replayed on top, 1 already done there`. */
export function holdingWords(s: { replayed: number; held: number }): string {
  return `${s.replayed > 0 ? `, ${s.replayed} replayed on top` : ''}${s.held > 0 ? `, ${s.held} already done there` : ''}`;
}

export function summarise(runs: BoardMergeResult['runs']): SyncReport['merged'] {
  return runs.map(({ id, merge }) => ({
    run: id,
    taken: merge.taken,
    // Lines whose act holds on the kept side (applied again, or already done there) are not counted as superseded (docs/git.md "The replay").
    superseded: merge.superseded ? supersededSummary(merge.superseded.side, merge.superseded.branch) : null,
  }));
}

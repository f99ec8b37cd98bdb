/**
 * The git merge driver for board files (`workboard merge-driver %O %A %B %P`),
 * for merges git makes itself (a `git pull`, a `git merge`, a rebase). It never
 * leaves a conflict marker: each file is resolved by the board's own rules,
 * alike whichever way round, and the post-merge reconciliation
 * (reconcile.ts) then makes every run whole from one side, which a driver
 * that sees one file at a time cannot do alone.
 * - an audit chain: the chain the run-level rule ranks higher (merge-run.ts);
 * - superseded branches: the union of both sides';
 * - WORK.md: merged as data (board-merge.ts);
 * - a run or step file: the higher `rev`; equal revs, the greater content hash;
 *   a side that is not a valid board file loses.
 */
import { sha256Hex } from '../core/hash.js';
import { parseMarkdown } from '../core/markdown.js';
import { WORK_FILE } from '../board/layout.js';
import { canonicalBranches, parseSuperseded, SUPERSEDED_FILE, supersededText } from '../board/superseded.js';
import { mergeManifest } from './board-merge.js';
import { CHAIN_FILE, mergeRun } from './merge-run.js';

function rev(text: string): number | null {
  const p = parseMarkdown(text);
  if (!p.ok) return null;
  const r = (p.value.data as { rev?: unknown } | null)?.rev;
  return typeof r === 'number' && Number.isInteger(r) ? r : null;
}

/** The merged content of one board file. `file` is its path (relative to the repository or the board). */
export function mergeBoardFile(file: string, base: string | null, ours: string, theirs: string): string {
  if (ours === theirs) return ours;
  const name = file.slice(file.lastIndexOf('/') + 1);
  if (name === SUPERSEDED_FILE) return supersededText(canonicalBranches([], parseSuperseded(ours).branches, parseSuperseded(theirs).branches));
  if (name.endsWith('.jsonl')) {
    const one = (t: string | null) => (t === null ? null : { [CHAIN_FILE]: t });
    return mergeRun(one(base), one(ours), one(theirs)).files?.[CHAIN_FILE] ?? ours;
  }
  const greater = sha256Hex(ours) >= sha256Hex(theirs) ? ours : theirs;
  if (name === WORK_FILE) return mergeManifest(base, ours, theirs, greater === ours ? 'ours' : 'theirs');
  const a = rev(ours);
  const b = rev(theirs);
  if (a === null || b === null) return a === null && b === null ? greater : a === null ? theirs : ours;
  return a > b ? ours : b > a ? theirs : greater;
}

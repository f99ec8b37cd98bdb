/**
 * The git merge driver for board files (`workboard merge-driver %O %A %B`).
 * A run or step file: the version with the higher `rev` wins; an equal rev
 * with different content is left as a conflict (doctor reports it). An
 * audit chain: when one side extends the other, the longer one is taken;
 * chains that diverge are left as a conflict, since dropping either side's
 * events would lose history.
 */
import { verifyChain } from '../board/audit.js';
import { parseMarkdown } from '../core/markdown.js';

export type MergeOutcome = { result: 'ours' | 'theirs' } | { result: 'conflict'; reason: string };

function rev(text: string): number | null {
  const p = parseMarkdown(text);
  if (!p.ok) return null;
  const r = (p.value.data as { rev?: unknown } | null)?.rev;
  return typeof r === 'number' && Number.isInteger(r) ? r : null;
}

export function mergeBoardFile(file: string, ours: string, theirs: string): MergeOutcome {
  if (ours === theirs) return { result: 'ours' };
  if (file.endsWith('.jsonl')) {
    if (theirs.startsWith(ours) && verifyChain(theirs).breaks.length === 0) return { result: 'theirs' };
    if (ours.startsWith(theirs) && verifyChain(ours).breaks.length === 0) return { result: 'ours' };
    return { result: 'conflict', reason: 'the audit chains diverge: both branches recorded transitions on this run' };
  }
  const a = rev(ours);
  const b = rev(theirs);
  if (a === null || b === null) return { result: 'conflict', reason: `${a === null ? 'our' : 'their'} version is not a valid board file` };
  if (a > b) return { result: 'ours' };
  if (b > a) return { result: 'theirs' };
  return { result: 'conflict', reason: `both versions have rev ${a} but different content` };
}

/**
 * The work item a replayed decision decides on the kept side (docs/git.md
 * "The replay"). Usually the item itself. But when both sides opened an item
 * for one step after the fork (a person sent the same event on two clones
 * before either synced), each has its own id, made from the moment it opened,
 * and a decision on the side set aside names an item the kept side never had.
 * It is the same item when the kept side's is still open, is the same step's
 * same round, and stands on the same run data but for when each thing was done:
 * then the decision applies there. Any other difference, and it is refused as
 * before. Pure.
 */
import { canonicalJson } from '../core/hash.js';
import { decodeDoc } from '../board/document.js';
import type { RunState, StepState } from '../engine/types.js';
import { stepFromDoc } from '../service/runfiles.js';

/** A run folder's files by name. */
type Folder = Readonly<Record<string, string>>;

/**
 * The kept side's open item that is `item` of the side set aside (`loser`,
 * decided on `step` at `at`), or null when there is none that is the same.
 */
export function sameItemKept(item: string, step: string, at: string, loser: Folder, kept: RunState): string | null {
  const keptStep = kept.steps[step];
  if (!keptStep?.workItem || Object.values(kept.steps).some((s) => s.workItem === item || s.decided.includes(item))) return null;
  const theirs = stepsOf(loser);
  const round = theirs.find((s) => s.id === step)?.decided.indexOf(item) ?? -1;
  if (round !== keptStep.decided.length) return null;
  return dataOf(theirs, at) === dataOf(Object.values(kept.steps)) ? keptStep.workItem : null;
}

function stepsOf(folder: Folder): StepState[] {
  return Object.entries(folder).flatMap(([name, text]) => {
    if (!name.endsWith('.md') || name === 'RUN.md') return [];
    const doc = decodeDoc(`runs/x/${name}`, Buffer.from(text));
    return doc.ok ? [stepFromDoc(doc.doc)] : [];
  });
}

/** Every step's completions made before `before` (all when absent), oldest first, without when each was made. */
function dataOf(steps: readonly StepState[], before?: string): string {
  const data: Record<string, unknown[]> = {};
  for (const st of steps) {
    const made = [...st.history, ...(st.current ? [st.current] : [])].filter((c) => before === undefined || c.at < before);
    if (made.length > 0) data[st.id] = made.map(({ at: _at, check, ...rest }) => (check ? { ...rest, check: { ...check, at: '' } } : rest));
  }
  return canonicalJson(data);
}

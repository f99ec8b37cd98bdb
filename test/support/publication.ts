/**
 * What publication says of a PROCESS.md text: every problem as "line: path:
 * message", sorted, or none when it loads. The profile key tests compare
 * these lists whole, so a problem added or lost shows.
 */
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

export function publicationProblems(text: string, offer = FULL_OFFER): string[] {
  const r = loadProcess(text, offer);
  return r.ok ? [] : r.issues.map((i) => `${i.line}: ${i.path}: ${i.message}`).sort();
}

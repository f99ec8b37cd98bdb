/**
 * Clauses and lists inside a sentence: a clause starts in lower case
 * ("… is overdue: approve the payout"), unless its first word is an acronym or
 * a name, and its own closing period does not end up inside the sentence. Pure.
 */

/** A first word kept as written: capitals ("QA", "EUR"), or a capital inside it ("McKay", "iPhone"), or a lone "I". */
const keepsCase = (w: string): boolean => /^[A-Z0-9]{2,}\b/.test(w) || /^\S[a-z]*[A-Z]/.test(w) || /^I\b/.test(w);

/** The clause as it reads inside a sentence: first letter lower-cased unless it starts with an acronym or a name. */
export function inSentence(clause: string, names: readonly string[] = []): string {
  const c = clause.trim().replace(/[.]+$/, '');
  if (c === '' || keepsCase(c) || names.some((n) => n !== '' && c.startsWith(n))) return c;
  return c.charAt(0).toLowerCase() + c.slice(1);
}

/** Items as a person lists them: "Ana", "Ana and Ben", "Ana, Ben and Cy". */
export function inList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

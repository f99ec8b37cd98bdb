/**
 * Joining clauses into one sentence: the joined clause starts in lower case
 * ("Next: Approve the payout because the claim is within policy"), unless its
 * first word is an acronym or a name, and a clause's own closing period does
 * not end up inside the sentence. Pure.
 */

/** A first word kept as written: capitals ("QA", "EUR"), or a capital inside it ("McKay", "iPhone"), or a lone "I". */
const keepsCase = (w: string): boolean => /^[A-Z0-9]{2,}\b/.test(w) || /^\S[a-z]*[A-Z]/.test(w) || /^I\b/.test(w);

/** The clause as it reads inside a sentence: first letter lower-cased unless it starts with an acronym or a name. */
export function inSentence(clause: string, names: readonly string[] = []): string {
  const c = clause.trim().replace(/[.]+$/, '');
  if (c === '' || keepsCase(c) || names.some((n) => n !== '' && c.startsWith(n))) return c;
  return c.charAt(0).toLowerCase() + c.slice(1);
}

/**
 * Two clauses joined by a word: `joinClauses("Next: Approve the payout", "because", "The claim is within policy.")`
 * → "Next: Approve the payout because the claim is within policy". `names` are words the second clause may start
 * with that keep their capital (people's names).
 */
export function joinClauses(first: string, joiner: string, second: string, names: readonly string[] = []): string {
  return `${first.trim().replace(/[.]+$/, '')} ${joiner} ${inSentence(second, names)}`;
}

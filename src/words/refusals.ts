/**
 * A refused decision in a person's words, where the refusal's issue says it
 * better than its message: the engine's message names people by email and
 * steps by id, for the protocol's answers.
 */
export function refusalWords(issues: readonly string[]): string | undefined {
  // docs/people.md "Out of office": four eyes holds for a stand-in and for the person away alike.
  if (issues.includes('four_eyes')) return 'Four eyes: you started this run or did one of its earlier steps (or the person you stand in for did), so another approver decides it.';
  return undefined;
}

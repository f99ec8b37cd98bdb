/** The seven error codes of the tool contracts (docs/agents.md "Errors"), and the refusal every layer throws to answer with one. */
export type ErrorCode = 'invalid' | 'not_accepted' | 'stale' | 'conflict' | 'forbidden' | 'not_found' | 'retry';

/** A refusal exactly as the tool contracts shape it. Nothing changed. */
export class ToolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues: string[] = [],
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

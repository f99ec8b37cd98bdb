import type { Issue } from '../core/issues.js';

/**
 * Why the board refused or could not complete a write. Nothing was changed.
 * - `conflict`: a rev compare-and-swap failed; `current` is what is there now.
 * - `invalid`: a file on disk breaks its schema (a bad hand edit) or an argument was unusable.
 * - `busy`: the lock could not be had in time; retrying is safe.
 * - `corrupt`: the audit chain or a journal is damaged; an operator must look (`workboard doctor`).
 */
export type BoardErrorCode = 'conflict' | 'invalid' | 'busy' | 'corrupt';

export class BoardError extends Error {
  constructor(
    readonly code: BoardErrorCode,
    message: string,
    readonly issues: Issue[] = [],
    readonly current?: unknown,
  ) {
    super(message);
    this.name = 'BoardError';
  }
}

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

/**
 * What kind of fault an unexpected error is. `no_space` and `resource` go
 * away when the disk or the process gets room again (retrying helps);
 * `internal` does not (permission denied, a read-only disk, a bug).
 */
export type Fault = { kind: 'no_space' | 'resource' | 'internal'; message: string };

/** The answer a fault that goes away gets, as every tool and the CLI's --json say it (README, exit codes): `retry`, naming why; null for an internal fault. */
export function retryError(fault: Fault): { code: 'retry'; message: string; issues: string[] } | null {
  return fault.kind === 'internal' ? null : { code: 'retry', message: fault.message, issues: [fault.kind === 'no_space' ? 'disk_full' : 'resource_exhausted'] };
}

export function faultOf(e: unknown): Fault {
  const code = typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
  const message = e instanceof Error ? e.message : String(e);
  if (code === 'ENOSPC' || code === 'EDQUOT') return { kind: 'no_space', message: `the board's disk is full (${code}); nothing was changed: free some space, then call again` };
  if (code === 'EMFILE' || code === 'ENFILE' || code === 'ENOMEM' || code === 'EAGAIN' || code === 'EBUSY')
    return { kind: 'resource', message: `the server is out of a resource for now (${code}); call again shortly` };
  return { kind: 'internal', message };
}

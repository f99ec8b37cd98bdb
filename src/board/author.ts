/**
 * Who made a change to the board: the identity used (an agent id, a person's
 * email, or `user:<login>`) and, through the CLI, the operating-system user
 * that ran the command. Both go into the change's audit line.
 */
import type { CommitEvent } from './commit.js';

export interface Author {
  actor: string;
  /** The OS account that ran the command; null when the change did not come from a local command. */
  osUser: string | null;
}

/** One audit event of a change by `by`, as a commit carries it: the OS user is recorded beside what changed. */
export function eventBy(by: Author, action: string, entity: string, changes: Record<string, unknown>): CommitEvent {
  return { actor: by.actor, action, entity, changes, ...(by.osUser !== null ? { input: { osUser: by.osUser } } : {}) };
}

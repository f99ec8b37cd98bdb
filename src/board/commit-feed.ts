/**
 * What each commit changed, told to whoever keeps something read from the
 * board: the store publishes every commit it makes or finishes (a
 * transaction's, a merge's replacement, a dead writer's journal rolled
 * forward, an earlier boot's log replayed), and every cache keyed by run
 * subscribes, so no writer has to remember to tell a cache by hand
 * (docs/architecture.md "How caches follow commits").
 */
import type { AuditEvent } from './audit.js';
import type { Scope } from './layout.js';

/** How the commit came about. */
export type CommitSource = 'transaction' | 'merge' | 'roll-forward' | 'replay';

export interface CommitEvent {
  scope: Scope;
  source: CommitSource;
  /** The board paths written or removed (committed files and `.work/` records alike). */
  files: readonly string[];
  /** Its audit events as sealed; empty for a commit finished from a journal or a log, whose lines are not read back. */
  events: readonly AuditEvent[];
}

export type CommitListener = (event: CommitEvent) => void;

export class CommitFeed {
  private readonly listeners = new Set<CommitListener>();

  /** Be told of every commit from now on; call what it returns to stop. */
  subscribe(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Tell every listener, each of them even when one throws. The commit stands
   * whatever a listener does, so a listener's error is thrown once all have
   * been told: the call that committed answers it, and a repeat finds the
   * commit made.
   */
  publish(event: CommitEvent): void {
    if (event.files.length === 0 && event.events.length === 0) return;
    const errors: unknown[] = [];
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'commit listeners failed');
  }
}

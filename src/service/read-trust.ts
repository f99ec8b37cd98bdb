/**
 * How long a sweep over every open run (get_work, list_runs, the daemon's
 * deadlines) serves a run's state as last read without looking at its
 * folder again: while a watch reports every change there, and never longer
 * than TRUST_MS (docs/architecture.md "External edits"). The entries are
 * RunReader's (each holds a run's state as read, `Loaded`); this file says
 * what an entry holds and when it is trusted.
 */
/**
 * How long an open run's state, read while its folder was watched, is served
 * by the sweeps over every open run without looking at its folder again (two
 * stats a run, most of get_work's time on a board of thousands of open runs).
 * A backstop only: a watch event or the change log naming the run ends the
 * trust at once. Each run's trust lasts between one and one and a half times
 * this, so runs read together are not all looked at again in the same call.
 */
const TRUST_MS = 2000;

/** An open run as last read: the stamp it was read at, and what may let a sweep reuse it without the whole stamp. */
export interface CachedRun<Loaded> {
  stamp: { folder: string; leases: string };
  loaded: Loaded;
  /** The change log or a watch named the run since it was read: the next read reads its files
   *  again, even when the folders' times did not move (a file written in place moves only its own). */
  named: boolean;
  /** Until when (performance.now() time) a sweep serves it without looking at all: see TRUST_MS. */
  trustedUntil: number;
}

/** Something changed in the run: its next read looks at its files. */
export function distrust(c: CachedRun<unknown>): void {
  c.named = true;
  c.trustedUntil = 0;
}

/** Until when a state read now is served without looking (0: not at all): only a state read while its folder is watched. */
export function trustFrom(watched: boolean): number {
  return watched ? performance.now() + TRUST_MS * (1 + Math.random() / 2) : 0;
}

/** The state a sweep may serve at `t` (performance.now() time) without looking, if any. */
export function trustedAt<Loaded>(c: CachedRun<Loaded> | undefined, t: number): Loaded | undefined {
  return c && c.trustedUntil > t ? c.loaded : undefined;
}

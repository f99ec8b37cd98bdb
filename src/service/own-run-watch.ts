/**
 * The open runs' folders watched by a long-lived process that has no serve
 * daemon to watch them (`workboard mcp`): with the watch, a sweep of every
 * open run (get_work) serves what it read before, as serve's reads do, instead
 * of looking at each run's folder on every call (docs/architecture.md
 * "Reads"). The watch follows the open runs at each sweep, as serve's daemon
 * does at each plan, so a folder git replaced whole is watched again; a folder
 * that cannot be watched (the OS's budget spent) is looked at as before.
 */
import { CHANGES_FILE } from '../board/layout.js';
import { RunWatch } from '../board/run-watch.js';
import type { RunReader } from './run-reader.js';

/** Start watching; returns what stops it. The watches do not keep the process running. */
export function watchOpenRuns(root: string, reader: RunReader): () => void {
  const watch = new RunWatch(root, CHANGES_FILE, (e) => e.kind === 'run' && reader.changed(e.runId), false);
  let followed: readonly unknown[] | null = null;
  reader.onSweep((open) => {
    // The index hands out the same list while no run opened or ended: with every folder of it still watched, there is nothing to follow.
    if (open === followed && watch.watching === open.length) return;
    followed = open;
    // A run followed only now may have changed before its watch began: its next read looks.
    for (const id of watch.follow(open.map((r) => r.id))) reader.changed(id);
  });
  reader.trustWatched((id) => watch.watches(id));
  return () => {
    reader.onSweep(null);
    reader.trustWatched(null);
    watch.close();
  };
}

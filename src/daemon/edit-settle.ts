/**
 * When a run's files may be read as a hand edit: once its folder has been
 * quiet for a while. An editor or a script may write a file in place, in
 * several writes after truncating it; read between two of them, the file is
 * half-written, and would be refused (a false alarm) or, worse, adopted, and
 * adoption replaces the file, so the rest of the person's writes would land
 * on the replaced copy and be lost (docs/architecture.md "External edits").
 * Quiet is wall time, whatever clock the daemon's deadlines follow: writers
 * do not follow a test's clock.
 */
import type { Listing } from '../board/listing.js';
import { paths } from '../board/layout.js';

/** How long a run's folder must stay unwritten before its files are read as a hand edit. */
export const EDIT_SETTLE_MS = 500;

export class EditSettle {
  /** When the watch last reported each run's folder changed (wall time, ms). */
  private readonly heardAt = new Map<string, number>();

  constructor(
    private readonly listing: Listing,
    private readonly settleMs = EDIT_SETTLE_MS,
    private readonly wall: () => number = Date.now,
  ) {}

  /** The watch saw something change in this run's folder. */
  heard(runId: string): void {
    this.heardAt.set(runId, this.wall());
  }

  /**
   * Which of `runIds` have been quiet long enough to read, and how long until
   * the first of the others will have been (null when none is left waiting).
   * The files' own times count too: a loaded process may plan before its watch
   * has reported the latest write.
   */
  split(runIds: Iterable<string>): { quiet: string[]; waitMs: number | null } {
    const quiet: string[] = [];
    let firstQuietAt = Infinity;
    for (const id of runIds) {
      const last = Math.max(this.heardAt.get(id) ?? 0, lastWritten(this.listing, paths.runDir(id)));
      const quietAt = last + this.settleMs;
      if (quietAt <= this.wall()) {
        quiet.push(id);
        this.heardAt.delete(id);
      } else {
        firstQuietAt = Math.min(firstQuietAt, quietAt);
      }
    }
    return { quiet, waitMs: firstQuietAt === Infinity ? null : Math.max(1, firstQuietAt - this.wall()) };
  }
}

/** When a file directly in this board folder was last written (ms since the epoch), or 0 when none can be read. */
function lastWritten(listing: Listing, dir: string): number {
  let last = 0;
  for (const name of listing.names(dir) ?? []) {
    const st = listing.stat(`${dir}/${name}`);
    if (st) last = Math.max(last, Number(st.mtimeNs / 1_000_000n));
  }
  return last;
}

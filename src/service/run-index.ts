/**
 * Each coordinator's index of the board's runs, rebuilt from the files and
 * never a source of truth (docs/architecture.md "The change log"). A run's summary (RUN.md) is reused
 * while RUN.md's inode, size and mtime are unchanged: every commit renames a
 * new RUN.md into place, so any write to a run invalidates it. The summaries
 * are also kept under `.work/index/` (run-index-file.ts), with how far the
 * change log (`.work/changes`) was read, so a fresh CLI process starts warm and
 * looks again only at runs that changed since. Runs this process commits are
 * looked at again on the next use whatever the log says, as the store tells
 * the index of each commit (docs/architecture.md "How caches follow commits").
 */
import type { Board } from '../board/board.js';
import type { ChangeCursor } from '../board/changes.js';
import { isRunId, paths } from '../board/layout.js';
import { IndexEntries, isOpenSummary as isOpen, type IndexCursor as Cursor } from './run-index-file.js';
import { idSum } from './run-index-mark.js';
import { runFromDoc } from './runfiles.js';
import { scanRunSummary, type RunSummary } from './run-summary-scan.js';

// Synchronous stats and reads throughout: microseconds each on files in the page cache,
// where an asynchronous call costs a thread-pool round trip.

/** A folder's stamp: its inode, mtime and ctime ('-' when it is not there). */
function folderStamp(board: Board, rel: string): string {
  const s = board.listing.stat(rel);
  return s ? `${s.ino}:${s.mtimeNs}:${s.ctimeNs}` : '-';
}

/**
 * A stamp of what a run's state is read from: its folder and its leases
 * folder. Every commit renames files into them, and git replaces files in
 * them, either of which moves a folder's mtime. A file edited in place is
 * seen once the run next changes, or at once by `workboard serve`, whose
 * watcher adopts the edit with a commit. Taken with synchronous stats:
 * microseconds each, and `get_work` takes up to one stamp per open run.
 */
export function runStamp(board: Board, runId: string): { folder: string; leases: string } {
  return { folder: runFolderStamp(board, runId), leases: folderStamp(board, paths.leaseDir(runId)) };
}

/**
 * The run folder's half of the stamp alone: enough for a run the change log
 * has not named since, as only commits write leases and every commit is named.
 */
export function runFolderStamp(board: Board, runId: string): string {
  return folderStamp(board, paths.runDir(runId));
}

/**
 * How long an index trusts the change log before checking every RUN.md again.
 * What the log and the runs/ listing cannot show is an edit made outside
 * workboard to a run already in the index; open runs are read afresh on
 * every use anyway, so this bounds only how stale an ended run's summary can be.
 */
export const RESCAN_MS = 10 * 60_000;

/** How many RUN.md files a full scan reads at once. */
const SCAN_BATCH = 32;

/**
 * How often runs/ is listed when it changed and its link count cannot say whether
 * only the runs the change log named came or went (past 65,000 runs on ext4): a
 * run folder git or a hand brought then shows within this, not at once. The
 * listing costs tens of milliseconds at 100k runs, every write's catch-up without this.
 */
export const LIST_EVERY_MS = 2_000;

/** How often a long-lived coordinator writes its index back to `.work/index/` (after a full scan: at once). */
const SAVE_EVERY_MS = 5_000;
const byId = (rs: RunSummary[]) => rs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

export class RunIndex {
  /** Every run's entry, the ended ones read from disk only when needed (run-index-file.ts). */
  private readonly entries = new IndexEntries();
  private cursor: Cursor | null = null;
  private loaded = false;
  private dirty = false;
  private savedAt = 0;
  /** When runs/ was last listed (see LIST_EVERY_MS). */
  private listedAt = 0;
  /** The summaries in id order, kept until an entry changes. */
  private sorted: RunSummary[] | null = null;
  /** The open runs' summaries in id order, kept until an open run comes, goes or changes: what get_work walks. */
  private sortedOpen: RunSummary[] | null = null;
  private saving: Promise<void> = Promise.resolve();
  /**
   * Folders of runs/ that held no RUN.md when last listed: a run whose first
   * commit is under way (its folder is made before its files are renamed in),
   * or a leftover. Counted with the entries against runs/'s link count, so
   * such a folder makes one listing of runs/, not one at every later catch-up.
   */
  private bare = new Set<string>();
  /**
   * Runs this process is starting: each one's folder is made with its first
   * commit's temp files, well before the change log names it, so under a load
   * of new runs a catch-up nearly always falls inside some start. Counted too
   * (once their folder is there), so a server's own starts cost no listing.
   */
  private readonly ownStarts = new Set<string>();
  /** Runs the store committed in this process since the index last looked: looked at again first. */
  private readonly committed = new Set<string>();

  constructor(
    private readonly board: Board,
    private readonly onProgress?: (done: number, total: number) => void,
    private readonly clock: () => number = Date.now,
    /** Told of each run the change log names as it is read, and (null) when any run may have changed unseen: a full scan. */
    private readonly onChanged?: (runId: string | null) => void,
  ) {
    board.store.onCommit((c) => {
      if (c.scope.kind === 'run') this.committed.add(c.scope.id);
    });
  }

  /** The copy on disk, read once, and again when another process saved over this one's (`stale`). */
  private loadCache(): Promise<void> {
    if (this.loaded && !this.entries.stale) return Promise.resolve();
    // Read again: runs another process caught up on are not named to this one by the log, so nothing read is trusted.
    if (this.loaded) this.onChanged?.(null);
    this.loaded = true;
    this.cursor = this.entries.load(this.board.state);
    this.sorted = null;
    this.sortedOpen = null;
    return Promise.resolve();
  }

  /**
   * Every run's summary, oldest id first. Between full checks of every RUN.md
   * (at most RESCAN_MS apart), only runs named in the change log since last
   * time, and runs added to or removed from runs/, are looked at again.
   */
  async summaries(): Promise<readonly RunSummary[]> {
    await this.sync(true);
    this.sorted ??= byId(this.entries.values().map((e) => e.summary));
    return this.sorted;
  }

  /** The summaries of the runs still open (neither ended nor cancelled), oldest id first: the cost of what is open, not of the board. */
  async openSummaries(): Promise<readonly RunSummary[]> {
    await this.sync();
    this.sortedOpen ??= byId([...this.entries.openValues()].map((e) => e.summary));
    return this.sortedOpen;
  }

  /**
   * Catch up with the change log and runs/. `all`: every run is wanted (the
   * ended ones are read from disk first, and checked again every RESCAN_MS);
   * for the open runs alone, an ended run's entry is never looked at.
   */
  private async sync(all = false): Promise<void> {
    await this.loadCache();
    if (all) this.entries.loadEnded();
    for (const id of [...this.committed]) {
      this.committed.delete(id);
      await this.refresh(id);
    }
    const runs = this.board.listing.stat('runs');
    const runsDir = runs ? `${runs.ino}:${runs.mtimeNs}` : '';
    const c = this.cursor;
    if (c !== null && !this.entries.broken && (!all || this.clock() - c.fullAt < RESCAN_MS)) {
      const read = this.board.changes.read(c.log);
      // A log started afresh may have lost commits made since the cursor: only a full scan sees them.
      if (!read.restarted) {
        await this.catchUp(c, read.lines, read.cursor, runsDir, runs?.links ?? 2);
        // What catching up read of the ended entries did not match what was vouched for: look at every run.
        if (!this.entries.broken) {
          // Appended in the background and at most every few seconds.
          if (this.dirty && this.clock() - this.savedAt >= SAVE_EVERY_MS) void this.saveCache();
          return;
        }
      }
    }
    // The log's end is taken before the scan: whatever is appended meanwhile is read next time.
    await this.fullScan({ log: this.board.changes.end(), runsDir, fullAt: this.clock() }, !all);
    await this.saveCache();
    // Only the open runs were wanted: the ended ones stay on disk until something wants them.
    if (!all) this.entries.releaseEnded();
  }

  /** The run folders in runs/, in the folder's order. */
  private listRunIds(): string[] {
    return (this.board.listing.typedNames('runs') ?? []).map((d) => d.name).filter(isRunId);
  }

  /**
   * Look at every run. `spill`: when nothing is held yet (a cold start), the
   * ended runs' entries go straight to the index file as they are read, not
   * into memory (run-index-file.ts), unless every run is wanted now anyway.
   */
  private async fullScan(cursor: Cursor, spill: boolean): Promise<void> {
    this.onChanged?.(null);
    const cold = spill && this.entries.startSpill();
    // Every held stamp is compared with its RUN.md: the ended ones are read first, as one file, not run by run.
    if (!cold) this.entries.loadEnded();
    // The listing says which run folders are links (never followed: such a run is left out, as a read refuses it).
    const listed = (this.board.listing.typedNames('runs') ?? []).filter((d) => isRunId(d.name));
    const ids = listed.map((d) => d.name);
    const bare: string[] = [];
    for (let i = 0; i < listed.length; i += SCAN_BATCH) {
      if (i % 256 === 0) this.onProgress?.(i, ids.length);
      for (const { name, link } of listed.slice(i, i + SCAN_BATCH)) {
        let kept: boolean;
        if (link === true) kept = this.forget(name);
        // A run not in the index yet (all of them, at a cold start): its RUN.md read once, with its stamp.
        else if (link === false && (cold || !this.entries.has(name))) kept = await this.refreshRead(name);
        else kept = await this.refresh(name);
        if (!kept) bare.push(name);
      }
    }
    // Runs gone from runs/ since (none to look for after a cold start: nothing was held before it).
    if (!cold) {
      const seen = new Set(ids);
      for (const id of this.entries.keys()) if (!seen.has(id)) this.forget(id);
    }
    this.bare = new Set(bare);
    this.entries.rebuilt();
    this.cursor = cursor;
    this.dirty = true;
  }

  private async catchUp(c: Cursor, lines: readonly string[], log: ChangeCursor, seenDir: string, runsLinks: number): Promise<void> {
    let runsDir = seenDir;
    const changed = new Set<string>();
    for (const line of lines) if (line.startsWith('run ')) changed.add(line.slice(4));
    for (const id of changed) {
      if (!isRunId(id)) continue;
      this.onChanged?.(id);
      await this.refresh(id);
    }
    // runs/ changed: usually only the runs the log just named were added. A folder's link
    // count is 2 + its subfolders (where the file system counts them so), so when it matches
    // the index nothing else came or went, and the listing of every run is skipped.
    if (runsDir !== c.runsDir) {
      // A folder that held no RUN.md may hold one now (git writes a folder's files after making it).
      for (const id of [...this.bare]) await this.refresh(id);
      // ext4 stops counting past 65,000 subfolders (the count reads 1): then runs/ is listed
      // at most every LIST_EVERY_MS, and its stamp is not taken as seen until it is.
      const counted = runsLinks >= 2;
      if (counted ? runsLinks - 2 !== this.entries.size + this.bare.size + this.ownStartsUnseen().length : this.clock() - this.listedAt >= LIST_EVERY_MS) {
        this.listedAt = this.clock();
        const listed = this.listRunIds();
        // The same ids as the index, its folders without RUN.md and this process's starts: nothing else came or went.
        const unseen = this.ownStartsUnseen();
        const same = listed.length === this.entries.size + this.bare.size + unseen.length && idSum(listed) === idSum([...this.bare, ...unseen], this.entries.sum);
        if (!same) {
          const ids = new Set(listed);
          for (const id of ids) if (!this.entries.has(id)) await this.refresh(id);
          for (const id of this.entries.keys()) if (!ids.has(id)) this.forget(id);
          this.bare = new Set([...ids].filter((id) => !this.entries.has(id)));
        }
      } else if (!counted) runsDir = c.runsDir;
    }
    if (log.log !== c.log.log || log.offset !== c.log.offset || runsDir !== c.runsDir) {
      this.cursor = { ...c, log, runsDir };
      this.dirty = true;
    }
  }

  /** A run this process begins to start; call what it returns once the start is over, done or not. */
  starting(runId: string): () => void {
    this.ownStarts.add(runId);
    return () => this.ownStarts.delete(runId);
  }

  /** This process's starts whose folder is there but not yet in the index. */
  private ownStartsUnseen(): string[] {
    return [...this.ownStarts].filter((id) => !this.entries.has(id) && !this.bare.has(id) && this.board.listing.stat(paths.runDir(id)));
  }

  /** Re-read one run's summary if its RUN.md changed; forget it if RUN.md is gone. Whether the run has an entry now. */
  private async refresh(id: string): Promise<boolean> {
    const st = this.board.listing.stamp(paths.runFile(id));
    if (st === '') return this.forget(id);
    if (this.entries.stampOf(id) === st) return true;
    const summary = await this.summaryOf(id);
    if (!summary) return this.forget(id);
    this.set(id, st, summary);
    return true;
  }

  /**
   * A run's summary read with the stamp of the very bytes read: for a run folder
   * the listing showed to be a real folder (RUN.md itself is opened without
   * following a link), so the store's look at each folder on the way is not needed.
   */
  private async refreshRead(id: string): Promise<boolean> {
    const read = this.board.listing.readStamped(paths.runFile(id));
    const summary = read && (await this.summaryOf(id, read.bytes));
    if (!read || !summary) return this.forget(id);
    this.set(id, read.stamp, summary);
    return true;
  }

  private set(id: string, stamp: string, summary: RunSummary): void {
    const wasOpen = this.entries.openSummary(id) !== undefined;
    this.entries.set(id, { stamp, summary });
    this.bare.delete(id);
    this.dirty = true;
    this.sorted = null;
    if (wasOpen || isOpen(summary)) this.openMoved(id);
  }

  /**
   * One run came, went or changed among the open ones: the sorted list is
   * copied with it put in place, not sorted again (a third of a millisecond
   * at a thousand open runs, and get_work asks after every write). A copy,
   * as a caller may still be walking the list it was given.
   */
  private openMoved(id: string): void {
    const list = this.sortedOpen;
    if (list === null) return;
    let at = 0;
    for (let hi = list.length; at < hi;) {
      const mid = (at + hi) >>> 1;
      if ((list[mid]?.id ?? id) < id) at = mid + 1;
      else hi = mid;
    }
    const next = list.slice();
    const summary = this.entries.openSummary(id);
    const here = next[at]?.id === id;
    if (summary) next.splice(at, here ? 1 : 0, summary);
    else if (here) next.splice(at, 1);
    this.sortedOpen = next;
  }

  /** The lines of RUN.md when they are as the board writes them, else the whole file read and checked; null when it cannot be read. */
  private async summaryOf(id: string, read?: Buffer): Promise<RunSummary | null> {
    const rel = paths.runFile(id);
    const bytes = read ?? (await this.board.store.readBytes(rel).catch(() => null));
    const scanned = bytes === null ? null : scanRunSummary(bytes.toString('utf8'));
    // Its strings are slices of RUN.md's text: the index copies what it keeps (IndexEntries.set).
    if (scanned && scanned.id === id) return scanned;
    const doc = await this.board.store.read(rel).catch(() => null);
    if (!doc) return null;
    const r = runFromDoc(doc);
    return { id: r.id, process: r.process, version: r.version, state: r.state, outcome: r.outcome, mode: r.mode, startedAt: r.startedAt, updatedAt: r.updatedAt, inputs: r.inputs };
  }

  /** Drop a run's entry; false (it has none now), for the callers that say whether a run has one. */
  private forget(id: string): false {
    const wasOpen = this.entries.openSummary(id) !== undefined;
    if (this.entries.delete(id)) {
      this.dirty = true;
      this.sorted = null;
      if (wasOpen) this.openMoved(id);
    }
    return false;
  }

  /** One save at a time, each of what changed when its turn comes: appended, never flushed (run-index-file.ts). */
  private saveCache(): Promise<void> {
    this.dirty = false;
    this.savedAt = this.clock();
    this.saving = this.saving.then(() => this.entries.save(this.cursor));
    return this.saving;
  }
}

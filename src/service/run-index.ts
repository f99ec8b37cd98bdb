/**
 * Each coordinator's index of the board's runs, rebuilt from the files and
 * never a source of truth (AIP-20 §4.2). A run's summary (RUN.md) is reused
 * while RUN.md's inode, size and mtime are unchanged: every commit renames a
 * new RUN.md into place, so any write to a run invalidates it. The summaries
 * are also cached in `.work/index.json`, with how far the change log
 * (`.work/changes`) was read, so a fresh CLI process starts warm and looks
 * again only at runs that changed since.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { bigStatIfExists, fileStamp, isCode, readIfExists, statIfExists, writeFileAtomic } from '../board/fsutil.js';
import { CHANGES_FILE, isRunId, paths, STATE_DIR } from '../board/layout.js';
import type { BoardStore } from '../board/store.js';
import { runFromDoc } from './runfiles.js';
import { scanRunSummary, type RunSummary } from './run-summary-scan.js';

const CACHE = `${STATE_DIR}/index.json`;
const CACHE_VERSION = 2;

// Synchronous stats and reads throughout: microseconds each on files in the page cache,
// where an asynchronous call costs a thread-pool round trip.

/**
 * A stamp of what a run's state is read from: its folder and its leases
 * folder. Every commit renames files into them, and git replaces files in
 * them, either of which moves a folder's mtime. A file edited in place is
 * seen once the run next changes, or at once by `workboard serve`, whose
 * watcher adopts the edit with a commit. Taken with synchronous stats:
 * microseconds each, and `get_work` takes one stamp per open run.
 */
export function runStamp(store: BoardStore, runId: string): string {
  const stampOf = (rel: string) => {
    const s = statIfExists(store.abs(rel));
    return s ? `${s.ino}:${s.mtimeMs}:${s.ctimeMs}` : '-';
  };
  return `${stampOf(paths.runDir(runId))}|${stampOf(paths.leaseDir(runId))}`;
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

/** How often a long-lived coordinator writes its index back to `.work/index.json` (after a full scan: at once). */
const SAVE_EVERY_MS = 5_000;

interface Cursor {
  /** Where the change log was read up to, and which file it was (a rotated log starts over). */
  logIno: string;
  logOffset: number;
  /** The runs/ folder as last listed: a run added or removed by hand or by git changes it. */
  runsDir: string;
  /** When every RUN.md was last checked (ms since the epoch). */
  fullAt: number;
}

const isOpen = (r: RunSummary) => r.state !== 'ended' && r.state !== 'cancelled';
const byId = (rs: RunSummary[]) => rs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

export class RunIndex {
  private entries = new Map<string, { stamp: string; summary: RunSummary }>();
  private cursor: Cursor | null = null;
  private loaded = false;
  private dirty = false;
  private savedAt = 0;
  /** The summaries in id order, kept until an entry changes. */
  private sorted: RunSummary[] | null = null;
  /** The open runs' summaries in id order, kept until an open run comes, goes or changes: what get_work walks. */
  private sortedOpen: RunSummary[] | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: BoardStore,
    private readonly onProgress?: (done: number, total: number) => void,
    private readonly clock: () => number = Date.now,
  ) {}

  private async loadCache(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    const raw = await readIfExists(this.store.abs(CACHE));
    if (!raw) return;
    try {
      const v = JSON.parse(raw.toString('utf8')) as { version: number; cursor?: Cursor; entries: [string, { stamp: string; summary: RunSummary }][] };
      if (v.version !== CACHE_VERSION) return;
      this.entries = new Map(v.entries);
      this.sorted = null;
      this.sortedOpen = null;
      this.cursor = v.cursor ?? null;
    } catch {
      // a damaged cache is simply rebuilt
    }
  }

  /**
   * Every run's summary, oldest id first. Between full checks of every RUN.md
   * (at most RESCAN_MS apart), only runs named in the change log since last
   * time, and runs added to or removed from runs/, are looked at again.
   */
  async summaries(): Promise<readonly RunSummary[]> {
    await this.sync();
    this.sorted ??= byId([...this.entries.values()].map((e) => e.summary));
    return this.sorted;
  }

  /** The summaries of the runs still open (neither ended nor cancelled), oldest id first: the cost of what is open, not of the board. */
  async openSummaries(): Promise<readonly RunSummary[]> {
    await this.sync();
    this.sortedOpen ??= byId([...this.entries.values()].map((e) => e.summary).filter(isOpen));
    return this.sortedOpen;
  }

  private async sync(): Promise<void> {
    await this.loadCache();
    const log = bigStatIfExists(this.store.abs(CHANGES_FILE));
    const runs = bigStatIfExists(this.store.abs('runs'));
    const logIno = log ? String(log.ino) : '';
    const logSize = log ? Number(log.size) : 0;
    const runsDir = runs ? `${runs.ino}:${runs.mtimeNs}` : '';
    // No log yet (nothing committed since the board was made or copied) reads as an empty one,
    // and a log that has appeared since holds every commit made after it: read from its start.
    const c = this.cursor && this.cursor.logIno === '' && logIno !== '' ? { ...this.cursor, logIno, logOffset: 0 } : this.cursor;
    const incremental = c !== null && c.logIno === logIno && c.logOffset <= logSize && this.clock() - c.fullAt < RESCAN_MS;
    if (incremental) {
      await this.catchUp(c, runsDir, runs ? Number(runs.nlink) : 0);
      // Written in the background and at most every few seconds: a 10k-run index is megabytes.
      if (this.dirty && this.clock() - this.savedAt >= SAVE_EVERY_MS) void this.saveCache();
    } else {
      // The log's size was taken before the scan: whatever is appended meanwhile is read next time.
      await this.fullScan({ logIno, logOffset: logSize, runsDir, fullAt: this.clock() });
      await this.saveCache();
    }
  }

  private listRunIds(): string[] {
    try {
      return readdirSync(this.store.abs('runs')).filter(isRunId).sort();
    } catch (e) {
      if (!isCode(e, 'ENOENT')) throw e;
      return [];
    }
  }

  private async fullScan(cursor: Cursor): Promise<void> {
    const ids = this.listRunIds();
    const seen = new Set(ids);
    // In batches, so reading one file overlaps parsing another.
    for (let i = 0; i < ids.length; i += SCAN_BATCH) {
      if (i % 256 === 0) this.onProgress?.(i, ids.length);
      await Promise.all(ids.slice(i, i + SCAN_BATCH).map((id) => this.refresh(id)));
    }
    for (const id of [...this.entries.keys()]) if (!seen.has(id)) this.forget(id);
    this.cursor = cursor;
    this.dirty = true;
  }

  private async catchUp(c: Cursor, runsDir: string, runsLinks: number): Promise<void> {
    const changed = new Set<string>();
    const { lines, offset } = this.readLog(c.logOffset);
    for (const line of lines) if (line.startsWith('run ')) changed.add(line.slice(4));
    for (const id of changed) if (isRunId(id)) await this.refresh(id);
    // runs/ changed: usually only the runs the log just named were added. A folder's link
    // count is 2 + its subfolders (where the file system counts them so), so when it matches
    // the index nothing else came or went, and the listing of every run is skipped.
    if (runsDir !== c.runsDir && runsLinks - 2 !== this.entries.size) {
      const ids = new Set(this.listRunIds());
      for (const id of ids) if (!this.entries.has(id)) await this.refresh(id);
      for (const id of [...this.entries.keys()]) if (!ids.has(id)) this.forget(id);
    }
    if (offset !== c.logOffset || runsDir !== c.runsDir || c !== this.cursor) {
      this.cursor = { ...c, logOffset: offset, runsDir };
      this.dirty = true;
    }
  }

  /** Re-read one run's summary if its RUN.md changed; forget it if RUN.md is gone. */
  private async refresh(id: string): Promise<void> {
    const st = fileStamp(this.store.abs(paths.runFile(id)));
    if (st === '') {
      this.forget(id);
      return;
    }
    if (this.entries.get(id)?.stamp === st) return;
    const summary = await this.summaryOf(id);
    if (!summary) {
      this.forget(id);
      return;
    }
    const before = this.entries.get(id)?.summary;
    this.entries.set(id, { stamp: st, summary });
    this.dirty = true;
    this.sorted = null;
    if ((before && isOpen(before)) || isOpen(summary)) this.sortedOpen = null;
  }

  /** The lines of RUN.md when they are as the board writes them, else the whole file read and checked; null when it cannot be read. */
  private async summaryOf(id: string): Promise<RunSummary | null> {
    const rel = paths.runFile(id);
    const bytes = await this.store.readBytes(rel).catch(() => null);
    const scanned = bytes === null ? null : scanRunSummary(bytes.toString('utf8'));
    // A copy: the scanned strings are slices of RUN.md's text, which each of them would keep
    // in memory (about 0.5 KB a run, for every run of the board; an index read from disk has none).
    if (scanned && scanned.id === id) return structuredClone(scanned);
    const doc = await this.store.read(rel).catch(() => null);
    if (!doc) return null;
    const r = runFromDoc(doc);
    return { id: r.id, process: r.process, version: r.version, state: r.state, outcome: r.outcome, mode: r.mode, startedAt: r.startedAt, updatedAt: r.updatedAt, inputs: r.inputs };
  }

  private forget(id: string): void {
    const before = this.entries.get(id)?.summary;
    if (this.entries.delete(id)) {
      this.dirty = true;
      this.sorted = null;
      if (before && isOpen(before)) this.sortedOpen = null;
    }
  }

  /** Whole lines of the change log from `from`; a line still being appended waits for next time. */
  private readLog(from: number): { lines: string[]; offset: number } {
    let fd: number;
    try {
      fd = openSync(this.store.abs(CHANGES_FILE), 'r');
    } catch (e) {
      if (isCode(e, 'ENOENT')) return { lines: [], offset: from };
      throw e;
    }
    try {
      const { size } = fstatSync(fd);
      if (size <= from) return { lines: [], offset: from };
      const buf = Buffer.alloc(size - from);
      readSync(fd, buf, 0, buf.length, from);
      const text = buf.toString('utf8');
      const end = text.lastIndexOf('\n') + 1;
      return { lines: text.slice(0, end).split('\n').filter(Boolean), offset: from + Buffer.byteLength(text.slice(0, end)) };
    } finally {
      closeSync(fd);
    }
  }

  /** One save at a time, each of the index as it is when its turn comes. */
  private saveCache(): Promise<void> {
    this.dirty = false;
    this.savedAt = this.clock();
    this.saving = this.saving.then(async () => {
      try {
        await writeFileAtomic(this.store.abs(CACHE), JSON.stringify({ version: CACHE_VERSION, cursor: this.cursor, entries: [...this.entries] }));
      } catch {
        // the cache is an optimisation; failing to write it changes nothing
      }
    });
    return this.saving;
  }
}

/**
 * The run index's entries, and their copy under `.work/index/` that lets a
 * fresh process start warm (docs/architecture.md "The run index on disk").
 * A cache, never a source of truth: whatever is missing, torn or does not
 * match is rebuilt from the board's files.
 *
 * Two append-only files, each line `<crc32> <json>`:
 * - `open`: the open runs' entries, set (`s`) or dropped (`d`), each save's
 *   lines closed by a cursor line (`c`) that vouches for them, says how far
 *   the change log was read and how much of `ended` is whole. Read by every
 *   process; small, as it follows what is open, not the board's size.
 * - `ended`: the ended and cancelled runs' entries (or `[id]`: no longer
 *   there), read only when every run is listed or looked at again; a run
 *   that could be among them is looked for by the ids alone
 *   (run-index-ended.ts, core/packed-set.ts). A long-lived process keeps the
 *   entries of runs that end only until a save has appended them.
 * A save appends what changed; a file is rewritten whole only when most of
 * its lines are out of date. Saves are serialised by a lock and skipped when
 * it is busy or another process wrote since this one read: that one's copy
 * is then read again before the next use.
 */
import type { ChangeCursor } from '../board/changes.js';
import { INDEX_DIR, LEGACY_INDEX_FILE } from '../board/layout.js';
import type { WorkState } from '../board/state.js';
import { idLength } from '../core/ids.js';
import { PackedSet } from '../core/packed-set.js';
import { ENDED_FILE, isEntry, readEndedEntries, readEndedIds, type IndexEntry } from './run-index-ended.js';
import { line, linesOf, records } from './run-index-lines.js';
import { EndedSpill } from './run-index-spill.js';
import { idSum, inodeOf, isMark, NO_ENDED, TWO_32, type EndedMark } from './run-index-mark.js';
import type { RunSummary } from './run-summary-scan.js';

/** How far the index has looked: the change log, the runs/ folder, the last check of every RUN.md. */
export interface IndexCursor {
  /** Where the change log was read up to, and which file it was (a rotated log starts over). */
  log: ChangeCursor;
  /** The runs/ folder as last listed: a run added or removed by hand or by git changes it. */
  runsDir: string;
  /** When every RUN.md was last checked (ms since the epoch). */
  fullAt: number;
}

const OPEN_FILE = `${INDEX_DIR}/open`;
/** The width the ended runs' ids are packed at. */
const RUN_ID_LENGTH = idLength('r');
const VERSION = 5;
const LOCK = 'run-index';

export const isOpenSummary = (r: RunSummary): boolean => r.state !== 'ended' && r.state !== 'cancelled';

export class IndexEntries {
  private state: WorkState | null = null;
  private open = new Map<string, IndexEntry>();
  /** Ended runs' entries once read (null: not read yet; `tail` holds those added meanwhile). */
  private ended: Map<string, IndexEntry> | null = new Map();
  /** Ended entries set while `ended` was not read, held until a save has appended them to the file. */
  private tail = new Map<string, IndexEntry>();
  /** While `ended` is not read: which runs are among the ended ones, by id alone. */
  private endedIds = new PackedSet(RUN_ID_LENGTH);
  /** Ended entries in all, and the greatest id among them. */
  private endedCount = 0;
  private endedSum = 0;
  private endedMax = '';
  /** What the file's last cursor line says of `ended`. */
  private disk: EndedMark = NO_ENDED;
  /** Open runs set or dropped, and ended entries to append (null: the id left), since the last save. */
  private openChanged = new Set<string>();
  private endedChanged = new Map<string, IndexEntry | null>();
  /** `open` as last read or written here: its stamp, its whole bytes, its lines. */
  private headStamp = '';
  private headLen = 0;
  private headLines = 0;
  /** Write both files whole at the next save (none yet, or what they hold cannot be trusted). */
  private rewrite = true;
  /** A cold build's ended entries, written to a new file as they are read (run-index-spill.ts). */
  private spill: EndedSpill | null = null;
  /** `ended` did not hold what `open` vouched for: every run is to be looked at again (a full scan). */
  broken = false;
  /** Another process saved since this one read: read its copy again before the next use. */
  stale = false;

  /** Read the copy on disk; the cursor it was saved with, or null when there is none to trust (then all is empty). */
  load(state: WorkState): IndexCursor | null {
    this.state = state;
    this.spill?.abort();
    this.spill = null;
    this.open = new Map();
    this.ended = new Map();
    this.tail = new Map();
    this.endedIds = new PackedSet(RUN_ID_LENGTH);
    this.endedCount = 0;
    this.endedSum = 0;
    this.endedMax = '';
    this.disk = NO_ENDED;
    this.openChanged.clear();
    this.endedChanged.clear();
    this.broken = false;
    this.stale = false;
    this.rewrite = true;
    this.headStamp = state.stamp(OPEN_FILE);
    this.headLen = 0;
    this.headLines = 0;
    const text = state.readTextNow(OPEN_FILE);
    if (text === null) return null;
    const open = new Map<string, IndexEntry>();
    let batch: unknown[][] = [];
    let cursor: IndexCursor | null = null;
    for (const { value, end } of records(text)) {
      if (!Array.isArray(value)) break;
      if (value[0] === 'c') {
        if (value[1] !== VERSION || !isMark(value[3]) || typeof value[2] !== 'object' || value[2] === null) break;
        for (const r of batch) {
          if (r[0] === 's' && typeof r[1] === 'string' && isEntry(r[2])) open.set(r[1], r[2]);
          else if (r[0] === 'd' && typeof r[1] === 'string') open.delete(r[1]);
        }
        batch = [];
        cursor = value[2] as IndexCursor;
        this.disk = value[3];
        this.headLen = end;
        this.headLines++;
      } else {
        batch.push(value);
        this.headLines++;
      }
    }
    if (cursor === null) return null;
    this.headLines -= batch.length;
    this.open = open;
    this.ended = this.disk.n === 0 && this.disk.lines === 0 ? new Map() : null;
    this.endedCount = this.disk.n;
    this.endedSum = this.disk.sum;
    this.endedMax = this.disk.max;
    this.rewrite = false;
    return cursor;
  }

  /** The ended entries, read from disk the first time they are needed; `broken` then says whether they can be trusted. */
  loadEnded(): Map<string, IndexEntry> {
    this.unspill();
    if (this.ended) return this.ended;
    let ended = readEndedEntries(this.state, this.disk, this.open);
    if (ended === null) {
      // Not what `open` vouched for: nothing of it is trusted, and a full scan looks at every run.
      this.broken = true;
      this.rewrite = true;
      ended = new Map();
    }
    for (const [id, e] of this.tail) ended.set(id, e);
    this.tail.clear();
    this.endedIds = new PackedSet(RUN_ID_LENGTH);
    this.ended = ended;
    this.endedCount = ended.size;
    this.endedSum = idSum(ended.keys());
    return ended;
  }

  /** Is `id` among the ended runs? Answered by ids alone; the file's ids are read the first time an id could be among them. */
  private endedHas(id: string): boolean {
    if (this.spill?.ids.has(id)) return true;
    if (this.ended) return this.ended.has(id);
    if (this.tail.has(id)) return true;
    const known = this.endedIds.has(id);
    if (known !== undefined) return known;
    if (id > this.disk.max) return false;
    // Read now: the answer is known either way after that.
    this.fillIds();
    return this.endedHas(id);
  }

  /** The file's ended ids read into `endedIds`, without their entries; when they are not what was vouched for, the entries are read (and found broken). */
  private fillIds(): void {
    const ids = readEndedIds(this.state, this.disk, this.open);
    if (ids) this.endedIds.fill(ids);
    else this.loadEnded();
  }

  has(id: string): boolean {
    return this.open.has(id) || this.endedHas(id);
  }

  /** An open run's summary as held (the same object `openValues` gives); undefined for a run not open. */
  openSummary(id: string): RunSummary | undefined {
    return this.open.get(id)?.summary;
  }

  /** The stamp of the RUN.md a run's entry was read from; undefined when it has none, or it was let go after a save (then RUN.md is read again, not every ended entry). */
  stampOf(id: string): string | undefined {
    return (this.open.get(id) ?? (this.ended ? this.ended.get(id) : this.tail.get(id)))?.stamp;
  }

  get size(): number {
    return this.open.size + this.endedCount;
  }

  /** `idSum` of every id, without reading the ended entries. */
  get sum(): number {
    return idSum(this.open.keys(), this.endedSum);
  }

  /** Set a run's entry: kept as a copy (a scanned summary's strings are slices of RUN.md, about 0.5 KB a run kept alive), unless a cold build only writes it. */
  set(id: string, scanned: IndexEntry): void {
    if (this.spill?.ids.has(id)) this.unspill();
    if (this.spill && !isOpenSummary(scanned.summary)) {
      if (this.open.delete(id)) this.openChanged.add(id);
      this.spill.write(id, scanned);
      this.counted(id, false);
      return;
    }
    const e = { stamp: scanned.stamp, summary: structuredClone(scanned.summary) };
    if (isOpenSummary(e.summary)) {
      this.dropEnded(id);
      this.open.set(id, e);
      this.openChanged.add(id);
      return;
    }
    // An id is open or ended, never both: a run open until now is not looked for among the ended (at 100k runs that read them all back).
    const wasOpen = this.open.delete(id);
    if (wasOpen) this.openChanged.add(id);
    const had = !wasOpen && this.endedHas(id);
    if (this.ended) this.ended.set(id, e);
    else this.tail.set(id, e);
    this.counted(id, had);
    this.endedChanged.set(id, e);
  }

  /** An ended entry counted in the totals (`had`: it was one already). */
  private counted(id: string, had: boolean): void {
    if (!had) {
      this.endedCount++;
      this.endedSum = idSum([id], this.endedSum);
    }
    if (id > this.endedMax) this.endedMax = id;
  }

  delete(id: string): boolean {
    if (!this.open.delete(id)) return this.dropEnded(id);
    this.openChanged.add(id);
    return true;
  }

  private dropEnded(id: string): boolean {
    if (this.spill?.ids.has(id)) this.unspill();
    if (!this.endedHas(id)) return false;
    if (this.ended) this.ended.delete(id);
    else {
      this.tail.delete(id);
      this.endedIds.delete(id);
    }
    this.endedCount--;
    this.endedSum = (this.endedSum - idSum([id]) + TWO_32) % TWO_32;
    this.endedChanged.set(id, null);
    return true;
  }

  /** Write the ended entries set from now on straight to a new file, when nothing is held yet (a cold build); true when it does. */
  startSpill(): boolean {
    if (!this.state || this.spill || !this.rewrite || this.open.size > 0 || this.ended?.size !== 0 || this.tail.size > 0) return false;
    this.spill = new EndedSpill(this.state);
    return true;
  }

  /** The spill read back into memory and its file dropped, as if its entries had been held all along (written whole at the next save). */
  private unspill(): void {
    const spill = this.spill;
    this.spill = null;
    // Not what was counted (the temp file could not be read whole): the next save writes what is here, and a full scan looks again.
    if (spill && !spill.readBack((this.ended ??= new Map<string, IndexEntry>()))) this.broken = true;
  }

  /**
   * Let the ended entries go from memory once the file holds every one of
   * them, as after a cold start's scan and save: a process that wants only
   * the open runs then holds what a warm start would (at 100k runs, most of
   * the scan's heap). They are read again when something needs them.
   */
  releaseEnded(): void {
    if (!this.ended || !this.state || this.endedChanged.size > 0 || this.rewrite || this.broken || this.disk.n !== this.ended.size) return;
    this.endedIds = PackedSet.of(RUN_ID_LENGTH, this.ended.keys());
    this.ended = null;
  }

  /** Every run was looked at again (a full scan): what was broken is whole in memory, and written whole at the next save. */
  rebuilt(): void {
    if (this.broken) this.rewrite = true;
    this.broken = false;
  }

  /** Every id; reads the ended entries. */
  keys(): string[] {
    return [...this.open.keys(), ...this.loadEnded().keys()];
  }

  /** Every entry; reads the ended entries. */
  values(): IndexEntry[] {
    return [...this.open.values(), ...this.loadEnded().values()];
  }

  /** The open runs' entries alone: what get_work walks, without reading the ended ones. */
  openValues(): IterableIterator<IndexEntry> {
    return this.open.values();
  }

  /**
   * Write what changed since the last save, with the cursor. Never flushed: a
   * power loss leaves the copy older or torn, which is caught up or rebuilt.
   * Skipped (the index stays as it is in memory) when another process holds
   * the lock or wrote since this one read.
   */
  async save(cursor: IndexCursor | null): Promise<void> {
    const state = this.state;
    if (!state || cursor === null) return;
    try {
      await state.locked(LOCK, () => this.saveLocked(state, cursor), { waitMs: 0 });
    } catch {
      // busy, or the disk refused: a cache, written again by the next save
    }
    // The save did not put a cold build's file in place: its entries are held in memory until one does.
    this.unspill();
  }

  private async saveLocked(state: WorkState, cursor: IndexCursor): Promise<void> {
    if (state.stamp(OPEN_FILE) !== this.headStamp) {
      this.stale = true;
      return;
    }
    // Out-of-date lines: more than twice the live entries (and a floor, so small boards never compact).
    const endedDead = this.disk.lines + this.endedChanged.size - this.endedCount;
    if (this.spill && this.endedChanged.size === 0 && !this.broken) this.finishSpill(state, this.spill);
    else if (this.rewrite || this.broken || (this.ended !== null && endedDead > this.endedCount + 4096)) await this.writeEnded(state);
    else if (this.endedChanged.size > 0) {
      const text = [...this.endedChanged].map(([id, e]) => line(e ? [id, e.stamp, e.summary] : [id])).join('');
      if (this.disk.len > 0 || this.disk.ino !== '') state.truncateNow(ENDED_FILE, this.disk.len);
      state.append(ENDED_FILE, text);
      this.disk = {
        ino: inodeOf(state.stamp(ENDED_FILE)),
        len: this.disk.len + Buffer.byteLength(text),
        lines: this.disk.lines + this.endedChanged.size,
        n: this.endedCount,
        max: this.endedMax,
        sum: this.endedSum,
      };
      this.releaseTail();
    }
    this.endedChanged.clear();
    const mark = line(['c', VERSION, cursor, this.disk]);
    if (this.rewrite || this.headLines + this.openChanged.size + 1 > 2 * this.open.size + 256) {
      const text = [...this.open].map(([id, e]) => line(['s', id, e])).join('') + mark;
      await state.replace(OPEN_FILE, text, { durable: false });
      this.headLen = Buffer.byteLength(text);
      this.headLines = this.open.size + 1;
    } else {
      const text = [...this.openChanged].map((id) => line(this.open.has(id) ? ['s', id, this.open.get(id)] : ['d', id])).join('') + mark;
      state.truncateNow(OPEN_FILE, this.headLen);
      state.append(OPEN_FILE, text);
      this.headLen += Buffer.byteLength(text);
      this.headLines += this.openChanged.size + 1;
    }
    this.openChanged.clear();
    this.headStamp = state.stamp(OPEN_FILE);
    if (this.rewrite && state.stamp(LEGACY_INDEX_FILE) !== '') await state.remove(LEGACY_INDEX_FILE);
    this.rewrite = false;
    this.broken = false;
  }

  /** The tail's entries are in the file now: only their ids stay in memory (a long-lived server ends runs all day). */
  private releaseTail(): void {
    for (const id of this.tail.keys()) this.endedIds.add(id);
    this.tail.clear();
    if (this.endedIds.wantsFile) this.fillIds();
  }

  /** A cold build's `ended` put in place (a new inode, which the next cursor line names); its entries are read from it when wanted. */
  private finishSpill(state: WorkState, spill: NonNullable<typeof this.spill>): void {
    // Pending until the rename is done: if it fails, the save's caller reads the file back instead.
    const len = spill.finish();
    this.spill = null;
    this.disk = { ino: inodeOf(state.stamp(ENDED_FILE)), len, lines: spill.ids.size, n: this.endedCount, max: this.endedMax, sum: this.endedSum };
    this.endedIds = PackedSet.of(RUN_ID_LENGTH, spill.ids);
    this.ended = null;
  }

  /** `ended` written whole, by rename: a new inode, which the next cursor line names. */
  private async writeEnded(state: WorkState): Promise<void> {
    const ended = this.loadEnded();
    let len = 0;
    if (ended.size === 0) await state.remove(ENDED_FILE);
    else len = state.replaceInPieces(ENDED_FILE, linesOf(ended));
    let max = '';
    for (const id of ended.keys()) if (id > max) max = id;
    this.disk = { ino: ended.size === 0 ? '' : inodeOf(state.stamp(ENDED_FILE)), len, lines: ended.size, n: ended.size, max, sum: idSum(ended.keys()) };
    this.endedMax = max;
    this.endedSum = this.disk.sum;
  }

  /** Anything to write: entries changed since the last save, or nothing written yet. */
  get changed(): boolean {
    return this.rewrite || this.openChanged.size > 0 || this.endedChanged.size > 0;
  }
}

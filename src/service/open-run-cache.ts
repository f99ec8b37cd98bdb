/**
 * Open runs' states as a CLI process last read them, kept in
 * `.work/open-runs.json` so the next CLI process need not parse their files
 * again (a short-lived process has no warm caches, and parsing the open runs'
 * YAML was most of `inbox` and `runs`). An entry is used only while every
 * file of its run and of its leases has the inode, size and mtime it had
 * when the state was read; a run with a file changed too recently is not
 * kept, as a same-size edit within the file system's clock tick could go
 * unseen (git's "racily clean" rule): 100 ms, ten times the coarsest tick
 * Linux file systems use, or two seconds where times come in whole seconds
 * (FAT, HFS+, some network file systems). A cache, never a source of truth:
 * damaged or missing, it is simply rebuilt.
 */
import type { Board } from '../board/board.js';
import { OPEN_RUNS_FILE, paths, scopeFiles } from '../board/layout.js';
import type { RunState } from '../engine/types.js';

const FILE = OPEN_RUNS_FILE;
const VERSION = 2;
/** A file younger than this is not trusted to show a later edit through its mtime; the second where mtimes are whole seconds. */
const RACY_MS = 100;
const RACY_COARSE_MS = 2000;

/** Whether a file changed at `mtimeMs` is too young for its stamp to show a later edit of the same size (git's "racily clean" rule). */
export function tooYoungToTrust(mtimeMs: number, wholeSeconds: boolean, nowMs: number): boolean {
  return nowMs - mtimeMs < (wholeSeconds ? RACY_COARSE_MS : RACY_MS);
}

/** A folder's own stamp (inode, mtime, ctime) and its names: a folder whose stamp is the same holds the same names. */
type Folder = [stamp: string, names: string[]];

interface Entry {
  stamp: string;
  state: RunState;
  /** The run's folder and its leases folder when the state was kept, if both were old enough to vouch for their names. */
  folders?: Folder[];
}

/** A folder as the cache file holds it, checked: the file is a cache anyone can edit, and a name is stat'ed inside the board. */
function isFolder(v: unknown): v is Folder {
  return Array.isArray(v) && typeof v[0] === 'string' && Array.isArray(v[1]) && v[1].every((n) => typeof n === 'string' && /^[^/\\\0]+$/.test(n) && n !== '.' && n !== '..');
}

interface FilesStamp {
  stamp: string;
  newestMs: number;
  wholeSeconds: boolean;
  folders: Folder[];
  /** The folders' own newest mtime, and whether theirs are whole seconds: whether their stamps can vouch for their names. */
  foldersNewestMs: number;
  foldersWhole: boolean;
}

/**
 * Every file of a run's folder and of its leases, with inode, size and mtime; the newest mtime,
 * and whether every mtime is a whole second. Null when the run folder is missing. A folder whose
 * own stamp is that of `known` is not listed (a name added, removed or renamed moves its mtime):
 * its names are `known`'s.
 */
function filesStamp(board: Board, runId: string, known?: readonly Folder[]): FilesStamp | null {
  const parts: string[] = [];
  const folders: Folder[] = [];
  let newestMs = 0;
  let wholeSeconds = true;
  let foldersNewestMs = 0;
  let foldersWhole = true;
  for (const [i, dir] of [paths.runDir(runId), paths.leaseDir(runId)].entries()) {
    const st = board.listing.stat(dir);
    const own = st ? `${st.ino}:${st.mtimeNs}:${st.ctimeNs}` : '-';
    const k: unknown = known?.[i];
    const names = st && isFolder(k) && k[0] === own ? k[1] : board.listing.names(dir);
    if (names === null && dir === paths.runDir(runId)) return null;
    folders.push([own, names ?? []]);
    if (st) {
      foldersNewestMs = Math.max(foldersNewestMs, Number(st.mtimeNs / 1_000_000n));
      if (st.mtimeNs % 1_000_000_000n !== 0n) foldersWhole = false;
    }
    parts.push(dir);
    for (const name of names ?? []) {
      const st = board.listing.stat(`${dir}/${name}`);
      if (!st) return null; // removed while listed: a commit is under way
      parts.push(`${name}:${st.ino}:${st.size}:${st.mtimeNs}`);
      newestMs = Math.max(newestMs, Number(st.mtimeNs / 1_000_000n));
      if (st.mtimeNs % 1_000_000_000n !== 0n) wholeSeconds = false;
    }
  }
  return { stamp: parts.join('\n'), newestMs, wholeSeconds, folders, foldersNewestMs, foldersWhole };
}

export class OpenRunCache {
  private entries: Map<string, Entry> | null = null;
  private dirty = false;

  constructor(
    private readonly board: Board,
    private readonly clock: () => number = Date.now,
  ) {}

  private load(): Map<string, Entry> {
    if (this.entries) return this.entries;
    this.entries = new Map();
    try {
      const text = this.board.state.readTextNow(FILE);
      const v = (text === null ? {} : JSON.parse(text)) as { version?: number; entries?: [string, Entry][] };
      if (v.version === VERSION && Array.isArray(v.entries)) this.entries = new Map(v.entries);
    } catch {
      // missing or damaged: start empty
    }
    return this.entries;
  }

  /**
   * The run's files as they are now (`files`: what `get` compares and `put`
   * records), with the stamps of the run's folder and of its leases folder
   * taken on the way (run-index.ts `runStamp`'s form), which the reader would
   * otherwise stat again; null when the run folder is missing.
   */
  stamps(runId: string): { files: string; folder: string; leases: string } | null {
    const s = filesStamp(this.board, runId, this.load().get(runId)?.folders);
    return s && { files: s.stamp, folder: s.folders[0]?.[0] ?? '-', leases: s.folders[1]?.[0] ?? '-' };
  }

  /** The state kept for this run, if its files are exactly as they were when it was read. */
  get(runId: string, stamp: string | null): RunState | null {
    if (stamp === null) return null;
    const e = this.load().get(runId);
    return e && e.stamp === stamp ? e.state : null;
  }

  /**
   * Keep a state read from files whose stamp (taken before the read) is `stamp`. Not kept when
   * a file is too young to trust, or a commit of the run is pending (its journal exists).
   */
  put(runId: string, stamp: string | null, state: RunState): void {
    const now = filesStamp(this.board, runId);
    if (stamp === null || now === null || now.stamp !== stamp) return;
    if (tooYoungToTrust(now.newestMs, now.wholeSeconds, this.clock())) return;
    if (this.board.state.stamp(scopeFiles({ kind: 'run', id: runId }).journal) !== '') return;
    // The folders' names are kept only when their stamps are old enough to show a later change (the same racy rule).
    const folders = tooYoungToTrust(now.foldersNewestMs, now.foldersWhole, this.clock()) ? {} : { folders: now.folders };
    this.load().set(runId, { stamp, state, ...folders });
    this.dirty = true;
  }

  /** Write the cache back, keeping only runs still open. Synchronous: a CLI calls it on its way out. Failing to write changes nothing. */
  save(open: ReadonlySet<string>): void {
    if (!this.entries) return;
    for (const id of [...this.entries.keys()]) {
      if (!open.has(id)) {
        this.entries.delete(id);
        this.dirty = true;
      }
    }
    if (!this.dirty) return;
    try {
      // No fsync: a cache torn by a crash fails to parse and is rebuilt.
      this.board.state.replaceNow(FILE, JSON.stringify({ version: VERSION, entries: [...this.entries] }));
      this.dirty = false;
    } catch {
      // an optimisation only (replaceNow leaves no temp file behind)
    }
  }
}

/**
 * Reading runs without locking: a run's files assembled into its state (the
 * same assembly a write does under its lock), pinned process versions, and
 * the caches that make reads cheap: open runs as last read (while their
 * folders are unchanged) and each read state as of a moment (until its next
 * deadline). A run whose file was refused keeps being served from its last
 * valid state. The caches follow the store's commits (`committed`, told by
 * the store itself): no writer tells them anything by hand
 * (docs/architecture.md "How caches follow commits").
 */
import path from 'node:path';
import type { Board } from '../board/board.js';
import type { CommitEvent } from '../board/commit-feed.js';
import type { BoardDoc } from '../board/document.js';
import { BoardError } from '../board/errors.js';
import { isRunId, paths } from '../board/layout.js';
import { loadVersion } from '../board/processes.js';
import { BoundedMap } from '../core/bounded-map.js';
import { leaseStranded } from '../engine/commands.js';
import { asOf, nextDeadlineAt } from '../engine/execute.js';
import { type Lease, type Pinned, type RunState, type StepState } from '../engine/types.js';
import { ToolError } from '../protocol/errors.js';
import { runView, snapshotOf, type FileUrl } from '../engine/view.js';
import { FULL_OFFER } from '../protocol/offer.js';
import { contextFor } from './context.js';
import { OpenRunCache } from './open-run-cache.js';
import { distrust, trustedAt, trustFrom, type CachedRun } from './read-trust.js';
import { RunIndex, runFolderStamp, runStamp } from './run-index.js';
import type { RunSummary } from './run-summary-scan.js';
import { leasePath, parseLease, runFromDoc, stepFromDoc } from './runfiles.js';

export interface Loaded {
  state: RunState;
  pinned: Pinned;
}

/** Open runs whose read state is kept; past this the least recently used are read again when asked for. */
const CACHED_RUNS = 20_000;
/** Open runs whose last valid state is kept for when a file of theirs is refused (mostly the very states `runCache` holds). */
const LAST_GOOD_RUNS = 2000;
/**
 * Ended runs whose last valid state is kept as well. Ended runs are the board's whole
 * history: kept among the open ones, 2000 of them (about 3.4 KB each) sat in memory
 * under a steady load of new runs, none of them read again.
 */
const LAST_GOOD_ENDED_RUNS = 64;
export const isEnded = (l: Loaded): boolean => l.state.run.state === 'ended' || l.state.run.state === 'cancelled';

export class RunReader {
  private readonly pinnedCache = new Map<string, Pinned>();
  private readonly index: RunIndex;
  /** Open runs as last read, reused while nothing in their folder or leases changed (see `read`). */
  private readonly runCache = new BoundedMap<string, CachedRun<Loaded>>(CACHED_RUNS);
  /** Which runs' folders a watch reports every change of (serve's daemon), or null: then every read looks. */
  private watched: ((runId: string) => boolean) | null = null;
  /** Told the open runs before each sweep reads them (see onSweep). */
  private sweepHook: ((open: readonly RunSummary[]) => void) | null = null;
  /** Counts the changes reported: a read that waited while one came in trusts nothing it read. */
  private changes = 0;
  /**
   * The last state each run was seen valid in, by a lock-free read or the
   * daemon's tick in this process (never by a write: see `assemble`): what is
   * served (and kept for others) once a file is refused.
   */
  private readonly lastGood = new BoundedMap<string, Loaded>(LAST_GOOD_RUNS);
  private readonly lastGoodEnded = new BoundedMap<string, Loaded>(LAST_GOOD_ENDED_RUNS);
  /** Each read state as of a moment, valid until its next deadline (see `current`). */
  private readonly currentCache = new WeakMap<Loaded, { run: Loaded; from: number; until: number }>();
  /** The snapshot hash of each state `current` served: such a state is never changed, and get_work needs every open run's. */
  private readonly snapshots = new WeakMap<RunState, string>();

  /** Open runs' states kept between processes (a CLI's), or null. */
  private readonly kept: OpenRunCache | null;

  constructor(
    private readonly board: Board,
    private readonly now: () => Date,
    onIndexProgress?: (done: number, total: number) => void,
    keepOpenRuns = false,
  ) {
    this.index = new RunIndex(board, onIndexProgress, Date.now, (runId) => (runId === null ? this.distrustAll() : this.changed(runId)));
    this.kept = keepOpenRuns ? new OpenRunCache(board) : null;
    board.store.onCommit((c) => this.committed(c));
  }

  /**
   * The store committed (or finished) a change to a run: what this process
   * read of it is out of date, and a run it ended leaves the open runs' last
   * valid states (kept for when a file is refused; under a steady load they
   * were filling with ended runs nobody reads again). The last valid state is
   * otherwise kept: it is what was last read whole, not what was written.
   */
  private committed(c: CommitEvent): void {
    if (c.scope.kind !== 'run') return;
    const runId = c.scope.id;
    this.changes++;
    this.runCache.delete(runId);
    if (c.events.some((e) => e.action === 'run.ended' || e.action === 'run.cancelled')) this.lastGood.delete(runId);
  }

  /** Write back the open runs' states kept for the next process (when this reader keeps them). */
  async saveKept(): Promise<void> {
    if (this.kept) this.kept.save(new Set(await this.openRunIds()));
  }

  /** Where a stored file's bytes are on this machine, for an agent beside the board. */
  readonly fileUrl: FileUrl = (ref) => `file://${path.join(this.board.root, `files/${ref}/content`)}`;

  /** A published version as a run pins it; `hash` (when given) must still be its content hash. */
  async pinned(name: string, version: number, hash?: string): Promise<Pinned> {
    const key = `${name}@${version}`;
    let p = this.pinnedCache.get(key);
    if (!p) {
      // Publication is where the offer is enforced; a published version stays readable whatever WORK.md says later.
      const v = await loadVersion(this.board, name, version, FULL_OFFER);
      p = { process: v.process, version: v.version, hash: v.hash, roles: v.roles };
      this.pinnedCache.set(key, p);
    }
    if (hash !== undefined && p.hash !== hash) {
      throw new ToolError('conflict', `${name} v${version} no longer has the content this run was started with`, ['process_version_changed']);
    }
    return p;
  }

  summaries(): Promise<readonly RunSummary[]> {
    return this.index.summaries();
  }

  /**
   * Serve reads of open runs from what was read before, without looking at
   * their folders, while `watched` says a watch reports every change there
   * (the watcher calls `changed`); null: look at the folders on every read.
   */
  trustWatched(watched: ((runId: string) => boolean) | null): void {
    this.watched = watched;
    if (watched === null) this.distrustAll();
  }

  /** Something changed in a run's folder or leases: its next read looks at its files again. */
  changed(runId: string): void {
    this.changes++;
    const cached = this.runCache.peek(runId);
    if (cached) distrust(cached);
  }

  private distrustAll(): void {
    this.changes++;
    for (const e of this.runCache.values()) distrust(e);
  }

  /** The state a sweep may serve without looking (read-trust.ts), at `t` (performance.now() time). */
  private trusted(runId: string, t: number): Loaded | undefined {
    // Not counted as a use: the entry moves up at its next look, every TRUST_MS or so.
    return trustedAt(this.runCache.peek(runId), t);
  }

  /**
   * A run's state from its files, read without locking as one consistent whole.
   * `sweep`: a read of every open run (get_work, list_runs, deadlines) just
   * after the index read the change log. It may serve a state read while the
   * run's folder was watched (TRUST_MS in read-trust.ts), and for a run the change log has not
   * named since it was read, looks at its folder alone: leases change only in
   * commits, and the log names every commit's run before the commit returns.
   */
  async read(runId: string, sweep = false): Promise<Loaded> {
    if (sweep) {
      const trusted = this.trusted(runId, performance.now());
      if (trusted) return trusted;
    }
    if (!isRunId(runId)) throw new ToolError('not_found', `no run ${runId}`);
    const cached = this.runCache.get(runId);
    // The trust is taken before the stamp: a change after the stamp ends it (`changed`),
    // or, for a read that waits on files, stops it from being trusted at all.
    const changes = this.changes;
    const trustedUntil = trustFrom(this.watched?.(runId) ?? false);
    if (sweep && cached && !cached.named && cached.stamp.folder === runFolderStamp(this.board, runId)) {
      cached.trustedUntil = trustedUntil;
      return cached.loaded;
    }
    // A CLI's reader keeps open runs across processes: its stamp of every file takes the folders' on the way.
    const keptStamps = this.kept?.stamps(runId) ?? null;
    const stamp = keptStamps ? { folder: keptStamps.folder, leases: keptStamps.leases } : runStamp(this.board, runId);
    if (cached && !cached.named && cached.stamp.folder === stamp.folder && cached.stamp.leases === stamp.leases) {
      cached.trustedUntil = trustedUntil;
      return cached.loaded;
    }
    const keep = (loaded: Loaded) => {
      const missed = this.changes !== changes;
      this.runCache.set(runId, { stamp, loaded, named: missed, trustedUntil: missed ? 0 : trustedUntil });
    };
    const keptStamp = keptStamps?.files ?? null;
    const kept = this.kept?.get(runId, keptStamp);
    if (kept) {
      const loaded = { state: kept, pinned: await this.pinned(kept.run.process, kept.run.version, kept.run.hash) };
      keep(loaded);
      return loaded;
    }
    let loaded: Loaded;
    try {
      loaded = await this.board.store.snapshot({ kind: 'run', id: runId }, (read) => this.assembleFrom(runId, read, (rel) => this.board.state.read(rel)));
    } catch (e) {
      // A hand edit made a file invalid: keep serving the last valid state, read-only
      // (every write still goes through the store, which refuses the run until it is fixed).
      const last = e instanceof BoardError && e.code === 'invalid' ? (this.lastGoodOf(runId) ?? cached?.loaded ?? (await this.lastValid(runId))) : null;
      if (last) return last;
      throw e;
    }
    this.seenValid(runId, loaded);
    // Only open runs are kept: they are what get_work reads on every call; an ended run is read when asked for.
    if (!isEnded(loaded)) {
      keep(loaded);
      this.kept?.put(runId, keptStamp, loaded.state);
    } else this.runCache.delete(runId);
    return loaded;
  }

  /** A state of the run that this process read whole and valid. */
  private seenValid(runId: string, loaded: Loaded): void {
    const [keep, drop] = isEnded(loaded) ? [this.lastGoodEnded, this.lastGood] : [this.lastGood, this.lastGoodEnded];
    drop.delete(runId);
    keep.set(runId, loaded);
  }

  private lastGoodOf(runId: string): Loaded | undefined {
    return this.lastGood.get(runId) ?? this.lastGoodEnded.get(runId);
  }

  /**
   * Remember a run's last valid state when one of its files is refused, so
   * every process serves it until the file is fixed; forget it once fixed.
   */
  async keepLastValid(runId: string, refused: boolean): Promise<void> {
    const rel = lastValidPath(runId);
    const last = this.lastGoodOf(runId) ?? this.runCache.get(runId)?.loaded;
    if (refused && last) await this.board.state.replace(rel, JSON.stringify(last.state));
    if (!refused) await this.board.state.remove(rel);
  }

  private async lastValid(runId: string): Promise<Loaded | null> {
    const raw = await this.board.state.read(lastValidPath(runId));
    if (!raw) return null;
    try {
      const state = JSON.parse(raw.toString('utf8')) as RunState;
      return { state, pinned: await this.pinned(state.run.process, state.run.version, state.run.hash) };
    } catch {
      return null;
    }
  }

  /**
   * A run's state read through a transaction, under the run's lock. `as`
   * says whose read it is: the daemon's `tick` reads every run whose files
   * changed, as a lock-free read does, so a state it finds whole and valid (or
   * adopted) is the one to fall back on if a file is refused later. A `write`
   * keeps nothing: a run only ever written has no read state to serve, and
   * one of its files turned invalid is refused, naming the file.
   */
  async assemble(runId: string, read: (rel: string) => Promise<BoardDoc | null>, readState: (rel: string) => Promise<Buffer | string | null>, as: 'write' | 'tick' = 'write'): Promise<Loaded> {
    const loaded = await this.assembleFrom(runId, read, readState);
    if (as === 'tick') this.seenValid(runId, loaded);
    return loaded;
  }

  /** A run's state from reads of its files: lock-free through a snapshot, or through a transaction. */
  private async assembleFrom(runId: string, read: (rel: string) => Promise<BoardDoc | null>, readState: (rel: string) => Promise<Buffer | string | null>): Promise<Loaded> {
    const runDocument = await read(paths.runFile(runId));
    if (!runDocument) throw new ToolError('not_found', `no run ${runId}`);
    const run = runFromDoc(runDocument);
    const pinned = await this.pinned(run.process, run.version, run.hash);
    const steps: Record<string, StepState> = {};
    const leases: Record<string, Lease> = {};
    for (const def of pinned.process.steps) {
      const file = paths.stepFile(runId, def.id);
      const doc = await read(file);
      if (doc) {
        // A step file must still describe this step of the pinned process (a hand edit could break that).
        if (doc.data.id !== def.id || doc.data.kind !== def.kind) {
          throw new BoardError('invalid', `${file} does not match step ${def.id} of ${pinned.process.name} v${pinned.version}`, [
            { path: `${file}: id/kind`, message: `expected id ${def.id} and kind ${def.kind}, found ${String(doc.data.id)} and ${String(doc.data.kind)}` },
          ]);
        }
        steps[def.id] = stepFromDoc(doc);
      }
      const l = await readState(leasePath(runId, def.id));
      const lease = l === null ? null : parseLease(l.toString());
      // A claim whose step moved on without it (its files arrived through git) is over: not loaded, so its token answers stale.
      if (lease && !leaseStranded(steps[def.id], lease)) leases[def.id] = lease;
    }
    return { state: { run, steps, leases }, pinned };
  }

  /**
   * The state as of now: elapsed deadlines applied in memory. Reused, read-only,
   * until the run's next deadline, as long as the files it came from are unchanged.
   */
  current(loaded: Loaded, now: Date): Loaded {
    const t = now.getTime();
    const hit = this.currentCache.get(loaded);
    if (hit && t >= hit.from && t < hit.until) return hit.run;
    const { state, until } = asOf(loaded.state, loaded.pinned, contextFor(this.board.manifest, now));
    const run = { state, pinned: loaded.pinned };
    this.currentCache.set(loaded, { run, from: t, until });
    return run;
  }

  /** The snapshot of a state this reader served (from `current` or `openRuns`), computed once. */
  snapshot(loaded: Loaded): string {
    let s = this.snapshots.get(loaded.state);
    if (s === undefined) {
      s = snapshotOf(loaded.state, loaded.pinned);
      this.snapshots.set(loaded.state, s);
    }
    return s;
  }

  async view(runId: string) {
    const now = this.now();
    const { state, pinned } = this.current(await this.read(runId), now);
    return runView(state, pinned, now, this.fileUrl);
  }

  /** Before each sweep, with the open runs: own-run-watch.ts follows them. */
  onSweep(hook: ((open: readonly RunSummary[]) => void) | null): void {
    this.sweepHook = hook;
  }

  private async openSummaries(): Promise<readonly RunSummary[]> {
    const open = await this.index.openSummaries();
    this.sweepHook?.(open);
    return open;
  }

  /**
   * Runs still open, read as of now; ended runs are skipped by the index
   * alone. A state a watch vouches for is taken without waiting: get_work
   * walks thousands of open runs on every call.
   */
  async openRuns(process?: string): Promise<Loaded[]> {
    const now = this.now();
    const out: Loaded[] = [];
    const t = performance.now();
    for (const r of await this.openSummaries()) {
      if (process !== undefined && r.process !== process) continue;
      try {
        out.push(this.current(this.trusted(r.id, t) ?? (await this.read(r.id, true)), now));
      } catch {
        // a run whose files are being repaired is skipped, not fatal to everyone's inbox
      }
    }
    return out;
  }

  /** This process begins to start a run (see RunIndex.starting); call what it returns once the start is over. */
  starting(runId: string): () => void {
    return this.index.starting(runId);
  }

  /** The runs still open, as the index knows them. */
  async openRunIds(): Promise<string[]> {
    return (await this.openSummaries()).map((r) => r.id);
  }

  /** When each open run's next deadline falls (ms since the epoch), as the files say now. */
  async deadlines(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const id of await this.openRunIds()) {
      try {
        const loaded = await this.read(id, true);
        // As stored: deadlines already past are exactly the ones still to write down.
        const at = nextDeadlineAt(loaded.state, loaded.pinned, contextFor(this.board.manifest, this.now()));
        if (at !== null) out.set(id, at);
      } catch {
        // a run that cannot be read now is looked at again on its next change
      }
    }
    return out;
  }
}

function lastValidPath(runId: string): string {
  return paths.lastValid(runId);
}

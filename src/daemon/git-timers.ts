/**
 * The daemon's git timers: `serve --git-commit` commits the board to git now
 * and then, and `serve --git-sync` commits, pulls, merges and pushes, the next
 * try planned only once one ends (backing off after failures), and keeps this
 * clone's part in the board's clock (docs/git.md "Timers once per board").
 */
import { hostname } from 'node:os';
import type { Board } from '../board/board.js';
import { commitBoard } from '../git/commit.js';
import { BoardClock, clockLeaseMs } from '../git/clock.js';
import { syncBoard, SyncError } from '../git/sync.js';
import { afterTry, freshSyncState, nextSyncDelay, writeSyncState, type SyncState } from '../service/sync-state.js';
import type { Cancel, Clock } from './clock.js';

/** Where the daemon's lines go: serve's log, at info unless told `warn` (something failed). */
export type LineLog = (line: string, level?: 'warn') => void;

export interface GitTimerOptions {
  /** Commit board changes to git at most once per this many milliseconds. */
  gitCommitMs?: number;
  /** Sync with the git remote (commit, pull, merge, push) once per this many milliseconds. */
  gitSyncMs?: number;
  /** How long one fetch or push of a sync may take (git/sync.ts's default when absent). */
  gitTimeoutMs?: number;
  /** How long the board's clock lease lasts (default: 5 minutes, or 3 syncs when longer; docs/git.md "Timers once per board"). */
  gitClockMs?: number;
}

export interface SyncRecord {
  runs: number;
  failures: number;
  /** Failed syncs since the last good one. */
  failingInARow: number;
  /** When the last sync that succeeded ended (ms since the epoch), or null. */
  lastGoodAt: number | null;
}

export class GitTimers {
  /** `serve --git-sync`'s record so far, for /readyz and /metrics. */
  readonly syncs: SyncRecord = { runs: 0, failures: 0, failingInARow: 0, lastGoodAt: null };
  /** With --git-sync: this clone's part in the board's clock (docs/git.md "Timers once per board"). */
  private readonly boardClock: BoardClock | null;
  private gitTimer: Cancel | null = null;
  private syncTimer: Cancel | null = null;
  private syncState: SyncState | null = null;
  private stopped = false;
  /** The sync or commit under way, if any: stop() lets it finish. */
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly board: Board,
    private readonly opts: GitTimerOptions,
    private readonly clock: Clock,
    private readonly log: LineLog,
    /** The board's clock came here or went elsewhere: the daemon plans again. */
    private readonly replan: () => void,
  ) {
    this.boardClock = opts.gitSyncMs ? new BoardClock(board, opts.gitClockMs ?? clockLeaseMs(opts.gitSyncMs)) : null;
  }

  async start(): Promise<void> {
    if (this.opts.gitCommitMs) this.gitTimer = this.clock.every(this.opts.gitCommitMs, () => this.track(this.commitToGit()));
    if (this.opts.gitSyncMs) await this.scheduleSync(freshSyncState(process.pid, hostname(), this.opts.gitSyncMs, this.clock.now()));
  }

  /**
   * Start no more git work; resolves once the sync or commit under way has
   * finished. One cut short is safe (a sync's intent is rolled forward by the
   * next command), but that command would then change the board before doing
   * its own work, and a stop asked for politely should not leave that behind.
   */
  stop(): Promise<void> {
    this.stopped = true;
    this.gitTimer?.();
    this.syncTimer?.();
    return this.inFlight ?? Promise.resolve();
  }

  private track(work: Promise<void>): Promise<void> {
    const settled = work.catch((e: unknown) => this.log(`git: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, 'warn'));
    this.inFlight = settled;
    void settled.then(() => {
      if (this.inFlight === settled) this.inFlight = null;
    });
    return settled;
  }

  /** Does this daemon sync with a git remote (`serve --git-sync`)? */
  get syncing(): boolean {
    return this.opts.gitSyncMs !== undefined;
  }

  /** Does this coordinator write timers down? Always, unless it syncs: then while it holds the board's clock (docs/git.md "Timers once per board"). */
  get appliesTimers(): boolean {
    return this.boardClock?.heldAt(this.clock.now()) ?? true;
  }

  /** After a sync: say when the clock came here or went elsewhere, and plan again. */
  private async checkClock(): Promise<void> {
    if (!this.boardClock) return;
    const { lease, changed } = await this.boardClock.afterSync(this.clock.now());
    if (!changed) return;
    this.log(
      this.appliesTimers
        ? `holds the board's clock: timers are applied here (until ${lease?.until ?? '?'}, renewed at syncs)`
        : `the board's clock is held by ${lease?.holder ?? 'no clone'}: timers are applied there`,
    );
    this.replan();
  }

  /** `serve --git-sync`'s next try, when its record says (backing off after failures: service/sync-state.ts), the record saved for doctor. */
  private async scheduleSync(state: SyncState): Promise<void> {
    this.syncState = state;
    await writeSyncState(this.board.state, state).catch((e: unknown) => this.log(`could not save the git sync state: ${e instanceof Error ? e.message : String(e)}`, 'warn'));
    if (this.stopped) return;
    const due = Date.parse(state.nextTryAt ?? '');
    this.syncTimer = this.clock.after(Number.isNaN(due) ? state.everyMs : Math.max(0, due - this.clock.now().getTime()), () => this.track(this.syncToGit()));
  }

  /** `serve --git-sync`: commit, pull, merge, push; the next is planned only once this one ends (scheduleSync), so two never overlap. */
  private async syncToGit(): Promise<void> {
    this.syncs.runs++;
    await this.boardClock?.beforeSync(this.clock.now()).catch((e: unknown) => this.log(`the board's clock: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, 'warn'));
    let outcome: Parameters<typeof afterTry>[2];
    try {
      const r = await syncBoard(this.board, { actor: 'serve', now: () => this.clock.now(), ...(this.opts.gitTimeoutMs ? { timeoutMs: this.opts.gitTimeoutMs } : {}) });
      this.syncs.failingInARow = 0;
      this.syncs.lastGoodAt = this.clock.now().getTime();
      outcome = { ok: true };
      if (r.pulled !== 'nothing' || r.pushed)
        this.log(
          `synced with ${r.remote}/${r.branch}: ${r.pulled === 'nothing' ? 'nothing new' : r.pulled}${r.pushed ? ', pushed' : ''}${r.merged.some((m) => m.superseded) ? `; ${r.merged.filter((m) => m.superseded).length} run(s) merged whole from one side` : ''}`,
        );
      if (r.pulled !== 'nothing') await this.board.refresh();
      await this.checkClock();
    } catch (e) {
      this.syncs.failures++;
      this.syncs.failingInARow++;
      const message = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
      outcome = { ok: false, message, declined: e instanceof SyncError && e.code === 'declined' };
      const next = Math.round(nextSyncDelay(this.opts.gitSyncMs ?? 0, this.syncs.failingInARow) / 1000);
      this.log(`git sync failed: ${message}; next try in ${next} s`, 'warn');
    }
    if (this.syncState && !this.stopped) await this.scheduleSync(afterTry(this.syncState, this.clock.now(), outcome, new Date()));
  }

  private async commitToGit(): Promise<void> {
    try {
      const msg = await commitBoard(this.board);
      if (msg) this.log(`committed to git: ${msg.split('\n')[0]}`);
    } catch (e) {
      this.log(`git commit failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, 'warn');
    }
  }
}

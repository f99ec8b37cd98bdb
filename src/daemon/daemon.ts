/**
 * The long-running coordinator. Deadlines live in the files; the daemon only
 * makes them happen on time: it sleeps until the earliest one across the open
 * runs (no polling loop), applies what fell due through the service (the lock
 * and the revs make two daemons harmless), and re-plans whenever the board
 * changes. The watcher adopts or refuses hand edits as soon as they land, and
 * re-validates draft processes, and the courier delivers the notifications
 * the outbox holds. Time comes from an injected clock (the system's by
 * default), so tests move it instead of waiting for it. Git's commits,
 * syncs and the board's clock run beside it (git-timers.ts).
 */
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { CHANGES_FILE, OUTBOX_DIR, REFUSED_FILE, SYNC_LOCK, WORK_FILE } from '../board/layout.js';
import { issueText } from '../core/issues.js';
import { loadProcess } from '../process/load.js';
import type { Service } from '../service/service.js';
import { gitAtWork } from '../git/at-work.js';
import { adoptBoardFiles } from '../board/adopt.js';
import { systemClock, type Cancel, type Clock } from './clock.js';
import { Courier } from '../notify/courier.js';
import { tellOperators } from '../notify/tell.js';
import { recoveryLines } from '../board/recovery.js';
import { RunWatch } from '../board/run-watch.js';
import { EditSettle } from './edit-settle.js';
import { GitTimers, type GitTimerOptions, type LineLog, type SyncRecord } from './git-timers.js';

export type { LineLog, SyncRecord } from './git-timers.js';

/** Longest single sleep: a timer beyond this is re-planned (setTimeout's limit is ~24.8 days). */
const MAX_SLEEP_MS = 6 * 3600_000;
const SETTLE_MS = 50;
/** How long after git last moved HEAD (or while a sync or git holds its lock) changed files wait before they are read as hand edits. */
const GIT_SETTLE_MS = 1000;

/** How long stop() waits for work in flight. */
const STOP_WAIT_MS = 1500;

export interface DaemonOptions extends GitTimerOptions {
  log?: LineLog;
  /** What time it is and how to wait; the system's unless a test moves its own (then give the service the same one). */
  clock?: Clock;
}

export class Daemon {
  private timer: Cancel | null = null;
  private watcher: FSWatcher | null = null;
  private outboxWatch: { close(): void } | null = null;
  /** Open runs' folders, runs/ and the change log; processes/ and WORK.md go through `watcher`. */
  private readonly runWatch: RunWatch;
  private planning: Promise<void> | null = null;
  private again = false;
  private debounce: Cancel | null = null;
  private readonly touched = new Set<string>();
  /** Touched runs are read once their folder has gone quiet (docs/architecture.md "External edits"). */
  private readonly settle: EditSettle;
  private editTimer: Cancel | null = null;
  /** Files refused as invalid, with why: what `workboard doctor` reports. */
  readonly refused = new Map<string, string[]>();
  private stopped = false;
  private readonly log: LineLog;
  /** `serve --git-commit` and `--git-sync`, and the board's clock. */
  private readonly git: GitTimers;
  private readonly clock: Clock;
  private readonly courier: Courier;
  private delivering: Promise<number | null> | null = null;
  private courierTimer: Cancel | null = null;
  /** When the planned sleep ends (ms since the epoch). */
  private wakeAt = Infinity;
  /** Recovery done and watches set: what /readyz calls `recovery`. */
  private running = false;

  constructor(
    private readonly board: Board,
    private readonly service: Service,
    opts: DaemonOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.settle = new EditSettle(board.listing);
    this.runWatch = new RunWatch(board.root, CHANGES_FILE, (e) => {
      if (e.kind === 'run') {
        this.touched.add(e.runId);
        this.settle.heard(e.runId);
        service.runChanged(e.runId);
      }
      this.settleThenPlan();
    });
    this.log = opts.log ?? ((line) => process.stdout.write(`${this.clock.now().toISOString()} ${line}\n`));
    this.courier = new Courier(board, () => this.clock.now(), this.log);
    this.git = new GitTimers(board, opts, this.clock, this.log, () => void this.plan());
  }

  async start(): Promise<void> {
    for (const line of recoveryLines(await this.board.store.recover())) this.log(`recovered: ${line}`);
    this.runWatch.start();
    // The open runs' folders are watched from here on: reads of every open run may trust what they read before.
    this.service.trustWatched((runId) => this.runWatch.watches(runId));
    // The outbox too: a notification enqueued or retried by another process goes out now, not at the next wake.
    // A plain folder watch: it holds one file per run with news, and chokidar would list it all again at every change.
    this.outboxWatch = await this.board.state.watch(OUTBOX_DIR, (name) => {
      if (!name.includes('.tmp-')) this.deliverSoon();
    });
    this.watcher = watch([path.join(this.board.root, 'processes'), path.join(this.board.root, 'WORK.md')], {
      ignoreInitial: true,
      ignored: (p) => p.includes('.tmp-'),
      awaitWriteFinish: false,
    });
    this.watcher.on('all', (_event, file) => this.changed(file));
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
    await this.plan();
    await this.git.start();
    this.running = !this.stopped;
  }

  /** Started (recovery finished, the board watched) and not stopping. */
  get ready(): boolean {
    return this.running && !this.stopped;
  }

  /** Does this daemon sync with a git remote (`serve --git-sync`)? */
  get syncing(): boolean {
    return this.git.syncing;
  }

  /** `serve --git-sync`'s record so far, for /readyz and /metrics. */
  get syncs(): SyncRecord {
    return this.git.syncs;
  }

  /** The courier's outbox backlog and its attempts so far (Courier.backlog, .attempts, .failures). */
  get outbox(): Pick<Courier, 'backlog' | 'attempts' | 'failures'> {
    return this.courier;
  }

  private adopting: Cancel | null = null;

  /** WORK.md or a published version changed outside the board's writers (a hand edit, a pull): adopt it once the burst settles. */
  private adoptSoon(): void {
    this.adopting?.();
    this.adopting = this.clock.after(SETTLE_MS, () => {
      void this.adoptArrivals();
    });
  }

  private async adoptArrivals(): Promise<void> {
    if (this.gitAtWork()) {
      this.adopting = this.clock.after(GIT_SETTLE_MS, () => void this.adoptArrivals());
      return;
    }
    try {
      const { adopted } = await adoptBoardFiles(this.board, 'external');
      if (this.refused.delete(WORK_FILE)) await this.saveRefused();
      if (adopted.length > 0) {
        this.log(`adopted ${adopted.join(', ')} (changed outside workboard)`);
        await this.board.refresh();
      }
    } catch (e) {
      if (!(e instanceof BoardError)) throw e;
      const problems = e.issues.map(issueText);
      this.log(`refused an edit: ${e.message}${problems.length ? `\n  ${problems.join('\n  ')}` : ''}`, 'warn');
      this.refused.set(WORK_FILE, [e.message, ...problems]);
      await this.saveRefused();
    }
  }

  /** Does this coordinator write timers down? Always, unless it syncs: then while it holds the board's clock (docs/git.md "Timers once per board"). */
  get appliesTimers(): boolean {
    return this.git.appliesTimers;
  }

  /** Stop; `gitGraceMs`: how long a git sync or commit under way may take to finish (serve's --stop-grace). */
  async stop(gitGraceMs = STOP_WAIT_MS): Promise<void> {
    this.stopped = true;
    this.timer?.();
    const git = this.git.stop();
    this.adopting?.();
    this.debounce?.();
    this.editTimer?.();
    this.courierTimer?.();
    this.service.trustWatched(null);
    this.runWatch.close();
    this.outboxWatch?.close();
    await this.watcher?.close();
    // Let a tick or a delivery in flight finish, but not for long: a commit cut short is rolled
    // forward at the next start (the journal), and a delivery cut short is sent again with its id.
    const within = async (work: Promise<unknown>, ms: number) => {
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([work, new Promise((resolve) => (waited = setTimeout(resolve, ms)))]);
      clearTimeout(waited);
    };
    await Promise.all([within(Promise.all([this.planning, this.delivering?.catch(() => undefined)]), STOP_WAIT_MS), within(git, gitGraceMs)]);
  }

  /** A file changed: remember which run (to adopt or refuse its edits), then re-plan once things settle. */
  private changed(file: string): void {
    const rel = path.relative(this.board.root, file).split(path.sep).join('/');
    const draft = /^processes\/([^/]+)\/PROCESS\.md$/.exec(rel);
    if (draft) void this.checkDraft(rel);
    if (rel === WORK_FILE || /^processes\/[^/]+\/v\d+\//.test(rel)) this.adoptSoon();
    this.settleThenPlan();
  }

  /** Re-plan once a burst of changes has settled. */
  private settleThenPlan(): void {
    this.debounce?.();
    this.debounce = this.clock.after(SETTLE_MS, () => this.plan());
  }

  private async checkDraft(rel: string): Promise<void> {
    try {
      const bytes = await this.board.store.readBytes(rel);
      if (bytes === null) return;
      const loaded = loadProcess(bytes.toString('utf8'), this.service.offer);
      if (loaded.ok) this.log(`${rel}: valid (${loaded.process.name}, sha256:${loaded.hash.slice(0, 12)}…)`);
      else for (const i of loaded.issues) this.log(`${rel}:${i.line ?? 1}:${i.col ?? 1}: ${issueText(i)}`);
    } catch {
      // deleted meanwhile
    }
  }

  /** Apply what is due and sleep until the next deadline. Serialised: one plan at a time. */
  plan(): Promise<void> {
    if (this.planning) {
      this.again = true;
      return this.planning;
    }
    this.planning = (async () => {
      do {
        this.again = false;
        await this.runOnce();
      } while (this.again && !this.stopped);
      this.planning = null;
    })();
    return this.planning;
  }

  private async runOnce(): Promise<void> {
    if (this.stopped) return;
    this.timer?.();
    // Files git is still bringing in (a pull, a merge, its hook making runs whole) are not hand edits yet: look again shortly.
    if (this.touched.size > 0 && this.gitAtWork()) {
      this.timer = this.clock.after(GIT_SETTLE_MS, () => this.plan());
      return;
    }
    // Another clone holds the board's clock: a run with a timer due is left to it (a tick would write the timer down here too).
    const timers = this.appliesTimers;
    const elapsed = timers ? null : await this.service.deadlines();
    const leftToClock = (id: string) => elapsed !== null && (elapsed.get(id) ?? Infinity) <= this.clock.now().getTime();
    // Hand edits can land in any open run: follow exactly those folders, and look once
    // at each newly followed run (it may have been edited before its watch began).
    // A run only now followed is looked at at once: nothing was heard of it, and waiting for its files
    // to settle on wall time would hold its deadlines (a just-started run's files are always young).
    for (const id of this.runWatch.follow(await this.service.openRunIds())) {
      if (this.touched.has(id)) continue;
      this.service.runChanged(id);
      if (!leftToClock(id)) await this.tick(id);
    }
    // Runs whose files changed, once no file of theirs is still being written: a tick reads
    // every file afresh, adopting valid edits and refusing invalid ones. The others wait (wall time).
    const { quiet, waitMs } = this.settle.split(this.touched);
    for (const id of quiet) this.touched.delete(id);
    if (waitMs !== null) {
      this.editTimer?.();
      this.editTimer = systemClock.after(waitMs, () => this.plan());
    }
    for (const id of quiet) {
      this.service.runChanged(id);
      if (!leftToClock(id)) await this.tick(id);
    }
    let deadlines = await this.service.deadlines();
    const now = this.clock.now().getTime();
    const due = timers ? [...deadlines].filter(([id, at]) => at <= now && !this.touched.has(id)).map(([id]) => id) : [];
    for (const id of due) await this.tick(id);
    // Ticks move deadlines on; read them again only when something was applied.
    if (due.length > 0) deadlines = await this.service.deadlines();
    // Reminder ladders: rungs that fell due go out (each its own audited commit), then the next one is slept until.
    // A rung is a timer too: only the clone holding the board's clock sends it, so a person is reminded once.
    let rungs = await this.service.reminderTimes();
    const rungsDue = timers ? [...rungs].filter(([, at]) => at <= now).map(([id]) => id) : [];
    for (const id of rungsDue) await this.remind(id);
    if (rungsDue.length > 0) rungs = await this.service.reminderTimes();
    // flow-1: a blocker another process ended (and died before waking what it blocks) is seen here.
    if (timers) for (const id of await this.service.wakeBlocked()) this.log(`${id}: its blockers ended; woken, or ended as its blocker did`);
    // Not a timer: a start a killed process recorded under .work/ is this clone's alone to finish.
    for (const id of await this.service.settleLineage()) this.log(`${id}: started for its parent, moved on by its children, or ended with its parent`);
    const retry = await this.deliver();
    // Without the clock, a deadline or a rung already past is the holder's: wake for the next one still ahead (or when files change).
    // A run still being written, its deadline already past, is planned again by its edit timer (wall time):
    // waking for that deadline now would only find it still unsettled, again and again.
    const waiting = [...deadlines].filter(([id, at]) => at > now || !this.touched.has(id)).map(([, at]) => at);
    const ahead = [...waiting, ...rungs.values()].filter((at) => timers || at > now);
    const next = Math.min(...ahead, retry ?? Infinity, now + MAX_SLEEP_MS);
    if (this.stopped) return;
    this.wakeAt = next;
    this.timer = this.clock.after(Math.max(0, next - this.clock.now().getTime()), () => this.plan());
  }

  private async tick(runId: string): Promise<void> {
    try {
      const r = await this.service.tick(runId);
      if (this.refused.delete(runId)) {
        await this.saveRefused();
        await this.service.keepLastValid(runId, false);
      }
      for (const ev of r.events) this.log(`${runId}: ${ev.action} ${ev.entity}`);
    } catch (e) {
      if (e instanceof BoardError && (e.code === 'invalid' || e.code === 'corrupt')) {
        // The last valid state is kept before the run is listed as refused: whoever reads that list (doctor,
        // an operator) may count on any process, a fresh one too, serving the run read-only from that state.
        await this.service.keepLastValid(runId, true);
        const problems = e.issues.map(issueText);
        this.log(`${runId}: refused: ${e.message}${problems.length ? `\n  ${problems.join('\n  ')}` : ''}`, 'warn');
        // Told once, until the run reads valid again.
        if (!this.refused.has(runId)) {
          await tellOperators(this.board, 'edit_refused', this.clock.now(), {
            runId,
            subject: `A hand edit of run ${runId} was refused`,
            text: [e.message, ...problems, 'The run keeps its last valid state until the file is fixed (workboard doctor shows it).'].join('\n'),
          });
        }
        this.refused.set(runId, [e.message, ...problems]);
        await this.saveRefused();
      } else if (!(e instanceof BoardError && e.code === 'busy')) {
        this.log(`${runId}: ${e instanceof Error ? e.message : String(e)}`, 'warn');
      }
    }
  }

  private async remind(runId: string): Promise<void> {
    try {
      for (const ev of await this.service.remind(runId)) this.log(`${runId}: ${ev.action} ${ev.entity}`);
    } catch (e) {
      if (!(e instanceof BoardError && e.code === 'busy')) this.log(`${runId}: reminders: ${e instanceof Error ? e.message : String(e)}`, 'warn');
    }
  }

  /** Send what the outbox holds that is due; when to come back for retries and digests. One run at a time. */
  private async deliver(): Promise<number | null> {
    while (this.delivering) await this.delivering.catch(() => undefined);
    const run = this.courier.run().catch((e: unknown) => {
      this.log(`notifications: ${e instanceof Error ? e.message : String(e)}`, 'warn');
      return this.clock.now().getTime() + 60_000;
    });
    this.delivering = run;
    try {
      return await run;
    } finally {
      this.delivering = null;
    }
  }

  /** Run the courier once a burst of outbox changes has settled. */
  private deliverSoon(): void {
    this.courierTimer?.();
    this.courierTimer = this.clock.after(SETTLE_MS, async () => {
      if (this.stopped) return;
      // A retry due before the planned wake-up (a failure just now) re-plans the sleep.
      const wake = await this.deliver();
      if (wake !== null && wake < this.wakeAt) void this.plan();
    });
  }

  private async saveRefused(): Promise<void> {
    await this.board.state.replace(REFUSED_FILE, `${JSON.stringify(Object.fromEntries(this.refused), null, 2)}\n`);
  }

  /** Is a sync (its lock is there) or git at work on this board now? Then what changed is not yet a hand edit. */
  private gitAtWork(): boolean {
    // Wall time, whatever clock the deadlines follow: git's files carry the wall's times.
    return this.board.state.stamp(SYNC_LOCK) !== '' || gitAtWork(this.board.root, Date.now());
  }
}

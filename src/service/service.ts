/**
 * The fourteen tools (tool contracts) as one service over the engine and the
 * board. The CLI and the web app call `call`, typed by tool; MCP passes what
 * came off the wire to `callWire`. Either way arguments are checked against
 * the tool's schema, and identity rights, replay and error codes are handled
 * here once. Beside the tools, the reads the people's views need
 * (published.ts), so no transport reads the board itself. This file is the
 * front door: it checks the call and hands it to the part that does it:
 * reads (run-reader.ts, queries.ts), writes (writes.ts), stored files
 * (files.ts), replay (replay.ts), and what a failure answers (results.ts).
 */
import type { Board } from '../board/board.js';
import { type Actor, type EngineEvent, type Pinned, type RunRecord, type RunState } from '../engine/types.js';
import { ToolError } from '../protocol/errors.js';
import { isTool, TOOLS, type Offer, type Tool } from '../protocol/offer.js';
import type { ListRunsArgs, ToolArgs } from '../protocol/tool-args.js';
import type { Description, Result, ToolData } from '../protocol/tool-data.js';
import { offerFor } from './context.js';
import { description } from './description.js';
import { StoredFiles } from './files.js';
import { processVersion, processVersions, runTimeline, storedFile, type PublishedVersion, type RunTimeline, type StoredFile } from './published.js';
import { getWorkHere, listProcesses, listRuns } from './queries.js';
import { Replay } from './replay.js';
import { Failures, type ToolResult } from './results.js';
import { RunReader } from './run-reader.js';
import { watchOpenRuns } from './own-run-watch.js';
import { ReminderLadders, type RunLadders } from './reminders.js';
import { currentActor } from './identity.js';
import { decidedFor, delegateAs, delegationsNow, endDelegationAs, untilFrom, withDelegators } from './delegations.js';
import type { Delegation, DelegationAsk } from '../engine/delegation.js';
import { checkedArgs } from './schemas.js';
import { TokenKey } from './tokens.js';
import { RunWrites, type Evaluate } from './writes.js';
import { Lineage } from './lineage.js';
import { addRun, emptyWorkload, type Workload } from './workload.js';
import { blockerEnds, readIfAny } from './blockers-read.js';
import { blockersVerdict } from '../engine/blockers.js';
import { levelOf } from '../engine/priority.js';
import { PRIORITY_LEVELS } from '../process/model.js';
import { isRunId } from '../board/layout.js';
import type { Assignment, RunFlow, RunLineage } from '../protocol/views.js';
import { runTitle } from '../words/index.js';
import { pickView, runsInView, type ViewAnswer } from './view-runs.js';

import type { CallRecord, ServiceOptions, Transport } from './options.js';

export type { CallRecord, ServiceOptions, Transport };

/** What answers each tool once its arguments are checked, typed by the tool: `call` returns its own tool's result, never a cast. */
type Handlers = { [T in Tool]: (args: ToolArgs[T], actor: Actor, transport?: Transport) => Promise<ToolData[T]> };
/** A person's act through Slack says so in its audit lines (docs/operators.md "Slack"). */
const viaOf = (transport?: Transport) => (transport === 'slack' ? 'slack' : undefined);

const NO_EVALUATOR: Evaluate = async (_config, request) => ({ material: request.hash, model: 'none', error: 'this process runs no check evaluator' });

export class Service {
  private readonly now: () => Date;
  private readonly fixedOffer: Offer | undefined;
  private readonly reader: RunReader;
  private readonly files: StoredFiles;
  private readonly writes: RunWrites;
  private readonly lineage: Lineage;
  private readonly failures: Failures;
  private readonly ladders: ReminderLadders;
  private readonly observe: ((call: CallRecord) => void) | undefined;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  private constructor(
    readonly board: Board,
    tokens: TokenKey,
    opts: ServiceOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
    this.fixedOffer = opts.offer;
    const replay = new Replay(board.state);
    this.reader = new RunReader(board, this.now, opts.onIndexProgress, opts.keepOpenRuns);
    this.files = new StoredFiles(board, replay, this.now);
    this.writes = new RunWrites(
      board,
      this.reader,
      replay,
      this.files,
      tokens,
      this.now,
      opts.evaluate ?? NO_EVALUATOR,
      async () => void (await this.wakeBlocked()),
      (state, starts) => this.lineage.after(state, starts),
    );
    this.lineage = new Lineage(board, this.reader, this.writes, this.now);
    this.failures = new Failures(board, this.now);
    this.ladders = new ReminderLadders(board, this.reader, this.now);
    this.observe = opts.observe;
  }

  static async open(board: Board, opts: ServiceOptions = {}): Promise<Service> {
    return new Service(board, await TokenKey.load(board.state), opts);
  }

  /**
   * Call a tool as an identity, its arguments and answer typed by the tool.
   * Never throws: every outcome is a result object. The arguments are still
   * checked against the schema, as values built from a form may not fit it.
   */
  call<T extends Tool>(tool: T, args: ToolArgs[T], actor: Actor, transport: Transport = 'internal'): Promise<Result<ToolData[T]>> {
    return this.counted(tool, args, actor, transport, () => this.answer(tool, args, actor, false, transport));
  }

  /**
   * Call a tool by name with arguments as they came off the wire (MCP).
   * `held`: the identity was resolved when a connection opened (MCP over stdio
   * or HTTP), so one removed from WORK.md since is refused now.
   */
  callWire(tool: string, args: unknown, actor: Actor, opts: { held?: boolean; transport?: Transport } = {}): Promise<ToolResult> {
    const unknown = () => this.failures.answer(new ToolError('invalid', `no tool named ${tool}`, [`tool: one of ${TOOLS.join(', ')}`]), tool, args);
    return this.counted(tool, args, actor, opts.transport, () => (isTool(tool) ? this.answer(tool, args, actor, opts.held === true, opts.transport) : unknown()));
  }

  /** Resolves once no call is in flight: a stopping serve lets each finish its commit (docs/operations.md, Shutdown). */
  settled(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((r) => this.waiting.push(r));
  }

  /** A call counted while in flight (see `settled`), and told to `observe` as it ends. */
  private async counted<R extends ToolResult>(tool: string, args: unknown, actor: Actor, transport: Transport | undefined, answer: () => Promise<R>): Promise<R> {
    this.inFlight++;
    try {
      const began = performance.now();
      const result = await answer();
      if (this.observe) {
        const requestId = typeof args === 'object' && args !== null && 'requestId' in args ? args.requestId : undefined;
        this.observe({
          tool: isTool(tool) ? tool : null,
          transport: transport ?? 'internal',
          code: result.ok ? 'ok' : result.error.code,
          seconds: (performance.now() - began) / 1000,
          actor,
          ...(typeof requestId === 'string' ? { requestId } : {}),
        });
      }
      return result;
    } finally {
      if (--this.inFlight === 0) for (const settled of this.waiting.splice(0)) settled();
    }
  }

  private async answer<T extends Tool>(tool: T, args: unknown, actor: Actor, held: boolean, transport?: Transport): Promise<Result<ToolData[T]>> {
    try {
      await this.board.refresh();
      // Rights as WORK.md says now (an agent's scope, a person's operator role). Who the caller is
      // was settled by the transport; the server's own internal identities are not in WORK.md.
      const now = currentActor(this.board.manifest, actor);
      if (!now.ok && held) throw new ToolError('forbidden', now.message, ['identity: removed']);
      // Out of office: the work of whoever has handed theirs to this person is theirs to decide too.
      const data = await this.tools[tool](checkedArgs(tool, args === undefined ? {} : args), now.ok ? withDelegators(this.board, now.actor, this.now()) : actor, transport);
      return { ok: true, data };
    } catch (e) {
      return this.failures.answer(e, tool, args);
    }
  }

  private readonly tools: Handlers = {
    describe: async () => this.describe(),
    list_processes: (a) => listProcesses(this.board, this.reader, a.cursor),
    get_run: (a) => this.reader.view(a.runId),
    get_work: (a, actor) => getWorkHere(this.board, this.reader, actor, a, this.now()),
    list_runs: (a) => this.listRuns(a),
    start_run: (a, actor) => this.writes.startRun(a, actor),
    upload: (a, actor) => this.files.upload(a, actor),
    // The writes answer from write-answers.ts (or a replayed record of that answer).
    claim: (args, actor, t) => this.writes.runWrite({ tool: 'claim', args }, actor, viaOf(t)),
    renew: (args, actor, t) => this.writes.runWrite({ tool: 'renew', args }, actor, viaOf(t)),
    submit: (args, actor, t) => this.writes.runWrite({ tool: 'submit', args }, actor, viaOf(t)),
    escalate: (args, actor, t) => this.writes.runWrite({ tool: 'escalate', args }, actor, viaOf(t)),
    decide: (args, actor, t) => this.writes.runWrite({ tool: 'decide', args }, actor, viaOf(t)),
    cancel: (args, actor, t) => this.writes.runWrite({ tool: 'cancel', args }, actor, viaOf(t)),
    send_event: (args, actor, t) => this.writes.runWrite({ tool: 'send_event', args }, actor, viaOf(t)),
  };

  /** What this server offers now: WORK.md is re-read on every call, so configuring an evaluator takes effect at once. */
  get offer(): Offer {
    return this.fixedOffer ?? offerFor(this.board.manifest);
  }

  describe(): Description {
    return description(this.offer, this.board.manifest.settings);
  }

  // ---- reads for the people's views (the web app, the CLI) ----------------------------

  /** A published version loaded as runs pin it (with the full offer), or null when there is none to read. */
  processVersion(name: string, version: number): Promise<PublishedVersion | null> {
    return processVersion(this.board, name, version);
  }

  processVersions(name: string): Promise<number[]> {
    return processVersions(this.board, name);
  }

  /** A run's audit timeline, verified as read; null when it has none. */
  runTimeline(runId: string): Promise<RunTimeline | null> {
    return runTimeline(this.board, runId);
  }

  /** A stored file by its ref; whether the reader may see it is the caller's to check (by the run that names it). */
  storedFile(ref: string): Promise<StoredFile | null> {
    return storedFile(this.board, ref);
  }

  listRuns(a: ListRunsArgs) {
    return listRuns(this.reader, a, this.now);
  }

  // ---- for the daemon ------------------------------------------------------------

  tick(runId: string): Promise<{ events: EngineEvent[]; run: RunRecord; pinned: Pinned; state: RunState }> {
    return this.writes.tick(runId);
  }

  /** End the claims a removed agent holds on a run (see offboarding.ts). */
  endClaims(runId: string, agent: string, by: string): Promise<string[]> {
    return this.writes.endClaims(runId, agent, by);
  }

  /**
   * flow-1 (docs/profile-flow-1.md "3. Runs blocked by other runs"): every blocked run whose blockers have
   * all ended well wakes at its first step; one whose blocker failed or was
   * cancelled ends the same way. Run after each write that ends or starts a
   * blocked run, and by serve's daemon on every change it sees, so a run a
   * crashed process ended is still woken. A run that cannot be written now is
   * looked at again at the next sweep.
   */
  async wakeBlocked(): Promise<string[]> {
    const moved: string[] = [];
    for (const m of await this.reader.openRuns()) {
      const run = m.state.run;
      if (!run.blocked) continue;
      if (blockersVerdict(run.blockedBy ?? [], await blockerEnds(this.reader, run.blockedBy ?? [], this.board.manifest.people)).kind === 'wait') continue;
      try {
        if ((await this.writes.unblock(run.id)).length > 0) moved.push(run.id);
      } catch {
        // busy or refused: the next sweep tries again
      }
    }
    return moved;
  }

  /**
   * flow-1 (docs/profile-flow-1.md "8. All or nothing"): the runs recorded as started but not there yet are
   * started, parents whose children ended move on, children whose parent ended are cancelled. Serve's
   * daemon runs it on every change it sees; returns the runs it moved.
   */
  settleLineage(): Promise<string[]> {
    return this.lineage.settle();
  }

  /** flow-1: a run's parent, children and rolled-up state as a person reads them (docs/profile-flow-1.md "7. Lineage and rollup"); null when it has none. */
  runLineage(runId: string): Promise<RunLineage | null> {
    return this.lineage.read(runId);
  }

  /** flow-1: a person sets a running run's priority (a level's word); refused as a tool call would be. */
  async setPriority(runId: string, level: string, actor: Actor): Promise<ToolResult> {
    try {
      const priority = levelOf(level);
      if (priority === null) throw new ToolError('invalid', `no priority ${level}`, [`priority: one of ${Object.keys(PRIORITY_LEVELS).join(', ')}`]);
      if (!isRunId(runId)) throw new ToolError('not_found', `no run ${runId}`);
      await this.board.refresh();
      const now = currentActor(this.board.manifest, actor);
      await this.writes.setPriority(runId, priority, now.ok ? now.actor : actor);
      return { ok: true, data: { priority } };
    } catch (e) {
      return this.failures.answer(e, 'set_priority', { runId, level });
    }
  }

  /** Out of office (docs/people.md "Out of office"): the delegations in force now. */
  delegations(): Delegation[] {
    return delegationsNow(this.board, this.now());
  }

  /** A typed end (a date, a clock time in the board's zone, or a full time) as an instant. */
  untilFrom(text: string): string {
    return untilFrom(text, this.board.manifest.notifications.timeZone);
  }

  /** Whom this person decides a work item so assigned for: null when it is their own, else the delegator's email. */
  decidedFor(email: string, assigned: Assignment): string | null {
    return decidedFor(this.board, email, assigned, this.now());
  }

  /** Hand a person's work to another until a time, as the person or an operator; refused as a tool call would be. */
  async delegate(ask: DelegationAsk, actor: Actor, osUser: string | null = null): Promise<Result<Delegation>> {
    try {
      return { ok: true, data: await delegateAs(this.board, actor, ask, this.now(), osUser, (name, version) => this.reader.pinned(name, version)) };
    } catch (e) {
      return this.failures.answer(e, 'delegate', ask);
    }
  }

  /** End a person's delegation now, as the person or an operator; `ended` false when none was in force. */
  async endDelegation(from: string, actor: Actor, osUser: string | null = null): Promise<Result<{ ended: boolean }>> {
    try {
      return { ok: true, data: { ended: await endDelegationAs(this.board, actor, from, this.now(), osUser, (name, version) => this.reader.pinned(name, version)) } };
    } catch (e) {
      return this.failures.answer(e, 'end_delegation', { from });
    }
  }

  /** flow-1: what a person reads of a run's priority and blockers (the run page, `workboard show`); null for a run without flow-1. */
  async runFlow(runId: string): Promise<RunFlow | null> {
    const run = (await this.reader.read(runId)).state.run;
    if (run.priority === undefined) return null;
    const people = this.board.manifest.people;
    const blockedBy: RunFlow['blockedBy'] = [];
    for (const id of run.blockedBy ?? []) {
      const b = await readIfAny(this.reader, id);
      const r = b?.state.run;
      blockedBy.push(
        b && r
          ? { id, title: runTitle(b.pinned.process, r.inputs, people), process: r.process, state: r.state, outcome: r.outcome }
          : { id, title: `run ${id}, not on this board`, process: null, state: null, outcome: null },
      );
    }
    return { priority: run.priority, blocked: run.blocked === true, blockedBy };
  }

  /** A saved view's runs (docs/operators.md "Saved views"): the one named, else the first; `only` these runs when given (My work's). Whoever may list runs may read a view. */
  async savedView(id?: string, only?: ReadonlySet<string>): Promise<Result<ViewAnswer>> {
    try {
      await this.board.refresh();
      const m = this.board.manifest;
      return { ok: true, data: await runsInView(this.reader, pickView(m.views, id), m.groups, this.now(), only) };
    } catch (e) {
      return this.failures.answer(e, 'saved_view', { id });
    }
  }

  /** Write back what `keepOpenRuns` kept. */
  saveKept(): Promise<void> {
    return this.reader.saveKept();
  }

  /** What the open runs hold, by process and step, as of now (serve's /metrics). */
  async workload(): Promise<Workload> {
    const out = emptyWorkload();
    const now = this.now();
    for (const m of await this.reader.openRuns()) addRun(out, m, now);
    return out;
  }

  openRunIds(): Promise<string[]> {
    return this.reader.openRunIds();
  }

  deadlines(): Promise<Map<string, number>> {
    return this.reader.deadlines();
  }

  /** Serve's daemon: when each open run's next reminder rung goes out (docs/operators.md "Reminders and escalation ladders"). */
  reminderTimes(): Promise<Map<string, number>> {
    return this.ladders.times();
  }

  /** Serve's daemon: send a run's rungs that fell due, each audited; returns the audit events. */
  remind(runId: string): Promise<{ action: string; entity: string }[]> {
    return this.ladders.remind(runId);
  }

  /** A run's waiting items on their reminder ladders, rung by rung, for `workboard reminders` (docs/operators.md "Reminders and escalation ladders"). */
  reminderLadders(runId: string, stepId?: string): Promise<RunLadders> {
    return this.ladders.view(runId, stepId);
  }

  /** Where a waiting work item stands on its reminder ladder, in words, or null (docs/people.md "Reminders"). */
  ladderSentence(runId: string, workItemId: string): Promise<string | null> {
    return this.ladders.sentence(runId, workItemId).catch(() => null);
  }

  /** Serve's daemon: which runs' folders its watch reports every change of, or null once it stops (see RunReader.trustWatched). */
  trustWatched(watched: ((runId: string) => boolean) | null): void {
    this.reader.trustWatched(watched);
  }

  /** A long-lived process without serve's daemon (workboard mcp) watches the open runs' folders itself; returns what stops it. */
  watchOpenRuns(): () => void {
    return watchOpenRuns(this.board.root, this.reader);
  }

  /** Serve's daemon: its watch saw something change in a run's folder. */
  runChanged(runId: string): void {
    this.reader.changed(runId);
  }

  keepLastValid(runId: string, refused: boolean): Promise<void> {
    return this.reader.keepLastValid(runId, refused);
  }
}

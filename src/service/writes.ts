/**
 * The write tools on runs: start_run (serialised on its requestId), and
 * claim, renew, submit, escalate, decide, cancel and send_event on an existing
 * run, plus the daemon's tick. Each one: lock the run, replay?, read its files,
 * ask the engine for a plan, and turn it into one commit value (every changed
 * file with the rev it was read at, lease, notification, replay record and
 * audit event) that the board applies all or nothing; or refuse (committing
 * only what the plan says a refusal keeps), or ask the evaluator outside the
 * lock and try again with its answer.
 */
import type { Board } from '../board/board.js';
import { revRecording, type Commit, type StateRecord } from '../board/commit.js';
import type { EvaluatorConfig } from '../board/manifest.js';
import { isRunId, paths, STARTS_DIR } from '../board/layout.js';
import { listVersions } from '../board/processes.js';
import type { CheckOutcome, CheckRequest } from '../engine/check.js';
import { execute, start, type Change, type Command, type Plan } from '../engine/execute.js';
import { fourEyesApplies } from '../engine/rights.js';
import type { Actor, ChildStart, EngineEvent, Pinned, RunRecord, RunState } from '../engine/types.js';
import { runView } from '../engine/view.js';
import type { RunWriteCall, RunWriteTool } from '../protocol/calls.js';
import { ToolError } from '../protocol/errors.js';
import type { StartRunArgs } from '../protocol/tool-args.js';
import type { ToolData } from '../protocol/tool-data.js';
import { contextFor } from './context.js';
import type { StoredFiles } from './files.js';
import { requestLock, type Replay } from './replay.js';
import { isEnded, type Loaded, type RunReader } from './run-reader.js';
import { leasePath, runDoc, stepDoc } from './runfiles.js';
import type { TokenClaims, TokenKey } from './tokens.js';
import { outboxRecords } from '../notify/outbox.js';
import { runNotifications } from '../notify/rules.js';
import { tellOperators } from '../notify/tell.js';
import { newId } from '../core/ids.js';
import { namedBlockers } from '../engine/commands.js';
import { blockerEnds } from './blockers-read.js';
import { claimHeldElsewhere } from './offered-here.js';
import { writeAnswers, type WriteAnswers } from './write-answers.js';

/** How often a write asks the evaluator again when run data moved while it was answering. */
const CHECK_ROUNDS = 3;
const EVALUATOR_FAILURES_TOLD = 3;

/** The port a shell plugs its check evaluator into: WORK.md's evaluator as it is now, one request, the board's folder. */
export type Evaluate = (config: EvaluatorConfig | null, request: CheckRequest, boardRoot: string) => Promise<CheckOutcome>;

export class RunWrites {
  constructor(
    private readonly board: Board,
    private readonly reader: RunReader,
    private readonly replay: Replay,
    private readonly files: StoredFiles,
    private readonly tokens: TokenKey,
    private readonly now: () => Date,
    private readonly evaluate: Evaluate,
    /** Told once a committed write has started a blocked run or ended one (flow-1): the runs they block are looked at before the write answers. */
    private readonly blockersMoved: () => Promise<void> = async () => {},
    /** flow-1: told of each committed change that starts runs, or ends a run with a parent or children (docs/profile-flow-1.md "7. Lineage and rollup"). */
    private readonly linked: (state: RunState, starts: readonly ChildStart[]) => Promise<void> = async () => {},
  ) {
    this.answers = writeAnswers(tokens, reader.fileUrl);
  }

  /** What each committed write answers, typed by its tool (write-answers.ts). */
  private readonly answers: WriteAnswers;

  /** flow-1: hand a committed change to `linked` when it starts runs or ends one that has a parent or children. */
  private async links(state: RunState, starts: readonly ChildStart[] | undefined): Promise<void> {
    const ended = state.run.state === 'ended' || state.run.state === 'cancelled';
    const related = ended && (state.run.parent !== undefined || Object.values(state.steps).some((st) => st.children?.length));
    if ((starts?.length ?? 0) > 0 || related) await this.linked(state, starts ?? []);
  }

  /**
   * start_run under an exclusive lock on its requestId: concurrent repeats (any
   * process) wait, then find the replay record. A start whose caller died half
   * way left its run id in the lock, and the next repeat finishes that same run.
   */
  async startRun(a: StartRunArgs, actor: Actor): Promise<ToolData['start_run']> {
    const candidate = contextFor(this.board.manifest, this.now()).newId('r');
    const made: { change?: Change } = {};
    return this.board.store.exclusive(requestLock(a.requestId), candidate, async (runId) => {
      const prior = await this.replay.lookup(null, 'start_run', a, actor);
      if (prior !== undefined) return prior;
      const versions = await listVersions(this.board, a.process).catch((): number[] => []);
      const latest = versions.at(-1);
      if (latest === undefined) throw new ToolError('not_found', `no published process ${a.process}`);
      const version = a.version ?? latest;
      if (!versions.includes(version)) throw new ToolError('not_found', `${a.process} has no version ${version} (published: ${versions.join(', ')})`);
      const pinned = await this.reader.pinned(a.process, version);
      // flow-1: the runs its blocked_by input names, read before the lock (an ended run never changes).
      const blockers = await blockerEnds(this.reader, namedBlockers(pinned.process, a.inputs), this.board.manifest.people);
      const started = this.reader.starting(runId);
      const { value } = await this.board.store
        .apply({ kind: 'run', id: runId }, async (reads) => {
          // The transaction rolled forward whatever a dead predecessor committed: its record may be here now.
          const finished = await this.replay.lookup(reads, 'start_run', a, actor);
          if (finished !== undefined) return { value: finished, commit: null };
          const read = revRecording(reads);
          if (await read.read(paths.runFile(runId))) throw new ToolError('conflict', `run ${runId} already exists but this requestId has no record of it; use a new requestId`, ['request_id_reused']);
          const now = this.now();
          const plan = start(pinned, { inputs: a.inputs, mode: a.mode ?? 'live', blockers }, actor, contextFor(this.board.manifest, now), runId);
          if (plan.kind !== 'commit') throw refusalOf(plan);
          const view = runView(plan.state, pinned, now, this.reader.fileUrl);
          made.change = plan;
          return { value: view, commit: changeCommit(plan, null, read.revOf, [...this.notes(plan, pinned, now), this.replay.recordOf('start_run', a, actor, view)]) };
        })
        .finally(started);
      if (made.change) await this.links(made.change.state, made.change.starts);
      // A blocker may have ended between its read and this commit, unseen by the write that ended it: look once more.
      if (blockers.size > 0) await this.unblock(runId).catch(() => undefined);
      return value;
    });
  }

  /** Writes on an existing run: claim, renew, submit, escalate, decide, cancel, send_event; each answers its tool's declared result. */
  async runWrite<T extends RunWriteTool>(call: Extract<RunWriteCall, { tool: T }>, actor: Actor, via?: 'slack'): Promise<ToolData[T]> {
    // Narrowed by its tool below (a type parameter does not narrow).
    const c: RunWriteCall = call;
    let runId: string;
    let claims: TokenClaims | null = null;
    if (c.tool === 'renew' || c.tool === 'submit' || c.tool === 'escalate') {
      claims = this.tokens.verify(c.args.token);
      if (!claims) {
        const prior = await this.replay.lookup(null, call.tool, call.args, actor);
        if (prior !== undefined) return prior;
        throw new ToolError('invalid', 'the token does not verify: it was not issued by this board, or it was altered', ['token: does not verify']);
      }
      runId = claims.runId;
    } else runId = c.args.runId;
    if (!isRunId(runId)) throw new ToolError('not_found', `no run ${runId}`);
    // A step with a check: the engine asks for a verdict on exactly the material it would
    // complete; the evaluator is asked outside the lock, and the write is tried again with
    // the answer. If run data moved meanwhile (a sibling branch), the material differs and it asks again.
    let check: CheckOutcome | undefined;
    for (let round = 1; ; round++) {
      const out = await this.writeOnce(call, runId, actor, claims, check, via);
      if (!(out instanceof NeedsVerdict)) return out;
      if (round === CHECK_ROUNDS) throw new ToolError('retry', 'the run kept changing while its check was evaluated; call again with the same requestId');
      check = await this.evaluate(this.board.manifest.evaluator, out.request, this.board.root);
      await this.countEvaluator(check);
    }
  }

  private async writeOnce<T extends RunWriteTool>(
    call: Extract<RunWriteCall, { tool: T }>,
    runId: string,
    actor: Actor,
    claims: TokenClaims | null,
    check: CheckOutcome | undefined,
    via?: 'slack',
  ): Promise<ToolData[T] | NeedsVerdict> {
    const done: { committed?: Loaded; starts?: ChildStart[] } = {};
    const { value } = await this.board.store.apply({ kind: 'run', id: runId }, async (reads): Promise<{ value: ToolData[T] | NeedsVerdict | ToolError; commit: Commit | null }> => {
      delete done.committed;
      // Read the clock once the lock is held: a lease starts when its claim commits, not before a lock wait.
      const now = this.now();
      const prior = await this.replay.lookup(reads, call.tool, call.args, actor);
      if (prior !== undefined) return { value: prior, commit: null };
      const read = revRecording(reads);
      const loaded = await this.reader.assemble(runId, read.read, read.readState);
      const command = await this.command(call, loaded.pinned.process.name, claims, check);
      const planned = execute(loaded.state, loaded.pinned, contextFor(this.board.manifest, now), actor, command);
      const plan = via ? throughVia(planned, actor, via) : planned;
      switch (plan.kind) {
        case 'check':
          return { value: new NeedsVerdict(plan.request), commit: null };
        case 'refuse':
          return { value: refusalOf(plan), commit: plan.keep ? changeCommit(plan.keep, loaded.state, read.revOf) : null };
        case 'commit': {
          const elsewhere = await claimHeldElsewhere(this.board, call, loaded.state, now);
          if (elsewhere) return { value: elsewhere, commit: null };
          const data = this.answers[call.tool](plan, loaded.pinned, now);
          done.committed = { state: plan.state, pinned: loaded.pinned };
          done.starts = plan.starts;
          return { value: data, commit: changeCommit(plan, loaded.state, read.revOf, [...this.notes(plan, loaded.pinned, now), this.replay.recordOf(call.tool, call.args, actor, data)]) };
        }
      }
    });
    // The reader's caches follow the commit on their own (RunReader.committed).
    if (value instanceof ToolError) throw value;
    if (done.committed && isEnded(done.committed)) await this.blockersMoved();
    if (done.committed) await this.links(done.committed.state, done.starts);
    return value;
  }

  /** The engine's command for a call, with what the service found for it: claim ids, file hashes, a verdict. */
  private async command(call: RunWriteCall, process: string, claims: TokenClaims | null, check: CheckOutcome | undefined): Promise<Command> {
    // The engine holds a token to its claimant once it knows the run has not ended (run_ended comes first).
    const claim = { stepId: claims?.stepId ?? '', claimId: claims?.claimId ?? '', ...(claims?.agent !== undefined ? { claimant: claims.agent } : {}) };
    switch (call.tool) {
      case 'claim':
        return { tool: 'claim', stepId: call.args.stepId };
      case 'renew':
        return { tool: 'renew', ...claim, ...(call.args.progress !== undefined ? { progress: call.args.progress } : {}) };
      case 'submit': {
        const { token: _t, requestId: _r, ...submission } = call.args;
        return { tool: 'submit', ...claim, submission, checkFile: await this.files.checks(call.args.evidence), ...(check ? { check } : {}) };
      }
      case 'escalate':
        return { tool: 'escalate', ...claim, note: call.args.note };
      case 'decide': {
        const { runId: _id, requestId: _r, ...decision } = call.args;
        const m = this.board.manifest;
        const rules = { groups: m.groups, fourEyes: fourEyesApplies(m.fourEyes, process) };
        return { tool: 'decide', decision, rules, checkFile: await this.files.checks(call.args.evidence), ...(check ? { check } : {}) };
      }
      case 'cancel':
        return { tool: 'cancel', reason: call.args.reason };
      case 'send_event':
        return { tool: 'send_event', name: call.args.name, ...(call.args.data !== undefined ? { data: call.args.data } : {}) };
    }
  }

  /** Operators are told when the evaluator has failed this many times in a row (then again only after it answered). */
  private evaluatorFailures = 0;

  private async countEvaluator(outcome: CheckOutcome): Promise<void> {
    if (!('error' in outcome)) {
      this.evaluatorFailures = 0;
      return;
    }
    if (++this.evaluatorFailures !== EVALUATOR_FAILURES_TOLD) return;
    await tellOperators(this.board, 'evaluator_failing', this.now(), {
      subject: `The check evaluator failed ${EVALUATOR_FAILURES_TOLD} times in a row`,
      text: `Last: ${outcome.error}\nSubmissions to steps with a check answer retry until it answers again (WORK.md evaluator:; try it with workboard evaluator).`,
    });
  }

  /** The outbox records of the notifications a change causes, for its commit (see src/notify/). */
  private notes(change: Change, pinned: Pinned, now: Date): StateRecord[] {
    const at = now.toISOString();
    return outboxRecords(runNotifications(change.events, change.state, pinned, this.board.manifest, at, () => newId('n', now.getTime())));
  }

  /**
   * The daemon's tick: apply a run's elapsed deadlines now and write them down,
   * adopting or refusing any hand-edited file of the run on the way (every file
   * is read in the transaction). Returns what happened, for notifications.
   */
  async tick(runId: string): Promise<{ events: EngineEvent[]; run: RunRecord; pinned: Pinned; state: RunState }> {
    const { value } = await this.board.store.apply({ kind: 'run', id: runId }, async (reads) => {
      const read = revRecording(reads);
      const loaded = await this.reader.assemble(runId, read.read, read.readState, 'tick');
      const now = this.now();
      const plan = execute(loaded.state, loaded.pinned, contextFor(this.board.manifest, now), { kind: 'agent', id: 'server' }, { tool: 'tick' });
      if (plan.kind !== 'commit') throw refusalOf(plan);
      const moved = plan.events.length > 0;
      return {
        value: { events: plan.events, run: plan.state.run, pinned: loaded.pinned, state: moved ? plan.state : loaded.state, starts: plan.starts },
        commit: moved ? changeCommit(plan, loaded.state, read.revOf, this.notes(plan, loaded.pinned, now)) : null,
      };
    });
    if (value.events.some((e) => e.action === 'run.ended')) await this.blockersMoved();
    if (value.events.length > 0) await this.links(value.state, value.starts);
    return value;
  }

  /** End the claims `agent` holds on a run (`by` removed it from the board): those steps are ready again, with a handoff. Returns the steps released. */
  async endClaims(runId: string, agent: string, by: string): Promise<string[]> {
    const { events } = await this.serverWrite(runId, { kind: 'agent', id: 'server' }, async () => ({ tool: 'end_claims', agent, by }));
    return events.filter((e) => e.action === 'claim.ended').map((e) => e.entity);
  }

  /** flow-1: a blocked run looks at its blockers as they are now (docs/profile-flow-1.md "3. Runs blocked by other runs"). Returns what happened. */
  async unblock(runId: string): Promise<EngineEvent[]> {
    const { events, ended } = await this.serverWrite(runId, { kind: 'agent', id: 'server' }, async (loaded) => ({
      tool: 'unblock',
      blockers: await blockerEnds(this.reader, loaded.state.run.blocked ? (loaded.state.run.blockedBy ?? []) : [], this.board.manifest.people),
    }));
    if (ended) await this.blockersMoved();
    return events;
  }

  /** flow-1: a write the server makes on a run for its parent or its children (docs/profile-flow-1.md "7. Lineage and rollup"). */
  async flowWrite(runId: string, command: Command): Promise<{ events: EngineEvent[]; ended: boolean }> {
    const out = await this.serverWrite(runId, { kind: 'agent', id: 'server' }, async () => command);
    if (out.ended) await this.blockersMoved();
    return out;
  }

  /**
   * flow-1: start a run its parent's commit recorded (docs/profile-flow-1.md "8. All or nothing"), under the
   * id that commit made for it: a run that exists already is left as it is, so
   * a start repeated after a crash never makes a second one. Returns the
   * refusal when its process no longer takes what it is given.
   */
  async startChild(c: ChildStart): Promise<ToolError | null> {
    if (await this.board.store.read(paths.runFile(c.run))) return null;
    const versions = await listVersions(this.board, c.process).catch((): number[] => []);
    const last = versions.at(-1);
    if (last === undefined) return new ToolError('not_found', `no published process ${c.process}`);
    const pinned = await this.reader.pinned(c.process, last);
    const blockers = await blockerEnds(this.reader, namedBlockers(pinned.process, c.inputs), this.board.manifest.people);
    const actor: Actor = c.initiator ? { kind: 'person', email: c.initiator, operator: false } : { kind: 'agent', id: 'server' };
    const made: { change?: Change } = {};
    const started = this.reader.starting(c.run);
    const { value } = await this.board.store
      .apply({ kind: 'run', id: c.run }, async (reads) => {
        const read = revRecording(reads);
        if (await read.read(paths.runFile(c.run))) return { value: null, commit: null };
        const now = this.now();
        const plan = start(
          pinned,
          { inputs: c.inputs, mode: c.mode, parent: c.parent, blockers, ...(c.priority !== undefined ? { priority: c.priority } : {}) },
          actor,
          contextFor(this.board.manifest, now),
          c.run,
        );
        if (plan.kind !== 'commit') return { value: refusalOf(plan), commit: null };
        made.change = plan;
        return { value: null, commit: changeCommit(plan, null, read.revOf, this.notes(plan, pinned, now)) };
      })
      .finally(started);
    if (made.change) await this.links(made.change.state, made.change.starts);
    if (made.change && blockers.size > 0) await this.unblock(c.run).catch(() => undefined);
    return value;
  }

  /** flow-1: a person sets a running run's priority (docs/profile-flow-1.md "2. Priority"); audited as run.priority-changed. */
  async setPriority(runId: string, priority: number, actor: Actor): Promise<EngineEvent[]> {
    return (await this.serverWrite(runId, actor, async () => ({ tool: 'set_priority', priority }))).events;
  }

  /**
   * A write that is no tool call (a removed agent's claims, a wake-up, a
   * priority): lock, read, plan, commit what moved with its notifications, or
   * throw the refusal. No replay record: each is safe to repeat.
   */
  private async serverWrite(runId: string, actor: Actor, commandOf: (loaded: Loaded) => Promise<Command>): Promise<{ events: EngineEvent[]; ended: boolean }> {
    const { value } = await this.board.store.apply({ kind: 'run', id: runId }, async (reads) => {
      const read = revRecording(reads);
      const loaded = await this.reader.assemble(runId, read.read, read.readState);
      const command = await commandOf(loaded);
      const now = this.now();
      const plan = execute(loaded.state, loaded.pinned, contextFor(this.board.manifest, now), actor, command);
      if (plan.kind !== 'commit') throw refusalOf(plan);
      const moved = plan.events.length > 0;
      return {
        value: {
          events: plan.events,
          ended: moved && plan.state.run.state !== loaded.state.run.state && (plan.state.run.state === 'ended' || plan.state.run.state === 'cancelled'),
          state: plan.state,
          starts: plan.starts,
        },
        commit: moved ? changeCommit(plan, loaded.state, read.revOf, this.notes(plan, loaded.pinned, now)) : null,
      };
    });
    if (value.events.length > 0) await this.links(value.state, value.starts);
    return value;
  }
}

/** The caller's own audit lines of a committed plan say which way the act came (`via: slack`); the board's lines are left as they are. */
function throughVia(plan: Plan, actor: Actor, via: 'slack'): Plan {
  if (plan.kind !== 'commit' || actor.kind !== 'person') return plan;
  const by = actor.email;
  return { ...plan, events: plan.events.map((e) => (e.actor === by ? { ...e, changes: { ...(e.changes ?? {}), via } } : e)) };
}

/** A plan that did not commit, as the error its call answers. */
function refusalOf(plan: Exclude<Plan, { kind: 'commit' }>): ToolError {
  return plan.kind === 'refuse' ? plan.error : new ToolError('retry', 'a check verdict was needed where none can be asked; call again');
}

/** A write's plan asked for a check verdict: the evaluator is asked outside the lock. */
class NeedsVerdict {
  constructor(readonly request: CheckRequest) {}
}

/**
 * A change as one commit: RUN.md and every step file with the rev each was read at (the
 * board skips unchanged ones), the leases that changed or ended, the audit events, then
 * the records that come with it (its notifications, its replay record).
 */
function changeCommit(change: Change, before: RunState | null, revOf: (rel: string) => number, records: readonly StateRecord[] = []): Commit {
  const r = change.state.run;
  const file = (rel: string, doc: { data: Record<string, unknown>; body: string }) => ({ rel, data: doc.data, body: doc.body, readRev: revOf(rel) });
  const files = [file(paths.runFile(r.id), runDoc(r)), ...Object.entries(change.state.steps).map(([id, st]) => file(paths.stepFile(r.id, id), stepDoc(st)))];
  const leases = change.state.leases;
  const old = before?.leases ?? {};
  const state: StateRecord[] = [];
  for (const id of new Set([...Object.keys(old), ...Object.keys(leases)])) {
    const lease = leases[id];
    if (!lease) state.push({ rel: leasePath(r.id, id), bytes: null });
    else if (JSON.stringify(lease) !== JSON.stringify(old[id])) state.push({ rel: leasePath(r.id, id), bytes: JSON.stringify(lease) });
  }
  for (const c of change.starts ?? []) state.push({ rel: startPath(c), bytes: JSON.stringify(c) });
  const events = change.events.map((ev) => ({
    actor: ev.actor,
    action: ev.action,
    entity: ev.entity.startsWith('run:') ? ev.entity : `${r.id}/${ev.entity}`,
    ...(ev.changes ? { changes: ev.changes } : {}),
  }));
  return { files, state: [...state, ...records], events };
}

/** flow-1: where a commit records a run it starts, until that run exists. */
export const startPath = (c: Pick<ChildStart, 'parent' | 'run'>): string => `${STARTS_DIR}/${c.parent}-${c.run}.json`;

/**
 * The write tools on runs: start_run (serialised on its requestId), and
 * claim, renew, submit, escalate, decide, cancel and send_event on an existing
 * run, plus the daemon's tick. Each one: lock the run, replay?, read its files
 * in the transaction, apply elapsed deadlines, run the engine command, and
 * commit every changed file, lease, replay record and audit event together.
 * A refusal writes nothing, except what it must keep (a failed check's
 * verdict in the handoff; a refused submission's issues with its claim).
 */
import type { Board } from '../board/board.js';
import { isRunId, paths } from '../board/layout.js';
import { listVersions } from '../board/processes.js';
import type { Tx } from '../board/tx.js';
import type { Submission } from '../engine/acceptance.js';
import { NeedsCheck, type CheckOutcome } from '../engine/check.js';
import * as cmd from '../engine/commands.js';
import { Machine } from '../engine/machine.js';
import { type Actor, type EngineEvent, type Pinned, type RunRecord, type RunState } from '../engine/types.js';
import { ToolError } from '../protocol/errors.js';
import { requirements, runView } from '../engine/view.js';
import { evaluate } from '../evaluator/evaluator.js';
import type { Tool } from '../protocol/offer.js';
import { contextFor } from './context.js';
import type { StoredFiles } from './files.js';
import { requestLock, type Replay } from './replay.js';
import type { RunReader } from './run-reader.js';
import { leasePath, runDoc, stepDoc } from './runfiles.js';
import type { TokenClaims, TokenKey } from './tokens.js';

/** How often a write asks the evaluator again when run data moved while it was answering. */
const CHECK_ROUNDS = 3;

export class RunWrites {
  constructor(
    private readonly board: Board,
    private readonly reader: RunReader,
    private readonly replay: Replay,
    private readonly files: StoredFiles,
    private readonly tokens: TokenKey,
    private readonly now: () => Date,
  ) {}

  /**
   * start_run under an exclusive lock on its requestId: concurrent repeats (any
   * process) wait, then find the replay record. A start whose caller died half
   * way left its run id in the lock, and the next repeat finishes that same run.
   */
  async startRun(a: Record<string, unknown>, actor: Actor) {
    const candidate = contextFor(this.board.manifest, this.now()).newId('r');
    return this.board.store.exclusive(requestLock(a.requestId as string), candidate, async (runId) => {
      const prior = await this.replay.lookup(null, 'start_run', a, actor);
      if (prior !== undefined) return prior;
      const name = a.process as string;
      const versions = await listVersions(this.board, name).catch((): number[] => []);
      if (versions.length === 0) throw new ToolError('not_found', `no published process ${name}`);
      const version = (a.version as number | undefined) ?? versions[versions.length - 1]!;
      if (!versions.includes(version)) throw new ToolError('not_found', `${name} has no version ${version} (published: ${versions.join(', ')})`);
      const pinned = await this.reader.pinned(name, version);
      const { value } = await this.board.store.transact({ kind: 'run', id: runId }, async (tx) => {
        // The transaction rolled forward whatever a dead predecessor committed: its record may be here now.
        const finished = await this.replay.lookup(tx, 'start_run', a, actor);
        if (finished !== undefined) return finished;
        if (await tx.read(paths.runFile(runId))) throw new ToolError('conflict', `run ${runId} already exists but this requestId has no record of it; use a new requestId`, ['request_id_reused']);
        const now = this.now();
        const m = cmd.startRun(pinned, { inputs: a.inputs, mode: (a.mode as 'live' | 'test' | undefined) ?? 'live' }, actor, contextFor(this.board.manifest, now), runId);
        m.applyDeadlines();
        m.settle();
        persist(tx, m, { run: m.state.run, steps: {}, leases: {} });
        const view = runView(m.state, pinned, now, this.reader.fileUrl);
        this.replay.record(tx, 'start_run', a, actor, view);
        return view;
      });
      return value;
    });
  }

  /** Writes on an existing run: claim, renew, submit, escalate, decide, cancel, send_event. */
  async runWrite(tool: Tool, a: Record<string, unknown>, actor: Actor): Promise<unknown> {
    let runId: string;
    let claims: TokenClaims | null = null;
    if (tool === 'renew' || tool === 'submit' || tool === 'escalate') {
      claims = this.tokens.verify(a.token);
      if (!claims) {
        const prior = await this.replay.lookup(null, tool, a, actor);
        if (prior !== undefined) return prior;
        throw new ToolError('invalid', 'the token does not verify: it was not issued by this board, or it was altered', ['token: does not verify']);
      }
      // Bound to its claimant before anything else, replays included (the engine checks the lease too).
      if (claims.agent !== undefined && (actor.kind !== 'agent' || actor.id !== claims.agent)) throw cmd.claimedByAnother(claims.agent, actor);
      runId = claims.runId;
    } else runId = a.runId as string;
    if (!isRunId(runId)) throw new ToolError('not_found', `no run ${runId}`);
    // A step with a check: the engine asks for a verdict on exactly the material it would
    // complete; the evaluator is asked outside the lock, and the write is tried again with
    // the answer. If run data moved meanwhile (a sibling branch), the material differs and it asks again.
    let check: CheckOutcome | undefined;
    for (let round = 1; ; round++) {
      try {
        return await this.writeOnce(tool, runId, a, actor, claims, check);
      } catch (e) {
        if (!(e instanceof NeedsCheck)) throw e;
        if (round === CHECK_ROUNDS) throw new ToolError('retry', 'the run kept changing while its check was evaluated; call again with the same requestId');
        check = await evaluate(this.board.manifest.evaluator, e.request, this.board.root);
      }
    }
  }

  private async writeOnce(tool: Tool, runId: string, a: Record<string, unknown>, actor: Actor, claims: TokenClaims | null, check: CheckOutcome | undefined): Promise<unknown> {
    const { value } = await this.board.store.transact({ kind: 'run', id: runId }, async (tx) => {
      // Read the clock once the lock is held: a lease starts when its claim commits, not before a lock wait.
      const now = this.now();
      const prior = await this.replay.lookup(tx, tool, a, actor);
      if (prior !== undefined) return prior;
      const loaded = await this.reader.assemble(runId, (rel) => tx.read(rel), (rel) => tx.readState(rel));
      const before = structuredClone(loaded.state);
      const m = new Machine(structuredClone(loaded.state), loaded.pinned, contextFor(this.board.manifest, now));
      // Deadlines that fell due are applied first and written with this call. A refused
      // call writes nothing at all; the next write (or the daemon) records them.
      m.applyDeadlines();
      const updatedBefore = m.state.run.updatedAt;
      m.state.run.updatedAt = now.toISOString();
      let data: unknown;
      try {
        data = await this.apply(tool, m, a, actor, claims, check);
      } catch (e) {
        // A failed check is recorded (the verdict goes to the step's handoff), then refused.
        if (e instanceof cmd.CheckFailed) {
          m.settle();
          persist(tx, m, before);
          return { refused: e };
        }
        // A refused submission changes nothing in the run; its issues are kept with the
        // claim (coordinator state, not committed) so a next claimant's handoff shows them.
        const lease = claims ? loaded.state.leases[claims.stepId] : undefined;
        if (e instanceof ToolError && e.code === 'not_accepted' && tool === 'submit' && lease?.claimId === claims?.claimId && lease) {
          tx.writeState(leasePath(runId, lease.stepId), JSON.stringify({ ...lease, issues: e.issues }));
          return { refused: e };
        }
        throw e;
      }
      // A call that moved no step (renew) leaves the run's files as they were: its lease is
      // coordinator state, and only its audit line records it.
      if (m.events.every((e) => cmd.LEASE_ONLY_EVENTS.has(e.action))) m.state.run.updatedAt = updatedBefore;
      m.settle();
      persist(tx, m, before);
      this.replay.record(tx, tool, a, actor, data);
      return data;
    });
    this.reader.forget(runId);
    if (value instanceof Object && 'refused' in value && value.refused instanceof ToolError) throw value.refused;
    return value;
  }

  /**
   * The daemon's tick: apply a run's elapsed deadlines now and write them down,
   * adopting or refusing any hand-edited file of the run on the way (every file
   * is read in the transaction). Returns what happened, for notifications.
   */
  async tick(runId: string): Promise<{ events: EngineEvent[]; run: RunRecord; pinned: Pinned; state: RunState }> {
    const { value } = await this.board.store.transact({ kind: 'run', id: runId }, async (tx) => {
      const now = this.now();
      const loaded = await this.reader.assemble(runId, (rel) => tx.read(rel), (rel) => tx.readState(rel));
      const before = structuredClone(loaded.state);
      const m = new Machine(structuredClone(loaded.state), loaded.pinned, contextFor(this.board.manifest, now));
      m.applyDeadlines();
      if (m.events.length > 0) {
        m.state.run.updatedAt = now.toISOString();
        m.settle();
        persist(tx, m, before);
      }
      return { events: m.events, run: m.state.run, pinned: m.pinned, state: m.state };
    });
    // Every file of the run was just read and found valid (or adopted): the state to fall back on if one is refused later.
    this.reader.seenValid(runId, { state: value.state, pinned: value.pinned });
    if (value.events.length > 0) this.reader.forget(runId);
    return value;
  }

  private async apply(tool: Tool, m: Machine, a: Record<string, unknown>, actor: Actor, claims: TokenClaims | null, check: CheckOutcome | undefined): Promise<unknown> {
    // The view a write returns shows every transition it triggered, run state included (§4).
    const view = () => {
      m.settle();
      return runView(m.state, m.pinned, m.ctx.now, this.reader.fileUrl);
    };
    switch (tool) {
      case 'claim': {
        const lease = cmd.claim(m, a.stepId as string, actor);
        const def = m.def(lease.stepId);
        const st = m.state.steps[lease.stepId]!;
        const req = requirements(def);
        const full = view();
        return {
          token: this.tokens.sign({ runId: m.state.run.id, stepId: lease.stepId, claimId: lease.claimId, expiresAt: lease.expiresAt, agent: lease.agent }),
          expiresAt: lease.expiresAt,
          mode: m.state.run.mode,
          step: { id: def.id, instructions: def.value, output: req.output, evidence: req.evidence, next: req.next },
          handoff: st.handoff,
          body: m.pinned.process.body,
          data: full.data,
        };
      }
      case 'renew': {
        const lease = cmd.renew(m, claims!.stepId, claims!.claimId, a.progress as string | undefined, actor);
        return { token: this.tokens.sign({ runId: m.state.run.id, stepId: lease.stepId, claimId: lease.claimId, expiresAt: lease.expiresAt, agent: lease.agent }), expiresAt: lease.expiresAt };
      }
      case 'submit':
        cmd.submit(m, claims!.stepId, claims!.claimId, a as Submission, actor, await this.files.checks(a.evidence), check);
        return view();
      case 'escalate':
        cmd.escalate(m, claims!.stepId, claims!.claimId, a.note as string, actor);
        return view();
      case 'decide':
        cmd.decide(m, a as unknown as cmd.Decision, actor, this.board.manifest.groups, await this.files.checks(a.evidence), check);
        return view();
      case 'cancel':
        cmd.cancel(m, a.reason as string, actor);
        return view();
      case 'send_event':
        return { consumedBy: cmd.sendEvent(m, a.name as string, a.data as Record<string, unknown> | undefined, actor) };
      default:
        throw new Error(`not a run write: ${tool}`);
    }
  }
}

/** Stage a machine's run: RUN.md (always: updatedAt moves), changed step files, leases, audit events. */
function persist(tx: Tx, m: Machine, before: RunState): void {
  const r = m.state.run;
  const run = runDoc(r);
  tx.write(paths.runFile(r.id), run.data, run.body);
  for (const [id, st] of Object.entries(m.state.steps)) {
    const doc = stepDoc(st);
    tx.write(paths.stepFile(r.id, id), doc.data, doc.body);
  }
  for (const id of new Set([...Object.keys(before.leases), ...Object.keys(m.state.leases)])) {
    const lease = m.state.leases[id];
    if (!lease) tx.removeState(leasePath(r.id, id));
    else if (JSON.stringify(lease) !== JSON.stringify(before.leases[id])) tx.writeState(leasePath(r.id, id), JSON.stringify(lease));
  }
  for (const ev of m.events) {
    tx.audit({ actor: ev.actor, action: ev.action, entity: ev.entity.startsWith('run:') ? ev.entity : `${r.id}/${ev.entity}`, ...(ev.changes ? { changes: ev.changes } : {}) });
  }
}

/**
 * The fourteen tools (tool contracts) as one service over the engine and the
 * board. Every transport (MCP, CLI) calls `call`; arguments, identity rights,
 * replay and error codes are handled here once.
 *
 * A write: check arguments → lock the run → roll forward, read its files →
 * replay? → apply elapsed deadlines → the engine command → commit every
 * changed file, lease and audit event together. A refusal writes nothing.
 * A read applies elapsed deadlines to what it shows without writing them.
 */
import { ulid } from 'ulid';
import type { Board } from '../board/board.js';
import type { Manifest } from '../board/manifest.js';
import { NeedsCheck, type CheckOutcome } from '../engine/check.js';
import { evaluate } from '../evaluator/evaluator.js';
import type { BoardDoc } from '../board/document.js';
import { BoardError, faultOf } from '../board/errors.js';
import { readIfExists, removeIfExists, writeFileAtomic } from '../board/fsutil.js';
import { isRunId, paths, STATE_DIR } from '../board/layout.js';
import { listProcessNames, listVersions, loadVersion } from '../board/processes.js';
import type { Tx } from '../board/tx.js';
import { BoundedMap } from '../core/bounded-map.js';
import { issueText } from '../core/issues.js';
import type { FileCheck, Submission } from '../engine/acceptance.js';
import * as cmd from '../engine/commands.js';
import { Machine } from '../engine/machine.js';
import { actorName, ToolError, type Actor, type Context, type EngineEvent, type Lease, type Pinned, type RunRecord, type RunState, type StepState } from '../engine/types.js';
import { leaseLive, requirements, runView, snapshotOf, workItems, type FileUrl } from '../engine/view.js';
import { canonicalJson, sha256Hex } from '../process/hash.js';
import { FULL_OFFER, TOOLS, type Offer, type Tool } from '../process/profiles.js';
import { leasePath, parseLease, runDoc, runFromDoc, stepDoc, stepFromDoc } from './runfiles.js';
import { RunIndex, runStamp } from './run-index.js';
import { recordIncident } from './incidents.js';
import { argumentIssues } from './schemas.js';
import { TokenKey } from './tokens.js';

export type ToolResult = { ok: true; data: unknown } | { ok: false; error: { code: string; message: string; issues?: string[] } };

/** What a board offers: every tool, parallel-1, and check-1 only while WORK.md configures an evaluator (check-1 §1). */
export function offerFor(manifest: Manifest): Offer {
  return { profiles: new Set(manifest.evaluator ? ['parallel-1', 'check-1'] : ['parallel-1']), tools: new Set(TOOLS) };
}

/** How many times one call's internal fault is answered `retry` before `conflict` says to stop. */
const FAULT_RETRIES = 3;

/** Open runs whose read state a service keeps; past this the least recently used are read again when asked for. */
const CACHED_RUNS = 20_000;

/** How often a write asks the evaluator again when run data moved while it was answering. */
const CHECK_ROUNDS = 3;

interface Loaded {
  state: RunState;
  pinned: Pinned;
}

export interface ServiceOptions {
  now?: () => Date;
  offer?: Offer;
  /** Told how reading the board's runs goes, for progress on a large board. */
  onIndexProgress?: (done: number, total: number) => void;
}

export class Service {
  private readonly pinnedCache = new Map<string, Pinned>();
  private readonly index: RunIndex;
  /** Open runs as last read, reused while nothing in their folder or leases changed. */
  private readonly runCache = new BoundedMap<string, { stamp: string; loaded: Loaded }>(CACHED_RUNS);
  /** Each read state as of a moment, valid until its next deadline (see `current`). */
  private readonly currentCache = new WeakMap<Loaded, { m: Machine; from: number; until: number }>();
  private readonly now: () => Date;
  private readonly fixedOffer: Offer | undefined;

  private constructor(
    readonly board: Board,
    private readonly tokens: TokenKey,
    opts: ServiceOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
    this.fixedOffer = opts.offer;
    this.index = new RunIndex(board.store, opts.onIndexProgress);
  }

  static async open(board: Board, opts: ServiceOptions = {}): Promise<Service> {
    return new Service(board, await TokenKey.load(board.store.abs(STATE_DIR)), opts);
  }

  /** Call a tool as an identity. Never throws: every outcome is a result object. */
  async call(tool: string, args: unknown, actor: Actor): Promise<ToolResult> {
    try {
      if (!(TOOLS as readonly string[]).includes(tool)) throw new ToolError('invalid', `no tool named ${tool}`, [`tool: one of ${TOOLS.join(', ')}`]);
      const t = tool as Tool;
      const a = args === undefined ? {} : args;
      await this.board.refresh();
      const issues = argumentIssues(t, a);
      if (issues.length > 0) throw new ToolError('invalid', `the arguments of ${t} do not match its schema`, issues);
      const data = await this.dispatch(t, a as Record<string, unknown>, actor);
      return { ok: true, data };
    } catch (e) {
      return this.failure(e, tool, args);
    }
  }

  /** Internal faults answered so far per requestId, so one that keeps happening is not retried for ever. */
  private readonly faults = new BoundedMap<string, number>(1000);

  /**
   * A refusal as the contract's result. A full disk or a passing shortage is
   * `retry`; any other fault is recorded as an incident and answered `retry`
   * with `internal_fault` twice, then `conflict`: retrying will not mend it.
   */
  private async failure(e: unknown, tool: string, args: unknown): Promise<ToolResult> {
    if (e instanceof ToolError || e instanceof BoardError) return toError(e);
    const fault = faultOf(e);
    if (fault.kind !== 'internal') return { ok: false, error: { code: 'retry', message: fault.message, issues: [fault.kind === 'no_space' ? 'disk_full' : 'resource_exhausted'] } };
    const incident = await recordIncident(this.board.store, tool, e, this.now());
    const requestId = typeof args === 'object' && args !== null ? (args as { requestId?: unknown }).requestId : undefined;
    const key = `${tool}|${typeof requestId === 'string' ? requestId : ''}`;
    const answered = (this.faults.get(key) ?? 0) + 1;
    this.faults.set(key, answered);
    const issues = ['internal_fault', `incident: ${incident}`];
    if (answered >= FAULT_RETRIES) {
      return { ok: false, error: { code: 'conflict', message: `internal fault (incident ${incident}), again: retrying will not help; an operator must look (workboard doctor)`, issues } };
    }
    return { ok: false, error: { code: 'retry', message: `internal fault (incident ${incident}): ${fault.message}; retry at most ${FAULT_RETRIES - answered} more time(s), then stop and tell an operator`, issues } };
  }

  private async dispatch(tool: Tool, a: Record<string, unknown>, actor: Actor): Promise<unknown> {
    switch (tool) {
      case 'describe':
        return this.describe();
      case 'list_processes':
        return this.listProcesses(a.cursor as string | undefined);
      case 'get_run':
        return this.getRun(a.runId as string);
      case 'get_work':
        return this.getWork(actor, a as { limit?: number; cursor?: string; process?: string });
      case 'list_runs':
        return this.listRuns(a as { process?: string; state?: string; inputs?: Record<string, unknown>; limit?: number; cursor?: string });
      case 'start_run':
        return this.startRun(a, actor);
      case 'upload':
        return this.upload(a, actor);
      default:
        return this.runWrite(tool, a, actor);
    }
  }

  /** What this server offers now: WORK.md is re-read on every call, so configuring an evaluator takes effect at once. */
  get offer(): Offer {
    return this.fixedOffer ?? offerFor(this.board.manifest);
  }

  describe(): Record<string, unknown> {
    const s = this.board.manifest.settings;
    return {
      protocol: 'agentprocess',
      version: 'core-2',
      profiles: [...this.offer.profiles],
      leaseSeconds: s.leaseSeconds,
      person: { format: 'email' },
      tools: [...this.offer.tools],
      maxUploadBytes: s.maxUploadBytes,
      limits: { runDataBytes: s.runDataBytes, checkPass: s.checkPass, checkFail: s.checkFail, checkConfidence: s.checkConfidence, checkStateBytes: s.checkStateBytes },
    };
  }

  private context(now: Date): Context {
    const s = this.board.manifest.settings;
    const limits = { runDataBytes: s.runDataBytes, leaseSeconds: s.leaseSeconds, checkPass: s.checkPass, checkFail: s.checkFail, checkConfidence: s.checkConfidence, checkStateBytes: s.checkStateBytes };
    return { now, newId: (prefix) => `${prefix}-${ulid(now.getTime()).toLowerCase()}`, limits };
  }

  // ---- processes ------------------------------------------------------------

  private async pinned(name: string, version: number, hash?: string): Promise<Pinned> {
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

  private async listProcesses(cursor?: string) {
    const items = [];
    for (const name of await listProcessNames(this.board)) {
      const versions = await listVersions(this.board, name);
      try {
        const p = await this.pinned(name, versions[versions.length - 1]!);
        items.push({
          name,
          description: p.process.description,
          version: p.version,
          inputs: p.process.frontmatter.inputs ?? {},
          ...(p.process.requires ? { requires: p.process.requires } : {}),
        });
      } catch {
        // a version that no longer verifies is never offered
      }
    }
    return page(items, (i) => i.name, 100, cursor);
  }

  // ---- reading runs -------------------------------------------------------------

  /** A run's state from its files, read without locking as one consistent whole. */
  private async readRun(runId: string): Promise<Loaded> {
    if (!isRunId(runId)) throw new ToolError('not_found', `no run ${runId}`);
    const stamp = runStamp(this.board.store, runId);
    const cached = this.runCache.get(runId);
    if (cached && cached.stamp === stamp) return cached.loaded;
    let loaded: Loaded;
    try {
      loaded = await this.readRunFiles(runId);
    } catch (e) {
      // A hand edit made a file invalid: keep serving the last valid state, read-only
      // (every write still goes through the store, which refuses the run until it is fixed).
      const last = e instanceof BoardError && e.code === 'invalid' ? (cached?.loaded ?? (await this.lastValid(runId))) : null;
      if (last) return last;
      throw e;
    }
    // Only open runs are kept: they are what get_work reads on every call; an ended run is read when asked for.
    if (loaded.state.run.state !== 'ended' && loaded.state.run.state !== 'cancelled') this.runCache.set(runId, { stamp, loaded });
    else this.runCache.delete(runId);
    return loaded;
  }

  private lastValidPath(runId: string): string {
    return `${STATE_DIR}/last-valid/${runId}.json`;
  }

  /**
   * Remember a run's last valid state when one of its files is refused, so
   * every process serves it until the file is fixed; forget it once fixed.
   */
  async keepLastValid(runId: string, refused: boolean): Promise<void> {
    const file = this.board.store.abs(this.lastValidPath(runId));
    const cached = this.runCache.get(runId);
    if (refused && cached) await writeFileAtomic(file, JSON.stringify(cached.loaded.state));
    if (!refused) await removeIfExists(file);
  }

  private async lastValid(runId: string): Promise<Loaded | null> {
    const raw = await readIfExists(this.board.store.abs(this.lastValidPath(runId)));
    if (!raw) return null;
    try {
      const state = JSON.parse(raw.toString('utf8')) as RunState;
      return { state, pinned: await this.pinned(state.run.process, state.run.version, state.run.hash) };
    } catch {
      return null;
    }
  }

  private async readRunFiles(runId: string): Promise<Loaded> {
    return this.board.store.snapshot({ kind: 'run', id: runId }, (read) => this.assemble(runId, read, (rel) => readIfExists(this.board.store.abs(rel))));
  }

  private async assemble(runId: string, read: (rel: string) => Promise<BoardDoc | null>, readState: (rel: string) => Promise<Buffer | string | null>): Promise<Loaded> {
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
      if (lease) leases[def.id] = lease;
    }
    return { state: { run, steps, leases }, pinned };
  }

  /**
   * The state as of now: elapsed deadlines applied in memory. Reused, read-only,
   * until the run's next deadline, as long as the files it came from are unchanged.
   */
  private current(loaded: Loaded, now: Date): Machine {
    const t = now.getTime();
    const hit = this.currentCache.get(loaded);
    if (hit && t >= hit.from && t < hit.until) return hit.m;
    const m = new Machine(structuredClone(loaded.state), loaded.pinned, this.context(now));
    m.applyDeadlines();
    m.settle();
    this.currentCache.set(loaded, { m, from: t, until: m.nextDeadline()?.at ?? Infinity });
    return m;
  }

  private fileUrl: FileUrl = (ref) => `file://${this.board.store.abs(`files/${ref}/content`)}`;

  async getRun(runId: string) {
    const now = this.now();
    const m = this.current(await this.readRun(runId), now);
    return runView(m.state, m.pinned, now, this.fileUrl);
  }

  /** Runs still open, read as of now. Ended runs are skipped by the index alone. */
  private async *openRuns(process?: string): AsyncGenerator<Machine> {
    const now = this.now();
    for (const r of await this.index.summaries()) {
      if (r.state === 'ended' || r.state === 'cancelled') continue;
      if (process !== undefined && r.process !== process) continue;
      try {
        yield this.current(await this.readRun(r.id), now);
      } catch {
        // a run whose files are being repaired is skipped, not fatal to everyone's inbox
      }
    }
  }

  async getWork(actor: Actor, a: { limit?: number; cursor?: string; process?: string }) {
    const now = this.now();
    const items: { key: string; item: Record<string, unknown> }[] = [];
    const groups = this.board.manifest.groups;
    for await (const m of this.openRuns(a.process)) {
      const r = m.state.run;
      const test = r.mode === 'test' ? { mode: 'test' as const } : { mode: 'live' as const };
      if (actor.kind === 'agent') {
        for (const def of m.pinned.process.steps) {
          const st = m.state.steps[def.id];
          if (def.kind !== 'agent' || st?.state !== 'ready' || leaseLive(m.state, def.id, now)) continue;
          items.push({
            key: `${st.readySince}|${r.id}|${def.id}`,
            item: {
              runId: r.id,
              stepId: def.id,
              process: r.process,
              version: r.version,
              ...test,
              readySince: st.readySince,
              due: st.due,
              overdue: st.overdue,
              handoff: st.handoff,
              claim: { tool: 'claim', arguments: { runId: r.id, stepId: def.id, requestId: '<new UUID>' } },
            },
          });
        }
      } else {
        const snapshot = snapshotOf(m.state, m.pinned);
        for (const wi of workItems(m.state, m.pinned, snapshot)) {
          if (!cmd.mayDecide(actor, wi.assignedTo as { group?: string; person?: string }, groups)) continue;
          const st = m.state.steps[wi.stepId as string]!;
          items.push({ key: `${st.readySince}|${r.id}|${wi.id}`, item: { runId: r.id, process: r.process, version: r.version, ...test, workItem: wi } });
        }
      }
    }
    items.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    const p = page(items, (i) => i.key, a.limit ?? 20, a.cursor);
    return { items: p.items.map((i) => i.item), nextCursor: p.nextCursor };
  }

  async listRuns(a: { process?: string; state?: string; inputs?: Record<string, unknown>; limit?: number; cursor?: string }) {
    const rows: { key: string; item: Record<string, unknown> }[] = [];
    for (const r of [...(await this.index.summaries())].reverse()) {
      const id = r.id;
      if (a.process !== undefined && r.process !== a.process) continue;
      if (a.inputs && !Object.entries(a.inputs).every(([k, v]) => Object.hasOwn(r.inputs, k) && canonicalJson(r.inputs[k]) === canonicalJson(v))) continue;
      let run: Pick<RunRecord, 'state' | 'outcome' | 'updatedAt'> = r;
      if (r.state === 'active' || r.state === 'waiting') {
        try {
          run = this.current(await this.readRun(id), this.now()).state.run;
        } catch {
          // keep the recorded summary
        }
      }
      if (a.state !== undefined && run.state !== a.state) continue;
      rows.push({
        key: id,
        item: { id: r.id, process: r.process, version: r.version, state: run.state, outcome: run.outcome, startedAt: r.startedAt, updatedAt: run.updatedAt, inputs: r.inputs },
      });
    }
    const p = page(rows, (i) => i.key, a.limit ?? 20, a.cursor, true);
    return { items: p.items.map((i) => i.item), nextCursor: p.nextCursor };
  }

  // ---- writes -----------------------------------------------------------------

  /** The replay record of a requestId: the original result for the same call, `conflict` for another. */
  private requestPath(requestId: string): string {
    return `${STATE_DIR}/requests/${sha256Hex(requestId)}.json`;
  }

  private fingerprint(tool: Tool, a: Record<string, unknown>, actor: Actor): string {
    const { requestId: _r, ...rest } = a;
    return sha256Hex(canonicalJson({ tool, actor: actorName(actor), args: rest }));
  }

  private async replay(tx: Pick<Tx, 'readState'> | null, tool: Tool, a: Record<string, unknown>, actor: Actor): Promise<unknown | undefined> {
    const rel = this.requestPath(a.requestId as string);
    const text = tx ? await tx.readState(rel) : (await readIfExists(this.board.store.abs(rel)))?.toString('utf8') ?? null;
    if (text === null) return undefined;
    const rec = JSON.parse(text) as { fingerprint: string; data: unknown };
    if (rec.fingerprint !== this.fingerprint(tool, a, actor)) {
      throw new ToolError('conflict', 'this requestId was already used for a different call; use a new requestId', ['request_id_reused']);
    }
    return rec.data;
  }

  private record(tx: Tx, tool: Tool, a: Record<string, unknown>, actor: Actor, data: unknown): void {
    tx.writeState(this.requestPath(a.requestId as string), JSON.stringify({ requestId: a.requestId, tool, fingerprint: this.fingerprint(tool, a, actor), data }));
  }

  /** Persist a machine's run: RUN.md (always: updatedAt moves), changed step files, leases, audit events. */
  private persist(tx: Tx, m: Machine, before: RunState): void {
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

  /**
   * start_run under an exclusive lock on its requestId: concurrent repeats (any
   * process) wait, then find the replay record. A start whose caller died half
   * way left its run id in the lock, and the next repeat finishes that same run.
   */
  private async startRun(a: Record<string, unknown>, actor: Actor) {
    const requestId = a.requestId as string;
    const candidate = this.context(this.now()).newId('r');
    return this.board.store.exclusive(`${STATE_DIR}/locks/request-${sha256Hex(requestId)}.lock`, candidate, async (runId) => {
      const prior = await this.replay(null, 'start_run', a, actor);
      if (prior !== undefined) return prior;
      const name = a.process as string;
      const versions = await listVersions(this.board, name).catch((): number[] => []);
      if (versions.length === 0) throw new ToolError('not_found', `no published process ${name}`);
      const version = (a.version as number | undefined) ?? versions[versions.length - 1]!;
      if (!versions.includes(version)) throw new ToolError('not_found', `${name} has no version ${version} (published: ${versions.join(', ')})`);
      const pinned = await this.pinned(name, version);
      const { value } = await this.board.store.transact({ kind: 'run', id: runId }, async (tx) => {
        // The transaction rolled forward whatever a dead predecessor committed: its record may be here now.
        const finished = await this.replay(tx, 'start_run', a, actor);
        if (finished !== undefined) return finished;
        if (await tx.read(paths.runFile(runId))) throw new ToolError('conflict', `run ${runId} already exists but this requestId has no record of it; use a new requestId`, ['request_id_reused']);
        const now = this.now();
        const m = cmd.startRun(pinned, { inputs: a.inputs, mode: (a.mode as 'live' | 'test' | undefined) ?? 'live' }, actor, this.context(now), runId);
        m.applyDeadlines();
        m.settle();
        this.persist(tx, m, { run: m.state.run, steps: {}, leases: {} });
        const view = runView(m.state, pinned, now, this.fileUrl);
        this.record(tx, 'start_run', a, actor, view);
        return view;
      });
      return value;
    });
  }

  /** Writes on an existing run: claim, renew, submit, escalate, decide, cancel, send_event. */
  private async runWrite(tool: Tool, a: Record<string, unknown>, actor: Actor): Promise<unknown> {
    let runId: string;
    let claims: ReturnType<TokenKey['verify']> = null;
    if (tool === 'renew' || tool === 'submit' || tool === 'escalate') {
      claims = this.tokens.verify(a.token);
      if (!claims) {
        const prior = await this.replay(null, tool, a, actor);
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

  private async writeOnce(tool: Tool, runId: string, a: Record<string, unknown>, actor: Actor, claims: ReturnType<TokenKey['verify']>, check: CheckOutcome | undefined): Promise<unknown> {
    const { value } = await this.board.store.transact({ kind: 'run', id: runId }, async (tx) => {
      // Read the clock once the lock is held: a lease starts when its claim commits, not before a lock wait.
      const now = this.now();
      const prior = await this.replay(tx, tool, a, actor);
      if (prior !== undefined) return prior;
      const loaded = await this.assemble(runId, (rel) => tx.read(rel), (rel) => tx.readState(rel));
      const before = structuredClone(loaded.state);
      const m = new Machine(structuredClone(loaded.state), loaded.pinned, this.context(now));
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
          this.persist(tx, m, before);
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
      this.persist(tx, m, before);
      this.record(tx, tool, a, actor, data);
      return data;
    });
    // What this process read of the run is out of date now; the next read takes the new files.
    this.runCache.delete(runId);
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
      const loaded = await this.assemble(runId, (rel) => tx.read(rel), (rel) => tx.readState(rel));
      const before = structuredClone(loaded.state);
      const m = new Machine(structuredClone(loaded.state), loaded.pinned, this.context(now));
      m.applyDeadlines();
      if (m.events.length > 0) {
        m.state.run.updatedAt = now.toISOString();
        m.settle();
        this.persist(tx, m, before);
      }
      return { events: m.events, run: m.state.run, pinned: m.pinned, state: m.state };
    });
    return value;
  }

  /** The runs still open, as the index knows them. */
  async openRunIds(): Promise<string[]> {
    return (await this.index.summaries()).filter((r) => r.state !== 'ended' && r.state !== 'cancelled').map((r) => r.id);
  }

  /** When each open run's next deadline falls (ms since the epoch), as the files say now. */
  async deadlines(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const r of await this.index.summaries()) {
      if (r.state === 'ended' || r.state === 'cancelled') continue;
      try {
        const loaded = await this.readRun(r.id);
        // As stored: deadlines already past are exactly the ones still to write down.
        const d = new Machine(structuredClone(loaded.state), loaded.pinned, this.context(this.now())).nextDeadline();
        if (d) out.set(r.id, d.at);
      } catch {
        // a run that cannot be read now is looked at again on its next change
      }
    }
    return out;
  }

  private async apply(tool: Tool, m: Machine, a: Record<string, unknown>, actor: Actor, claims: ReturnType<TokenKey['verify']>, check: CheckOutcome | undefined): Promise<unknown> {
    // The view a write returns shows every transition it triggered, run state included (§4).
    const view = () => {
      m.settle();
      return runView(m.state, m.pinned, m.ctx.now, this.fileUrl);
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
        cmd.submit(m, claims!.stepId, claims!.claimId, a as Submission, actor, await this.fileChecks(a.evidence), check);
        return view();
      case 'escalate':
        cmd.escalate(m, claims!.stepId, claims!.claimId, a.note as string, actor);
        return view();
      case 'decide':
        cmd.decide(m, a as unknown as cmd.Decision, actor, this.board.manifest.groups, await this.fileChecks(a.evidence), check);
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

  // ---- files --------------------------------------------------------------------

  /** Verify every `file` evidence ref before the engine runs: it exists and its bytes still match (§5). */
  private async fileChecks(evidence: unknown): Promise<FileCheck> {
    const results = new Map<string, ReturnType<FileCheck>>();
    for (const item of Array.isArray(evidence) ? (evidence as { kind: string; ref: string }[]) : []) {
      if (item.kind !== 'file' || results.has(item.ref)) continue;
      results.set(item.ref, await this.checkFile(item.ref));
    }
    return (ref) => results.get(ref) ?? { ok: false, problem: 'not found' };
  }

  /**
   * A stored file still verifies when its bytes hash to what its id and its
   * meta.json both say: the id is the hash's prefix, so changing the bytes and
   * meta.json together is still caught.
   */
  private async checkFile(ref: string): Promise<ReturnType<FileCheck>> {
    if (!/^f-[0-9a-f]{32}$/.test(ref)) return { ok: false, problem: 'not found' };
    let meta: Buffer | null;
    let bytes: Buffer | null;
    try {
      meta = await this.board.store.readBytes(`files/${ref}/meta.json`);
      bytes = await this.board.store.readBytes(`files/${ref}/content`);
    } catch (e) {
      if (e instanceof BoardError) return { ok: false, problem: `${e.message}; an operator must restore it` };
      throw e;
    }
    if (!meta || !bytes) return { ok: false, problem: 'not found' };
    let recorded: unknown;
    try {
      recorded = (JSON.parse(meta.toString('utf8')) as { sha256?: unknown }).sha256;
    } catch {
      return { ok: false, problem: 'its meta.json is damaged (not JSON); an operator must restore it' };
    }
    const actual = sha256Hex(bytes);
    if (actual !== recorded || !ref.endsWith(actual.slice(0, 32))) return { ok: false, problem: 'stored bytes no longer match the hash recorded at upload' };
    return { ok: true, sha256: actual };
  }

  private async upload(a: Record<string, unknown>, actor: Actor) {
    const b64 = a.contentBase64 as string;
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) throw new ToolError('invalid', 'contentBase64 is not base64', ['contentBase64: not base64']);
    const bytes = Buffer.from(b64, 'base64');
    const max = this.board.manifest.settings.maxUploadBytes;
    if (bytes.length > max) throw new ToolError('invalid', `the file is ${bytes.length} bytes; the limit is ${max}`, [`contentBase64: ${bytes.length} bytes, over maxUploadBytes ${max}`]);
    const sha256 = sha256Hex(bytes);
    const id = `f-${sha256.slice(0, 32)}`;
    const { value } = await this.board.store.transact({ kind: 'board' }, async (tx) => {
      const prior = await this.replay(tx, 'upload', a, actor);
      if (prior !== undefined) return prior;
      const data = { id, sha256, bytes: bytes.length };
      if ((await readIfExists(this.board.store.abs(`files/${id}/meta.json`))) === null) {
        await tx.create(`files/${id}/content`, bytes);
        await tx.create(
          `files/${id}/meta.json`,
          `${JSON.stringify({ id, sha256, bytes: bytes.length, fileName: a.fileName, contentType: a.contentType, uploadedBy: actorName(actor), uploadedAt: this.now().toISOString() }, null, 2)}\n`,
        );
        tx.audit({ actor: actorName(actor), action: 'file.uploaded', entity: id, changes: { fileName: a.fileName, bytes: bytes.length, sha256 } });
      }
      this.record(tx, 'upload', a, actor, data);
      return data;
    });
    return value;
  }
}

/** Keyset paging: items sorted by key; the cursor is the last key returned. */
function page<T>(items: T[], key: (t: T) => string, limit: number, cursor?: string, descending = false): { items: T[]; nextCursor: string | null } {
  let start = 0;
  if (cursor !== undefined) {
    let after: string;
    try {
      after = Buffer.from(cursor, 'base64url').toString('utf8');
    } catch {
      throw new ToolError('invalid', 'the cursor is not one this server returned', ['cursor: unknown']);
    }
    start = items.findIndex((i) => (descending ? key(i) < after : key(i) > after));
    if (start < 0) start = items.length;
  }
  const slice = items.slice(start, start + limit);
  const more = start + limit < items.length;
  return { items: slice, nextCursor: more && slice.length > 0 ? Buffer.from(key(slice[slice.length - 1]!)).toString('base64url') : null };
}

function toError(e: ToolError | BoardError): ToolResult {
  if (e instanceof ToolError) return { ok: false, error: { code: e.code, message: e.message, ...(e.issues.length > 0 ? { issues: e.issues } : {}) } };
  if (e.code === 'busy') return { ok: false, error: { code: 'retry', message: e.message } };
  if (e.code === 'conflict') return { ok: false, error: { code: 'conflict', message: e.message, issues: e.issues.map(issueText) } };
  return { ok: false, error: { code: 'conflict', message: `${e.message}; an operator must fix the board (workboard doctor)`, issues: ['board_file_invalid', ...e.issues.map(issueText)] } };
}

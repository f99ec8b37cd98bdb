/**
 * How a run moves (docs/processes.md "How a run moves"): entering steps, completing them,
 * rework, waits, deadlines and the end of a run. A `Machine` works on a copy
 * of one run's state and collects the audit events of what it did.
 */
import { StepGraph, type BranchPlace } from '../process/graph.js';
import { durationMs, JOIN, type Step } from '../process/model.js';
import { isDateTime } from '../process/values.js';
import { sha256Hex } from '../core/hash.js';
import { SERVER, type ChildStart, type Context, type EngineEvent, type Lease, type Pinned, type RunState, type StepState } from './types.js';
import { followOnStarts, routeFor, subprocessStarts } from './children.js';
import { type Completion, type Escalation } from '../protocol/completions.js';

export function emptyStep(def: Step): StepState {
  return {
    id: def.id,
    kind: def.kind,
    state: null,
    readySince: null,
    due: null,
    overdue: false,
    workItem: null,
    decided: [],
    wakeAt: null,
    joined: [],
    handoff: null,
    escalation: null,
    current: null,
    history: [],
  };
}

/** Read a dotted path (`inputs.x`, `steps.s.output.f`) from run data. */
export function dataAt(state: RunState, path: string): unknown {
  const parts = path.split('.');
  if (parts[0] === 'inputs' && parts.length === 2) return own(state.run.inputs, parts[1]!);
  if (parts[0] === 'steps' && parts[2] === 'output' && parts.length === 4) {
    const out = state.steps[parts[1]!]?.current?.output;
    return out ? own(out, parts[3]!) : undefined;
  }
  return undefined;
}

function own(o: Record<string, unknown>, k: string): unknown {
  return Object.hasOwn(o, k) ? o[k] : undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class Machine {
  readonly events: EngineEvent[] = [];
  /** flow-1: the runs this change starts, recorded in its commit (docs/profile-flow-1.md "8. All or nothing"). */
  readonly starts: ChildStart[] = [];
  readonly defs: Map<string, Step>;
  private readonly graph: StepGraph;
  /** Where each branch step sits (docs/processes.md "Parallel branches (parallel-1)"), for joining. */
  private readonly branches: Map<string, BranchPlace>;
  /** The time transitions are stamped with; deadlines move it to when they fell due. */
  at: string;

  constructor(
    readonly state: RunState,
    readonly pinned: Pinned,
    readonly ctx: Context,
  ) {
    this.defs = new Map(pinned.process.steps.map((s) => [s.id, s]));
    this.graph = new StepGraph(pinned.process.steps);
    this.branches = this.graph.branches().place;
    this.at = ctx.now.toISOString();
  }

  get ended(): boolean {
    return this.state.run.state === 'ended' || this.state.run.state === 'cancelled';
  }

  def(id: string): Step {
    const d = this.defs.get(id);
    if (!d) throw new Error(`no step ${id} in ${this.pinned.process.name}`);
    return d;
  }

  step(id: string): StepState {
    let st = this.state.steps[id];
    if (!st) {
      st = emptyStep(this.def(id));
      this.state.steps[id] = st;
    }
    return st;
  }

  emit(action: string, actor: string, entity: string, changes?: Record<string, unknown>): void {
    this.events.push({ action, actor, entity, ...(changes ? { changes } : {}) });
  }

  private dueFrom(def: Step): string | null {
    return def.due ? iso(Date.parse(this.at) + durationMs(def.due)) : null;
  }

  /** Make a step current: ready, waiting, or done at once when nothing needs doing. */
  enter(id: string, handoff: StepState['handoff'] = null): void {
    if (this.ended) return;
    const def = this.def(id);
    const st = this.step(id);
    st.readySince = this.at;
    st.overdue = false;
    st.escalation = null;
    st.wakeAt = null;
    st.handoff = handoff;
    st.due = this.dueFrom(def);
    delete this.state.leases[id];
    switch (def.kind) {
      case 'agent':
        st.state = 'ready';
        this.emit('step.ready', SERVER, id);
        return;
      case 'task':
      case 'approve': {
        const problem = this.assigneeProblem(def);
        if (problem) {
          this.failByServer(id, problem);
          return;
        }
        st.state = 'waiting';
        st.workItem = this.workItemId(id);
        this.emit('work-item.opened', SERVER, id, { workItem: st.workItem });
        return;
      }
      case 'wait':
        st.state = 'waiting';
        st.due = null;
        st.wakeAt = iso(Date.parse(this.at) + durationMs(def.value));
        this.emit('step.waiting', SERVER, id, { until: st.wakeAt });
        return;
      case 'wait_until': {
        const v = dataAt(this.state, def.value);
        if (typeof v !== 'string' || !isDateTime(v)) {
          this.failByServer(id, `wait_until: ${def.value} is ${v === undefined ? 'missing' : 'not a datetime'}`);
          return;
        }
        st.due = null;
        if (Date.parse(v) <= Date.parse(this.at)) {
          this.complete(id, { by: SERVER, at: this.at });
          return;
        }
        st.state = 'waiting';
        st.wakeAt = iso(Date.parse(v));
        this.emit('step.waiting', SERVER, id, { until: st.wakeAt });
        return;
      }
      case 'wait_for': {
        st.due = null;
        const i = this.state.run.events.findIndex((e) => e.name === def.value);
        if (i >= 0) {
          const [ev] = this.state.run.events.splice(i, 1);
          this.emit('event.consumed', SERVER, id, { name: ev!.name });
          this.complete(id, { output: ev!.data ?? {}, by: ev!.by, at: this.at });
          return;
        }
        st.state = 'waiting';
        st.wakeAt = def.timeout ? iso(Date.parse(this.at) + durationMs(def.timeout)) : null;
        this.emit('step.waiting', SERVER, id, { event: def.value, ...(st.wakeAt ? { until: st.wakeAt } : {}) });
        return;
      }
      case 'finish':
        st.state = 'done';
        st.due = null;
        this.end('ended', def.value, { by: SERVER, at: this.at, note: null });
        return;
      case 'parallel':
        st.state = 'waiting';
        st.due = null;
        st.joined = [];
        this.emit('parallel.forked', SERVER, id, { branches: def.branches });
        for (const entry of def.branches ?? []) this.enter(entry);
        return;
      case 'subprocess': {
        const planned = subprocessStarts(this.state, def, this.ctx.newId);
        if ('problem' in planned) return this.failByServer(id, planned.problem);
        st.state = 'waiting';
        st.children = planned.starts.map((c) => c.run);
        this.starts.push(...planned.starts);
        this.emit('subprocess.started', SERVER, id, { process: def.value, runs: st.children });
        if (st.children.length === 0) this.complete(id, { output: { runs: [], outcomes: [], items: [] }, by: SERVER, at: this.at }, routeFor(def, 'done', false) ?? undefined);
        return;
      }
    }
  }

  /**
   * A work item's id, derived from the run, the step, the moment it opens and
   * how many items the step had before: the same on every read that applies
   * the same elapsed deadline, and on the write that finally records it.
   */
  workItemId(stepId: string): string {
    const st = this.step(stepId);
    const seed = `${this.state.run.id}|${stepId}|${this.at}|${st.decided.length}`;
    return `w-${sha256Hex(seed).slice(0, 26)}`;
  }

  /** Why a person step cannot be assigned, or null when it can (docs/processes.md "How a run moves"). */
  private assigneeProblem(def: Step): string | null {
    const p = def.person ?? '';
    if (p === 'initiator') return this.state.run.initiator ? null : 'person: initiator, but an agent started this run';
    if (p.includes('.')) {
      const v = dataAt(this.state, p);
      return typeof v === 'string' && v !== '' ? null : `person: ${p} resolves to nothing`;
    }
    return Object.hasOwn(this.pinned.roles, p) ? null : `person: role ${p} has no group`;
  }

  /** Record a completion and move on along `next` (or the chosen route). */
  complete(id: string, completion: Completion, chosen?: string): void {
    const def = this.def(id);
    const st = this.step(id);
    if (st.current) st.history.push(st.current);
    if (st.workItem) st.decided.push(st.workItem);
    st.current = completion;
    st.state = 'done';
    st.workItem = null;
    st.escalation = null;
    st.handoff = null;
    st.wakeAt = null;
    st.overdue = false;
    delete this.state.leases[id];
    const changes = { ...(completion.next ? { next: completion.next } : {}), ...(completion.note !== undefined ? { note: completion.note } : {}) };
    this.emit('step.completed', completion.by, id, Object.keys(changes).length > 0 ? changes : undefined);
    const target = Array.isArray(def.next) ? chosen : def.next;
    if (target === undefined || target === null) return;
    this.go(id, target);
  }

  /**
   * Hand a step to a person (docs/processes.md "How a run moves"; a check's unsure verdict): it waits on a new work
   * item for the operators; its claim and any open work item end.
   */
  escalate(id: string, escalation: Escalation): void {
    const st = this.step(id);
    delete this.state.leases[id];
    if (st.workItem) st.decided.push(st.workItem);
    st.state = 'waiting';
    st.workItem = this.workItemId(id);
    st.escalation = escalation;
    this.emit('step.escalated', escalation.by, id, {
      workItem: st.workItem,
      note: escalation.note,
      ...(escalation.check ? { check: escalation.check.verdict } : {}),
    });
  }

  /** Follow an edge: into a step, or `join` out of a branch. */
  go(from: string, target: string): void {
    if (target !== JOIN) {
      this.enter(target);
      return;
    }
    const b = this.branches.get(from);
    if (!b) return;
    const par = this.step(b.parallel);
    if (!par.joined.includes(b.entry)) par.joined.push(b.entry);
    this.emit('branch.joined', SERVER, b.parallel, { entry: b.entry });
    const all = this.def(b.parallel).branches ?? [];
    if (all.every((e) => par.joined.includes(e))) {
      par.state = 'done';
      this.emit('parallel.joined', SERVER, b.parallel);
      const next = this.def(b.parallel).next;
      if (typeof next === 'string') this.enter(next);
    }
  }

  /**
   * Rejection into `on_reject` (docs/processes.md "The choices we made", Rework): every step after the
   * returned-to step, other than the rejecting approval, moves its current
   * completion into history and becomes null; then the step is entered again.
   */
  rework(target: string, approval: string): void {
    const def = this.def(target);
    for (const id of this.graph.reworkRegion(target, approval)) {
      const st = this.state.steps[id];
      if (!st || (st.state === null && !st.current)) continue;
      if (st.current) st.history.push(st.current);
      if (st.workItem) st.decided.push(st.workItem);
      Object.assign(st, { current: null, state: null, workItem: null, escalation: null, handoff: null, wakeAt: null, due: null, overdue: false, readySince: null, joined: [] });
      delete this.state.leases[id];
      this.emit('step.rewound', SERVER, id);
    }
    const rejected = this.step(approval).current;
    const handoff = rejected?.note ? { returned: { note: rejected.note, by: rejected.by, at: rejected.at } } : null;
    this.enter(target, def.kind === 'parallel' ? null : handoff);
  }

  /** A server-side failure of a step (docs/processes.md "How a run moves"): the step fails with a note and the run ends `failed`. */
  failByServer(id: string, note: string): void {
    const st = this.step(id);
    if (st.current) st.history.push(st.current);
    st.current = { decision: 'failed', note, by: SERVER, at: this.at };
    st.state = 'failed';
    this.emit('step.failed', SERVER, id, { note });
    this.end('ended', 'failed', { by: SERVER, at: this.at, note });
  }

  /** End or cancel the run: every unfinished step cancelled, work items gone, leases dead, held events dropped. */
  end(state: 'ended' | 'cancelled', outcome: string | null, ended: { by: string; at: string; note: string | null }): void {
    const run = this.state.run;
    run.state = state;
    run.outcome = outcome;
    run.ended = ended;
    for (const st of Object.values(this.state.steps)) {
      if (st.state === 'ready' || st.state === 'waiting') {
        st.state = 'cancelled';
        if (st.workItem) st.decided.push(st.workItem);
        st.workItem = null;
        st.wakeAt = null;
      }
    }
    this.state.leases = {};
    run.events = [];
    this.emit(state === 'cancelled' ? 'run.cancelled' : 'run.ended', ended.by, `run:${run.id}`, { outcome, note: ended.note });
    const follow = state === 'ended' ? followOnStarts(this.state, this.pinned.process.flow?.followOn ?? [], outcome, this.ctx.newId) : [];
    if (follow.length === 0) return;
    run.followOns = follow.map((c) => c.run);
    this.starts.push(...follow);
    this.emit('run.followed-on', SERVER, `run:${run.id}`, { runs: run.followOns, processes: follow.map((c) => c.process) });
  }

  /**
   * Apply every deadline that has passed, oldest first, each at its own time:
   * lease expiry, waits, wait_for timeouts, `due` becoming overdue. Whoever
   * touches the run applies them, so nothing depends on a daemon being up.
   */
  applyDeadlines(): void {
    const now = Date.parse(this.ctx.now.toISOString());
    for (let guard = 0; guard < 10_000 && !this.ended; guard++) {
      const next = this.nextDeadline();
      if (!next || next.at > now) break;
      this.at = iso(next.at);
      next.apply();
    }
    this.at = this.ctx.now.toISOString();
  }

  /** End a claim (its lease expired, or its agent was removed): the step is ready again, its handoff carrying the claim's progress and refused issues. */
  endLease(lease: Lease, action: string, actor: string, changes: Record<string, unknown>): void {
    delete this.state.leases[lease.stepId];
    const st = this.step(lease.stepId);
    if (lease.progress) st.handoff = { ...(st.handoff ?? {}), progress: lease.progress };
    if (lease.issues) st.handoff = { ...(st.handoff ?? {}), issues: lease.issues };
    this.emit(action, actor, lease.stepId, changes);
  }

  /** The earliest pending deadline, with what happens when it passes. */
  nextDeadline(): { at: number; apply: () => void } | null {
    let best: { at: number; apply: () => void } | null = null;
    const offer = (at: string | null | undefined, apply: () => void) => {
      if (!at) return;
      const t = Date.parse(at);
      if (!best || t < best.at) best = { at: t, apply };
    };
    for (const lease of Object.values(this.state.leases)) {
      offer(lease.expiresAt, () => this.endLease(lease, 'lease.expired', SERVER, { agent: lease.agent }));
    }
    for (const st of Object.values(this.state.steps)) {
      if (st.state === 'waiting' && st.wakeAt) {
        const def = this.def(st.id);
        offer(st.wakeAt, () => {
          st.wakeAt = null;
          if (def.kind === 'wait_for') {
            this.emit('wait.timed-out', SERVER, st.id);
            const target = def.onTimeout ?? (typeof def.next === 'string' ? def.next : undefined);
            if (st.current) st.history.push(st.current);
            st.current = { by: SERVER, at: this.at };
            st.state = 'done';
            if (target) this.go(st.id, target);
          } else this.complete(st.id, { by: SERVER, at: this.at });
        });
      }
      if ((st.state === 'ready' || st.state === 'waiting') && st.due && !st.overdue) {
        offer(st.due, () => {
          st.overdue = true;
          this.emit('step.overdue', SERVER, st.id, { due: st.due });
        });
      }
    }
    return best;
  }

  /** docs/processes.md "How a run moves": active while any step is ready or claimed; waiting when everything open waits on people, timers or events. */
  settle(): void {
    const run = this.state.run;
    if (this.ended) return;
    const anyReady = Object.values(this.state.steps).some((s) => s.state === 'ready');
    run.state = anyReady ? 'active' : 'waiting';
  }
}

/**
 * The Insights figures: given every run's facts, the process versions they
 * pinned, a filter and the moment `now`, what `workboard stats --json` prints
 * and the Insights page draws. The exact definitions are in docs/insights.md.
 * Pure: no clock, no files.
 */
import { durationMs, type Process, type StepKind } from '../process/model.js';
import type { RunFacts, Visit, WaitFor } from './facts.js';
import { childFigures, type ChildFigures } from './children.js';
import { DAY, periodsBetween, spread, unitFor, type Spread } from './time.js';

export type Mode = 'live' | 'test';

export interface InsightsFilter {
  process?: string;
  version?: number;
  /** Runs started at or after this instant (ISO). */
  since?: string;
  /** Runs started before this instant (ISO). */
  until?: string;
  modes: readonly Mode[];
}

/** The process versions runs pinned, by `name@version`. */
export type Versions = ReadonlyMap<string, Pick<Process, 'steps'>>;

export const versionKey = (process: string, version: number): string => `${process}@${version}`;

export interface PeriodFigures {
  /** `2026-W49`, `2026-11`, `2026-Q4`, `2026` or `2000–2099` (time.ts). */
  period: string;
  /** The day it starts on, UTC. */
  from: string;
  started: number;
  /** Runs that ended in it, by outcome. */
  ended: Record<string, number>;
  /** Step visits whose due time fell in it before they were done. */
  overdue: number;
}

export interface StepFigures {
  process: string;
  step: string;
  kind: StepKind | null;
  visits: number;
  /** Visits ended by a completion, rejection, failure or time-out: their wall and waiting times. */
  wall: Spread;
  waiting: Spread;
  /** Waiting in every visit, open ones up to now. */
  waitingForAgentsMs: number;
  waitingForPeopleMs: number;
  waitingForTimersMs: number;
  /** Visits waiting now (open runs only). */
  waitingNow: number;
  overdueNow: number;
}

export interface ReworkFigures {
  process: string;
  step: string;
  rejections: number;
  runs: number;
  /** The most frequent notes (exact text, trimmed), at most three, most frequent first. */
  topNotes: { note: string; count: number }[];
}

export interface AgentFigures {
  agent: string;
  escalations: number;
  /** Of them, held by a check that was unsure. */
  checkEscalations: number;
  returns: number;
  leaseExpiries: number;
}

export interface CheckFigures {
  process: string;
  step: string;
  pass: number;
  fail: number;
  unsure: number;
}

export interface Insights {
  now: string;
  filter: { process: string | null; version: number | null; since: string | null; until: string | null; modes: Mode[] };
  runs: { started: number; ended: number; open: number; byOutcome: Record<string, number>; cycle: Spread };
  /** What the periods are: `week` unless the runs' times span more than MAX_PERIODS weeks (time.ts). */
  per: string;
  periods: PeriodFigures[];
  steps: StepFigures[];
  waiting: { agentsMs: number; peopleMs: number; timersMs: number };
  rework: ReworkFigures[];
  agents: AgentFigures[];
  leaseExpiries: number;
  overdueNow: number;
  checks: CheckFigures[];
  /** flow-1: the runs the selected runs started, under their parent; only when some did. */
  children?: ChildFigures[];
}

/** The test of whether a run is one the filter asks for. */
export function selecting(f: InsightsFilter): (run: Pick<RunFacts, 'process' | 'version' | 'mode' | 'startedAt'>) => boolean {
  const since = f.since === undefined ? -Infinity : Date.parse(f.since);
  const until = f.until === undefined ? Infinity : Date.parse(f.until);
  return (run) =>
    f.modes.includes(run.mode) && (f.process === undefined || run.process === f.process) && (f.version === undefined || run.version === f.version) && run.startedAt >= since && run.startedAt < until;
}

export interface StepDef {
  kind: StepKind;
  dueMs: number | null;
  checked: boolean;
}

/** Each version's steps as the figures need them, by `name@version` then step id. */
export function stepDefs(versions: Versions): Map<string, Map<string, StepDef>> {
  const out = new Map<string, Map<string, StepDef>>();
  for (const [key, p] of versions) out.set(key, new Map(p.steps.map((s) => [s.id, { kind: s.kind, dueMs: s.due ? durationMs(s.due) : null, checked: (s.check?.length ?? 0) > 0 }])));
  return out;
}

/** When a visit stopped counting: its end, its run's end, or now. */
const visitEnd = (v: Visit, run: RunFacts, now: number): number => v.doneAt ?? run.endedAt ?? now;

/** Milliseconds a visit waited, by whom it waited for. */
export function waitedMs(v: Visit, run: RunFacts, now: number): Record<WaitFor, number> {
  const out: Record<WaitFor, number> = { agent: 0, person: 0, timer: 0 };
  const end = visitEnd(v, run, now);
  for (const w of v.waits) out[w.for] += Math.max(0, (w.to ?? end) - w.from);
  return out;
}

/** The moment a visit fell overdue, or null: its due time (entry plus the step's `due`) passed before it was done. */
export function overdueAt(v: Visit, run: RunFacts, def: StepDef | undefined, now: number): number | null {
  if (!def?.dueMs) return null;
  const due = v.enteredAt + def.dueMs;
  return due < visitEnd(v, run, now) ? due : null;
}

const isOpen = (v: Visit, run: RunFacts) => v.doneAt === null && run.endedAt === null;
const isPerson = (identity: string) => identity.includes('@');
const stepKey = (process: string, step: string) => `${process}\u0000${step}`;
const bump = (r: Record<string, number>, k: string, n = 1) => void (r[k] = (r[k] ?? 0) + n);
const sortedBy = <T>(xs: T[], key: (x: T) => string): T[] => xs.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

interface Counts {
  started: number;
  ended: Record<string, number>;
  overdue: number;
}

function counts<K>(m: Map<K, Counts>, k: K): Counts {
  let e = m.get(k);
  if (!e) m.set(k, (e = { started: 0, ended: {}, overdue: 0 }));
  return e;
}

export function insights(all: readonly RunFacts[], versions: Versions, filter: InsightsFilter, nowIso: string): Insights {
  const now = Date.parse(nowIso);
  const defs = stepDefs(versions);
  const runs = all.filter(selecting(filter));
  const byOutcome: Record<string, number> = {};
  const cycles: number[] = [];
  const steps = new Map<string, { f: StepFigures; wall: number[]; waiting: number[] }>();
  const rework = new Map<string, { f: ReworkFigures; runs: Set<string>; notes: Map<string, number> }>();
  const agents = new Map<string, AgentFigures>();
  const checks = new Map<string, CheckFigures>();
  // Counted by UTC day first (as many as there are days with something in them); the periods are chosen from the span after.
  const daily = new Map<number, Counts>();
  const day = (ms: number) => counts(daily, Math.floor(ms / DAY));
  const agent = (id: string) => {
    let a = agents.get(id);
    if (!a) agents.set(id, (a = { agent: id, escalations: 0, checkEscalations: 0, returns: 0, leaseExpiries: 0 }));
    return a;
  };
  const check = (process: string, step: string) => {
    const k = stepKey(process, step);
    let c = checks.get(k);
    if (!c) checks.set(k, (c = { process, step, pass: 0, fail: 0, unsure: 0 }));
    return c;
  };
  const span = { from: Infinity, to: -Infinity };
  const see = (ms: number) => {
    if (!Number.isFinite(ms)) return;
    span.from = Math.min(span.from, ms);
    span.to = Math.max(span.to, ms);
  };
  let ended = 0;
  let leaseExpiries = 0;
  const waiting = { agentsMs: 0, peopleMs: 0, timersMs: 0 };

  for (const run of runs) {
    const started = run.startedAt;
    see(started);
    day(started).started++;
    if (run.endedAt !== null) {
      const end = run.endedAt;
      see(end);
      ended++;
      const outcome = run.outcome ?? 'ended';
      bump(byOutcome, outcome);
      bump(day(end).ended, outcome);
      cycles.push(end - started);
    }
    const runDefs = defs.get(versionKey(run.process, run.version));
    for (const v of run.visits) {
      const k = stepKey(run.process, v.step);
      let s = steps.get(k);
      const def = runDefs?.get(v.step);
      if (!s) {
        const f: StepFigures = {
          process: run.process,
          step: v.step,
          kind: def?.kind ?? null,
          visits: 0,
          wall: spread([]),
          waiting: spread([]),
          waitingForAgentsMs: 0,
          waitingForPeopleMs: 0,
          waitingForTimersMs: 0,
          waitingNow: 0,
          overdueNow: 0,
        };
        steps.set(k, (s = { f, wall: [], waiting: [] }));
      }
      s.f.visits++;
      const w = waitedMs(v, run, now);
      s.f.waitingForAgentsMs += w.agent;
      s.f.waitingForPeopleMs += w.person;
      s.f.waitingForTimersMs += w.timer;
      waiting.agentsMs += w.agent;
      waiting.peopleMs += w.person;
      waiting.timersMs += w.timer;
      if (v.doneAt !== null) {
        s.wall.push(v.doneAt - v.enteredAt);
        s.waiting.push(w.agent + w.person + w.timer);
        if (def?.checked && v.outcome === 'completed' && v.by !== null && !isPerson(v.by)) check(run.process, v.step).pass++;
      }
      const open = isOpen(v, run);
      if (open && v.waits.some((x) => x.to === null)) s.f.waitingNow++;
      const late = overdueAt(v, run, def, now);
      if (late !== null) {
        see(late);
        day(late).overdue++;
        if (open) s.f.overdueNow++;
      }
    }
    for (const r of run.rejections) {
      const k = stepKey(run.process, r.step);
      let e = rework.get(k);
      if (!e) rework.set(k, (e = { f: { process: run.process, step: r.step, rejections: 0, runs: 0, topNotes: [] }, runs: new Set(), notes: new Map() }));
      e.f.rejections++;
      e.runs.add(run.id);
      const note = r.note.trim();
      if (note !== '') e.notes.set(note, (e.notes.get(note) ?? 0) + 1);
    }
    for (const e of run.escalations) {
      const a = agent(e.agent);
      a.escalations++;
      if (e.check) a.checkEscalations++;
    }
    for (const r of run.returns) agent(r.agent).returns++;
    for (const x of run.leaseExpiries) {
      agent(x.agent).leaseExpiries++;
      leaseExpiries++;
    }
    for (const c of run.checks) check(run.process, c.step)[c.verdict]++;
  }

  const unit = unitFor(span.from, span.to);
  const byPeriod = new Map<number, Counts>();
  for (const [day, e] of daily) {
    const p = counts(byPeriod, unit.index(day * DAY));
    p.started += e.started;
    p.overdue += e.overdue;
    for (const [o, n] of Object.entries(e.ended)) bump(p.ended, o, n);
  }
  const periods: PeriodFigures[] =
    span.from <= span.to
      ? periodsBetween(unit, span.from, span.to).map(({ index, period, from }) => {
          const e = byPeriod.get(index);
          return { period, from, started: e?.started ?? 0, ended: e?.ended ?? {}, overdue: e?.overdue ?? 0 };
        })
      : [];
  const stepRows = sortedBy([...steps.entries()], ([k]) => k).map(([, s]) => ({ ...s.f, wall: spread(s.wall), waiting: spread(s.waiting) }));
  const reworkRows = sortedBy([...rework.entries()], ([k]) => k).map(([, e]) => ({
    ...e.f,
    runs: e.runs.size,
    topNotes: [...e.notes.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 3)
      .map(([note, count]) => ({ note, count })),
  }));
  const children = childFigures(runs, all);
  return {
    now: nowIso,
    filter: { process: filter.process ?? null, version: filter.version ?? null, since: filter.since ?? null, until: filter.until ?? null, modes: [...filter.modes] },
    runs: { started: runs.length, ended, open: runs.length - ended, byOutcome, cycle: spread(cycles) },
    per: unit.per,
    periods,
    steps: stepRows,
    waiting,
    rework: reworkRows,
    agents: sortedBy([...agents.values()], (a) => a.agent),
    leaseExpiries,
    overdueNow: stepRows.reduce((n, s) => n + s.overdueNow, 0),
    checks: sortedBy([...checks.entries()], ([k]) => k).map(([, c]) => c),
    ...(children.length > 0 ? { children } : {}),
  };
}

/**
 * One run's history, reduced from its audit lines to what the figures count:
 * each visit of a step (entered, done, and the stretches it waited and for
 * whom), rejections, escalations, returns, lease expiries and check verdicts.
 * It depends on the run's lines alone (no clock, no process), so a shell may
 * keep it for as long as the chain is unchanged. Pure.
 */

/** An audit line as far as the figures read it. */
export interface HistoryLine {
  ts: string;
  actor: string;
  action: string;
  entity: string;
  changes?: Record<string, unknown>;
}

/** Who a stretch of waiting waits for: an agent to claim, a person to decide, or a timer or event. */
export type WaitFor = 'agent' | 'person' | 'timer';

/** Times are milliseconds since the epoch, as the audit lines' `ts` say them. */
export interface Wait {
  for: WaitFor;
  from: number;
  /** When the wait ended; null while it goes on. */
  to: number | null;
}

export interface Visit {
  step: string;
  enteredAt: number;
  /** When the visit ended with a completion, a rejection or a failure; null while open or when the run ended around it. */
  doneAt: number | null;
  outcome: 'completed' | 'rejected' | 'failed' | 'timed-out' | null;
  /** Who completed it (an agent's id or a person's email). */
  by: string | null;
  waits: Wait[];
}

export interface RunFacts {
  id: string;
  process: string;
  version: number;
  mode: 'live' | 'test';
  startedAt: number;
  endedAt: number | null;
  /** The outcome a finish or a decision gave, or `cancelled`. */
  outcome: string | null;
  visits: Visit[];
  rejections: { step: string; by: string; at: number; note: string }[];
  escalations: { step: string; agent: string; at: number; check: boolean }[];
  /** An escalation sent back to the agent that raised it. */
  returns: { step: string; agent: string; at: number }[];
  leaseExpiries: { step: string; agent: string; at: number }[];
  /** Submissions a check refused (fail) or held for a person (unsure); a pass is a completion of a checked step. */
  checks: { step: string; verdict: 'fail' | 'unsure'; at: number }[];
  /** flow-1: the runs this run started, each with its process and the subprocess step that started it (null: a follow-on run). */
  started: { step: string | null; process: string; run: string }[];
}

/** A run's facts before any of its lines but the start are read: who it is, with every list empty (`visits` aside, when known). */
export function newFacts(head: Omit<RunFacts, 'visits' | 'rejections' | 'escalations' | 'returns' | 'leaseExpiries' | 'checks' | 'started'>, visits: Visit[] = []): RunFacts {
  return { ...head, visits, rejections: [], escalations: [], returns: [], leaseExpiries: [], checks: [], started: [] };
}

const isPerson = (identity: string): boolean => identity.includes('@');
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The step a line is about: `r-…/<step>`, or null for the run's own lines. */
function stepOf(entity: string): string | null {
  const slash = entity.indexOf('/');
  return entity.startsWith('run:') || slash < 0 ? null : entity.slice(slash + 1);
}

/** A run's facts from its chain, oldest line first; null when the chain does not start a run. */
export function runFacts(id: string, lines: readonly HistoryLine[]): RunFacts | null {
  const start = lines.find((l) => l.action === 'run.started');
  if (!start) return null;
  const c = start.changes ?? {};
  const facts = newFacts({
    id,
    process: text(c.process),
    version: typeof c.version === 'number' ? c.version : 0,
    mode: c.mode === 'test' ? 'test' : 'live',
    startedAt: Date.parse(start.ts),
    endedAt: null,
    outcome: null,
  });
  const open = new Map<string, Visit>();
  const escalatedBy = new Map<string, string>();
  const stopWaiting = (v: Visit, at: number) => {
    const w = v.waits[v.waits.length - 1];
    if (w && w.to === null) w.to = at;
  };
  const waitFor = (v: Visit, f: WaitFor, at: number) => {
    stopWaiting(v, at);
    v.waits.push({ for: f, from: at, to: null });
  };
  const enter = (step: string, f: WaitFor, at: number) => {
    const before = open.get(step);
    if (before) stopWaiting(before, at);
    const v: Visit = { step, enteredAt: at, doneAt: null, outcome: null, by: null, waits: [{ for: f, from: at, to: null }] };
    facts.visits.push(v);
    open.set(step, v);
  };
  const finish = (step: string, outcome: NonNullable<Visit['outcome']>, by: string, at: number) => {
    const v = open.get(step);
    if (!v) return;
    stopWaiting(v, at);
    Object.assign(v, { doneAt: at, outcome, by });
    open.delete(step);
  };

  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  for (const l of lines) {
    const step = stepOf(l.entity);
    const at = Date.parse(l.ts);
    const ch = l.changes ?? {};
    if (l.action === 'subprocess.started' && step !== null) for (const run of strings(ch.runs)) facts.started.push({ step, process: text(ch.process), run });
    if (l.action === 'run.followed-on') strings(ch.runs).forEach((run, i) => facts.started.push({ step: null, process: strings(ch.processes)[i] ?? '', run }));
    if (step === null) {
      if (l.action === 'run.ended' || l.action === 'run.cancelled') {
        facts.endedAt = at;
        facts.outcome = l.action === 'run.cancelled' ? 'cancelled' : text(ch.outcome) || null;
        for (const v of open.values()) stopWaiting(v, at);
        open.clear();
      }
      continue;
    }
    const v = open.get(step);
    switch (l.action) {
      case 'step.ready':
        enter(step, 'agent', at);
        break;
      case 'work-item.opened':
        enter(step, 'person', at);
        break;
      case 'step.waiting':
        enter(step, 'timer', at);
        break;
      case 'step.claimed':
        if (v) stopWaiting(v, at);
        break;
      case 'lease.expired':
      case 'claim.ended':
        if (l.action === 'lease.expired') facts.leaseExpiries.push({ step, agent: text(ch.agent), at: at });
        if (v) waitFor(v, 'agent', at);
        break;
      case 'step.escalated':
        facts.escalations.push({ step, agent: l.actor, at: at, check: ch.check !== undefined });
        if (ch.check !== undefined) facts.checks.push({ step, verdict: 'unsure', at: at });
        escalatedBy.set(step, l.actor);
        if (v) waitFor(v, 'person', at);
        break;
      case 'step.returned': {
        const agent = escalatedBy.get(step);
        if (agent !== undefined && !isPerson(agent)) facts.returns.push({ step, agent, at: at });
        if (v) waitFor(v, ch.workItem === undefined ? 'agent' : 'person', at);
        break;
      }
      case 'step.check-failed':
        facts.checks.push({ step, verdict: 'fail', at: at });
        break;
      case 'step.completed':
        finish(step, 'completed', l.actor, at);
        break;
      case 'step.rejected':
        facts.rejections.push({ step, by: l.actor, at: at, note: text(ch.note) });
        finish(step, 'rejected', l.actor, at);
        break;
      case 'step.failed':
        finish(step, 'failed', l.actor, at);
        break;
      case 'wait.timed-out':
        finish(step, 'timed-out', l.actor, at);
        break;
      case 'step.rewound':
        if (v) stopWaiting(v, at);
        open.delete(step);
        break;
    }
  }
  return facts;
}

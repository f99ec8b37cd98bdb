/**
 * WORK.md's `reminders`: the reminder and escalation ladders of open work
 * items, per process and step, with the board's quiet hours and working days
 * (docs/operators.md "Reminders and escalation ladders"). Read here into plain
 * values; what falls due when is notify/ladder.ts's, pure.
 */
import type { Issue } from '../core/issues.js';

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** One ladder, spans in ms. `to` of escalate: a group, "operators", or a person's email. */
export interface Ladder {
  before: number[];
  after: { every: number; times: number } | null;
  escalate: { after: number; to: string } | null;
  owner: { after: number; to: string } | null;
}

export interface Reminders {
  /** Minutes since local midnight, [from, to): a span across midnight has from > to. */
  quietHours: { from: number; to: number } | null;
  workingDays: Weekday[];
  /** By process name: its ladder, and its steps' own. */
  ladders: Record<string, { ladder: Ladder; steps: Record<string, Ladder> }>;
}

export const NO_REMINDERS: Reminders = { quietHours: null, workingDays: [...WEEKDAYS], ladders: {} };

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "30m", "4h", "2d" in ms (the schema checked the shape). */
export function spanMs(span: string): number {
  const m = /^(\d+)([smhd])$/.exec(span);
  const unit = m ? UNIT_MS[m[2] ?? ''] : undefined;
  return m && unit ? Number(m[1]) * unit : NaN;
}

const clock = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

interface LadderData {
  before?: string[];
  after?: { every: string; times?: number };
  escalate?: { after: string; to: string };
  owner?: { after: string; to: string };
  steps?: Record<string, LadderData>;
}

interface RemindersData {
  quietHours?: string;
  workingDays?: Weekday[];
  ladders?: Record<string, LadderData>;
}

function ladderFrom(d: LadderData): Ladder {
  return {
    before: (d.before ?? []).map(spanMs),
    after: d.after ? { every: spanMs(d.after.every), times: d.after.times ?? 1 } : null,
    escalate: d.escalate ? { after: spanMs(d.escalate.after), to: d.escalate.to } : null,
    owner: d.owner ? { after: spanMs(d.owner.after), to: d.owner.to } : null,
  };
}

/** WORK.md's `reminders` (already checked against the schema) as values. */
export function remindersFrom(data: unknown): Reminders {
  if (typeof data !== 'object' || data === null) return NO_REMINDERS;
  const d = data as RemindersData;
  const q = d.quietHours ? { from: clock(d.quietHours.slice(0, 5)), to: clock(d.quietHours.slice(6, 11)) } : null;
  const ladders: Reminders['ladders'] = {};
  for (const [process, l] of Object.entries(d.ladders ?? {})) {
    ladders[process] = { ladder: ladderFrom(l), steps: Object.fromEntries(Object.entries(l.steps ?? {}).map(([s, x]) => [s, ladderFrom(x)])) };
  }
  return { quietHours: q && q.from !== q.to ? q : null, workingDays: d.workingDays ?? [...WEEKDAYS], ladders };
}

/** The ladder of a step of a process: the step's own, else the process's, else none. */
export function ladderOf(r: Reminders, process: string, step: string): Ladder | null {
  const p = r.ladders[process];
  return p ? (p.steps[step] ?? p.ladder) : null;
}

/**
 * What the schema cannot tell: every ladder's `escalate.to` names a group of
 * this file or "operators" (or a declared person), and `owner.to` a declared person.
 */
export function reminderIssues(data: Record<string, unknown>): Issue[] {
  const r = data.reminders as RemindersData | undefined;
  if (!r || typeof r !== 'object') return [];
  const groups = new Set(Object.keys((data.groups as Record<string, unknown> | undefined) ?? {}));
  const people = new Set(((data.people as { email?: unknown }[] | undefined) ?? []).map((p) => (typeof p.email === 'string' ? p.email.toLowerCase() : '')));
  const out: Issue[] = [];
  const check = (l: LadderData, at: string) => {
    const esc = l.escalate?.to;
    if (typeof esc === 'string' && esc !== 'operators' && !groups.has(esc) && !people.has(esc.toLowerCase())) {
      out.push({ path: `${at}.escalate.to`, message: `"${esc}" is no group of this board, no person and not "operators"` });
    }
    const owner = l.owner?.to;
    if (typeof owner === 'string' && !people.has(owner.toLowerCase())) out.push({ path: `${at}.owner.to`, message: `"${owner}" is no person of this board (people:)` });
  };
  for (const [process, l] of Object.entries(r.ladders ?? {})) {
    if (typeof l !== 'object' || l === null) continue;
    check(l, `reminders.ladders.${process}`);
    for (const [step, s] of Object.entries(l.steps ?? {})) if (typeof s === 'object' && s !== null) check(s, `reminders.ladders.${process}.steps.${step}`);
  }
  return out;
}

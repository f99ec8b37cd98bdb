/**
 * The runs behind one bar of a chart, so every bar can link to them: a bar
 * is named by plain query parameters (`bar=started&period=2026-W49`), parsed
 * here with every problem named at once. Pure.
 */
import type { RunFacts } from './facts.js';
import { overdueAt, selecting, stepDefs, versionKey, waitedMs, type InsightsFilter, type StepDef, type Versions } from './figures.js';
import { inPeriod, unitOfLabel } from './time.js';

export type Bar =
  | { bar: 'started'; period: string }
  | { bar: 'ended'; period: string; outcome: string }
  | { bar: 'overdue'; period: string }
  | { bar: 'step'; process: string; step: string }
  | { bar: 'waiting'; process: string; step: string; for: 'agent' | 'person' | 'timer' }
  | { bar: 'rework'; process: string; step: string }
  | { bar: 'agent'; agent: string };

/** The query parameters that name a bar, in the order a link writes them. */
export function barParams(b: Bar): [string, string][] {
  return Object.entries(b).map(([k, v]) => [k, String(v)]);
}

const FIELDS: Record<Bar['bar'], string[]> = {
  started: ['period'],
  ended: ['period', 'outcome'],
  overdue: ['period'],
  step: ['process', 'step'],
  waiting: ['process', 'step', 'for'],
  rework: ['process', 'step'],
  agent: ['agent'],
};

export function parseBar(get: (name: string) => string | null): { ok: true; bar: Bar } | { ok: false; issues: string[] } {
  const kind = get('bar');
  if (kind === null || !Object.hasOwn(FIELDS, kind)) return { ok: false, issues: [`bar: one of ${Object.keys(FIELDS).join(', ')}`] };
  const issues: string[] = [];
  const out: Record<string, string> = { bar: kind };
  for (const f of FIELDS[kind as Bar['bar']]) {
    const v = get(f)?.trim() ?? '';
    if (v === '') issues.push(`${f}: required for this bar`);
    else if (f === 'period' && unitOfLabel(v) === null) issues.push(`period: ${v} is not a period such as 2026-W49, 2026-11, 2026-Q4, 2026 or 2000–2099`);
    else if (f === 'for' && !['agent', 'person', 'timer'].includes(v)) issues.push('for: one of agent, person, timer');
    out[f] = v;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, bar: out as unknown as Bar };
}

/** Whether the run counts in the bar. */
function behind(b: Bar, run: RunFacts, defs: ReadonlyMap<string, ReadonlyMap<string, StepDef>>, now: number): boolean {
  switch (b.bar) {
    case 'started':
      return inPeriod(run.startedAt, b.period);
    case 'ended':
      return run.endedAt !== null && inPeriod(run.endedAt, b.period) && (run.outcome ?? 'ended') === b.outcome;
    case 'overdue': {
      const steps = defs.get(versionKey(run.process, run.version));
      return run.visits.some((v) => {
        const at = overdueAt(v, run, steps?.get(v.step), now);
        return at !== null && inPeriod(at, b.period);
      });
    }
    case 'step':
      return run.process === b.process && run.visits.some((v) => v.step === b.step && v.doneAt !== null);
    case 'waiting':
      return run.process === b.process && run.visits.some((v) => v.step === b.step && waitedMs(v, run, now)[b.for] > 0);
    case 'rework':
      return run.process === b.process && run.rejections.some((r) => r.step === b.step);
    case 'agent':
      return [...run.escalations, ...run.returns, ...run.leaseExpiries].some((e) => e.agent === b.agent);
  }
}

/** The ids of the selected runs behind a bar, newest first. */
export function runsBehind(all: readonly RunFacts[], versions: Versions, filter: InsightsFilter, nowIso: string, b: Bar): string[] {
  const now = Date.parse(nowIso);
  const defs = stepDefs(versions);
  const chosen = selecting(filter);
  return all
    .filter((r) => chosen(r) && behind(b, r, defs, now))
    .map((r) => r.id)
    .sort()
    .reverse();
}

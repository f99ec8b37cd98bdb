/**
 * The Insights core without disk: audit lines written by hand, the facts and
 * figures they must give worked out by hand; ISO weeks at year ends; the
 * filter and a bar's parameters with every problem named at once.
 */
import { describe, expect, it } from 'vitest';
import { parseBar, runsBehind } from '../../src/insights/bars.js';
import { runFacts, type HistoryLine } from '../../src/insights/facts.js';
import { insights, versionKey } from '../../src/insights/figures.js';
import { parseFilter } from '../../src/insights/filter.js';
import { pack, unpack } from '../../src/insights/packed.js';
import { durationText } from '../../src/insights/labels.js';
import { isoWeek, MAX_PERIODS, periodsBetween, spread, unitFor } from '../../src/insights/time.js';
import type { Process } from '../../src/process/model.js';

const RUN = 'r-01kbd0000000000000000000aa';
const at = (min: number) => new Date(Date.UTC(2026, 10, 30, 9, 0) + min * 60_000).toISOString(); // Monday 2026-11-30 09:00Z
const line = (min: number, actor: string, action: string, step: string | null, changes?: Record<string, unknown>): HistoryLine => ({
  ts: at(min),
  actor,
  action,
  entity: step === null ? `run:${RUN}` : `${RUN}/${step}`,
  ...(changes ? { changes } : {}),
});

const CHECKED: Pick<Process, 'steps'> = {
  steps: [
    { id: 'draft', kind: 'agent', value: 'Draft it.', next: 'wait_a_day', check: [{ kind: 'yes_no', ask: 'Is it complete?' }] },
    { id: 'wait_a_day', kind: 'wait', value: '1d', next: 'sign' },
    { id: 'sign', kind: 'approve', value: 'Sign it.', next: 'done', due: '1h', onReject: 'draft' },
    { id: 'done', kind: 'finish', value: 'done', next: null },
  ],
};
const versions = new Map([[versionKey('contract', 1), CHECKED]]);

/** A run: the draft waits 10 min, a check fails once, a check is unsure (held 20 min for the operators), returned,
 * claimed after 5 more, the claim lapses and is claimed again 2 min after the expiry line, then it passes; a timer
 * waits 60 min; the signature is rejected after 90 min (past its 1 h due), the draft is redone (5 min waiting,
 * 5 working) and signed after 30 min. */
const LINES: HistoryLine[] = [
  line(0, 'ana@example.com', 'run.started', null, { process: 'contract', version: 1, mode: 'live' }),
  line(0, 'server', 'step.ready', 'draft'),
  line(10, 'bot', 'step.claimed', 'draft', { expiresAt: at(20) }),
  line(12, 'bot', 'step.check-failed', 'draft', { issues: ['incomplete'] }),
  line(15, 'bot', 'step.escalated', 'draft', { workItem: 'w-1', note: 'unsure', check: 'unsure' }),
  line(35, 'ops@example.com', 'step.returned', 'draft', { note: 'try again' }),
  line(40, 'bot', 'step.claimed', 'draft', { expiresAt: at(50) }),
  line(55, 'server', 'lease.expired', 'draft', { agent: 'bot' }),
  line(57, 'bot', 'step.claimed', 'draft', { expiresAt: at(67) }),
  line(60, 'bot', 'step.completed', 'draft'),
  line(60, 'server', 'step.waiting', 'wait_a_day', { until: at(120) }),
  line(120, 'server', 'step.completed', 'wait_a_day'),
  line(120, 'server', 'work-item.opened', 'sign', { workItem: 'w-2' }),
  line(210, 'ben@example.com', 'step.rejected', 'sign', { note: 'Wrong date.', to: 'draft' }),
  line(210, 'server', 'step.rewound', 'wait_a_day'),
  line(210, 'server', 'step.ready', 'draft'),
  line(215, 'bot', 'step.claimed', 'draft', { expiresAt: at(225) }),
  line(220, 'bot', 'step.completed', 'draft'),
  line(220, 'server', 'step.waiting', 'wait_a_day'),
  line(220, 'server', 'step.completed', 'wait_a_day'),
  line(220, 'server', 'work-item.opened', 'sign', { workItem: 'w-3' }),
  line(250, 'ben@example.com', 'step.completed', 'sign'),
  line(250, 'ben@example.com', 'run.ended', null, { outcome: 'done' }),
];

const MIN = 60_000;

describe('one run reduced to its facts and figured', () => {
  const facts = runFacts(RUN, LINES)!;
  const s = insights([facts], versions, { modes: ['live'] }, at(300));
  const row = (step: string) => s.steps.find((x) => x.step === step)!;

  it('times each visit of a step and what it waited for', () => {
    // draft, first visit: 0 → 60 min; waited 10 (unclaimed) + 20 (with the operators) + 5 (unclaimed after the return)
    // + 2 (from the expiry line to the next claim): 37. Second visit: 210 → 220, 5 unclaimed.
    expect(row('draft').visits).toBe(2);
    expect(row('draft').wall).toEqual({ count: 2, p50Ms: 10 * MIN, p90Ms: 60 * MIN });
    expect(row('draft').waiting).toEqual({ count: 2, p50Ms: 5 * MIN, p90Ms: 37 * MIN });
    expect(row('draft').waitingForAgentsMs).toBe((10 + 5 + 2 + 5) * MIN);
    expect(row('draft').waitingForPeopleMs).toBe(20 * MIN);
    expect(row('wait_a_day').waitingForTimersMs).toBe(60 * MIN);
    expect(row('sign').wall).toEqual({ count: 2, p50Ms: 30 * MIN, p90Ms: 90 * MIN });
    expect(row('sign').waitingForPeopleMs).toBe(120 * MIN);
    expect(s.runs.cycle).toEqual({ count: 1, p50Ms: 250 * MIN, p90Ms: 250 * MIN });
  });

  it('counts rework, escalations, returns, expiries, check verdicts and overdue', () => {
    expect(s.rework).toEqual([{ process: 'contract', step: 'sign', rejections: 1, runs: 1, topNotes: [{ note: 'Wrong date.', count: 1 }] }]);
    expect(s.agents).toEqual([{ agent: 'bot', escalations: 1, checkEscalations: 1, returns: 1, leaseExpiries: 1 }]);
    // Two submissions the bot completed on the checked step passed; one failed, one was unsure.
    expect(s.checks).toEqual([{ process: 'contract', step: 'draft', pass: 2, fail: 1, unsure: 1 }]);
    // The first signature was due at 180 min and came at 210: overdue in week 2026-W49; the second was in time.
    expect(s.per).toBe('week');
    expect(s.periods).toEqual([{ period: '2026-W49', from: '2026-11-30', started: 1, ended: { done: 1 }, overdue: 1 }]);
    expect(s.overdueNow).toBe(0);
    expect(runsBehind([facts], versions, { modes: ['live'] }, at(300), { bar: 'overdue', period: '2026-W49' })).toEqual([RUN]);
    expect(runsBehind([facts], versions, { modes: ['test'] }, at(300), { bar: 'overdue', period: '2026-W49' })).toEqual([]);
  });

  it('counts an open step waiting up to now, and overdue now once its due passed', () => {
    const open = runFacts(RUN, LINES.slice(0, 13))!; // the signature's work item opened at 120, nothing since
    const later = insights([open], versions, { modes: ['live'] }, at(200));
    const sign = later.steps.find((x) => x.step === 'sign')!;
    expect(sign).toMatchObject({ waitingNow: 1, overdueNow: 1, waitingForPeopleMs: 80 * MIN, wall: { count: 0, p50Ms: null, p90Ms: null } });
    expect(later.runs).toMatchObject({ started: 1, ended: 0, open: 1 });
  });

  it('reads no run from a chain that starts none', () => {
    expect(runFacts(RUN, LINES.slice(1))).toBeNull();
  });
});

describe('facts packed for keeping', () => {
  it('unpack to the very facts packed, for an ended run and one still open', () => {
    const ended = runFacts(RUN, LINES)!;
    // Cut at the signature's work item: the run and that visit are open, its wait goes on.
    const open = runFacts(
      RUN,
      LINES.slice(
        0,
        LINES.findIndex((l) => l.action === 'step.rejected'),
      ),
    )!;
    expect(open.endedAt).toBeNull();
    for (const f of [ended, open]) expect(unpack(JSON.parse(JSON.stringify(pack(f))))).toEqual(f);
  });
});

describe('weeks, percentiles and durations', () => {
  it('names ISO weeks across year ends', () => {
    expect(isoWeek(Date.parse('2026-01-01T12:00:00Z'))).toBe('2026-W01'); // a Thursday
    expect(isoWeek(Date.parse('2027-01-01T00:00:00Z'))).toBe('2026-W53'); // a Friday of 2026's last week
    expect(isoWeek(Date.parse('2024-12-30T00:00:00Z'))).toBe('2025-W01'); // a Monday in 2025's first week
    expect(isoWeek(Date.parse('2026-11-29T23:59:59Z'))).toBe('2026-W48'); // Sunday ends a week
  });

  it('takes percentiles by nearest rank', () => {
    expect(spread([5, 1, 4, 2, 3])).toEqual({ count: 5, p50Ms: 3, p90Ms: 5 });
    expect(spread([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toEqual({ count: 10, p50Ms: 5, p90Ms: 9 });
    expect(spread([])).toEqual({ count: 0, p50Ms: null, p90Ms: null });
  });

  it('says durations in their two largest units', () => {
    expect(durationText(0)).toBe('0 s');
    expect(durationText(90 * MIN)).toBe('1 h 30 min');
    expect(durationText(2 * 86_400_000 + 4 * 3_600_000 + 5 * MIN)).toBe('2 d 4 h');
    expect(durationText(45_000)).toBe('45 s');
    expect(durationText(null)).toBe('–');
  });
});

describe('runs far apart in time (a clock reset to 1970, a run ended in 9999)', () => {
  const run = (id: string, started: string, cancelled?: string) =>
    runFacts(id, [
      { ts: started, actor: 'ana@example.com', action: 'run.started', entity: `run:${id}`, changes: { process: 'contract', version: 1, mode: 'live' } },
      ...(cancelled ? [{ ts: cancelled, actor: 'ana@example.com', action: 'run.cancelled', entity: `run:${id}` }] : []),
    ])!;
  const A = run('r-a', '1970-01-01T00:00:00.000Z', '1970-01-01T01:00:00.000Z');
  const B = run('r-b', '2000-01-01T00:00:00.000Z');
  const C = run('r-c', '2026-12-01T09:00:00.000Z', '9999-12-30T00:00:00.000Z');
  const now = '2026-12-05T00:00:00.000Z';

  it('counts 1970 to 9999 by the hundred years: 81 periods, each run where it belongs', () => {
    const s = insights([A, B, C], versions, { modes: ['live'] }, now);
    expect(s.per).toBe('100 years');
    expect(s.periods).toHaveLength(81); // 1900–1999 … 9900–9999
    expect(s.periods[0]).toEqual({ period: '1900–1999', from: '1900-01-01', started: 1, ended: { cancelled: 1 }, overdue: 0 });
    expect(s.periods[1]).toEqual({ period: '2000–2099', from: '2000-01-01', started: 2, ended: {}, overdue: 0 });
    expect(s.periods[80]).toEqual({ period: '9900–9999', from: '9900-01-01', started: 0, ended: { cancelled: 1 }, overdue: 0 });
    expect(s.runs).toMatchObject({ started: 3, ended: 2, open: 1, byOutcome: { cancelled: 2 } });
    expect(s.runs.cycle.p90Ms).toBe(Date.parse('9999-12-30T00:00:00Z') - Date.parse('2026-12-01T09:00:00Z'));
    expect(runsBehind([A, B, C], versions, { modes: ['live'] }, now, { bar: 'started', period: '2000–2099' })).toEqual(['r-c', 'r-b']);
    expect(runsBehind([A, B, C], versions, { modes: ['live'] }, now, { bar: 'ended', period: '9900–9999', outcome: 'cancelled' })).toEqual(['r-c']);
  });

  it('counts 1970 to 2000 by the quarter: 121 periods', () => {
    const s = insights([A, B, C], versions, { modes: ['live'], until: '2001-01-01T00:00:00.000Z' }, now);
    expect(s.per).toBe('quarter');
    expect(s.periods).toHaveLength(121); // 30 years of 4, and 2000-Q1
    expect(s.periods[0]).toEqual({ period: '1970-Q1', from: '1970-01-01', started: 1, ended: { cancelled: 1 }, overdue: 0 });
    expect(s.periods[120]).toEqual({ period: '2000-Q1', from: '2000-01-01', started: 1, ended: {}, overdue: 0 });
    expect(runsBehind([A, B, C], versions, { modes: ['live'] }, now, { bar: 'started', period: '1970-Q1' })).toEqual(['r-a']);
  });

  it('chooses weeks, months, quarters, years or longer from the span, never more than MAX_PERIODS', () => {
    const t = (iso: string) => Date.parse(iso);
    expect(unitFor(t('2026-01-05T00:00:00Z'), t('2026-12-28T00:00:00Z')).per).toBe('week'); // 52 weeks
    expect(unitFor(t('2023-01-01T00:00:00Z'), t('2026-12-01T00:00:00Z')).per).toBe('month'); // 205 weeks, 48 months
    expect(unitFor(t('1900-06-01T00:00:00Z'), t('2026-12-01T00:00:00Z')).per).toBe('year'); // 507 quarters, 127 years
    expect(
      periodsBetween(unitFor(t('2026-12-31T00:00:00Z'), t('2030-01-01T00:00:00Z')), t('2026-12-31T00:00:00Z'), t('2030-01-01T00:00:00Z'))
        .map((p) => p.period)
        .slice(0, 2),
    ).toEqual(['2026-12', '2027-01']);
    // Every pair of instants from the first a Date holds to the last.
    const edges = [-8.64e15, t('0001-01-01T00:00:00Z'), 0, t('2000-01-01T00:00:00Z'), t(now), t('9999-12-31T23:59:59Z'), 8.64e15];
    for (const a of edges) {
      for (const b of edges.filter((x) => x >= a)) {
        const n = periodsBetween(unitFor(a, b), a, b).length;
        expect(n, `${a} to ${b}`).toBeGreaterThanOrEqual(1);
        expect(n, `${a} to ${b}`).toBeLessThanOrEqual(MAX_PERIODS);
      }
    }
    // 271821 BC to AD 275760: 548 periods of 1000 years, 56 of 10,000.
    expect(unitFor(-8.64e15, 8.64e15).per).toBe('10000 years');
  });

  it('takes since 0001-01-01 and until 9999-12-31 in that order', () => {
    expect(parseFilter({ since: '0001-01-01', until: '9999-12-31' }, new Date(now))).toEqual({
      ok: true,
      filter: { since: '0001-01-01T00:00:00.000Z', until: '+010000-01-01T00:00:00.000Z', modes: ['live'] },
    });
    expect(parseFilter({ since: '9999-12-31', until: '0001-01-01' }, new Date(now)).ok).toBe(false);
  });
});

describe('the filter and a bar from what a person typed', () => {
  const now = new Date('2026-12-02T06:00:00Z');
  it('reads dates, date-times and ages, an until date counting its own day', () => {
    expect(parseFilter({ process: 'expense-approval', version: '2', since: '7d', until: '2026-12-01', tests: 'also' }, now)).toEqual({
      ok: true,
      filter: { process: 'expense-approval', version: 2, since: '2026-11-25T06:00:00.000Z', until: '2026-12-02T00:00:00.000Z', modes: ['live', 'test'] },
    });
    expect(parseFilter({}, now)).toEqual({ ok: true, filter: { modes: ['live'] } });
  });

  it('names every problem at once', () => {
    const r = parseFilter({ process: 'Bad Name', version: '0', since: '2026-02-30', until: 'soon', tests: 'yes' }, now);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues.map((i) => i.split(':')[0])).toEqual(['process', 'version', 'since', 'until', 'tests']);
    const order = parseFilter({ since: '2026-12-01', until: '2026-11-01' }, now);
    expect(!order.ok && order.issues).toEqual(['until: must come after since (2026-12-01T00:00:00.000Z)']);
  });

  it('parses a bar, naming each missing or bad part', () => {
    const q = (o: Record<string, string>) => (k: string) => o[k] ?? null;
    expect(parseBar(q({ bar: 'waiting', process: 'p', step: 's', for: 'person' }))).toEqual({ ok: true, bar: { bar: 'waiting', process: 'p', step: 's', for: 'person' } });
    expect(parseBar(q({ bar: 'ended', period: '49' }))).toEqual({
      ok: false,
      issues: ['period: 49 is not a period such as 2026-W49, 2026-11, 2026-Q4, 2026 or 2000–2099', 'outcome: required for this bar'],
    });
    expect(parseBar(q({ bar: 'pie' })).ok).toBe(false);
  });
});

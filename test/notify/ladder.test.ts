/**
 * Reminder ladders' rules, pure: which rungs an item has and in what order,
 * quiet hours and working days in the board's time zone (summer time too),
 * what goes out when serve was down for a while, where an item stands in
 * words, and WORK.md's `reminders` read and checked.
 */
import { describe, expect, it } from 'vitest';
import { remindersFrom, reminderIssues, spanMs, type Ladder } from '../../src/board/ladders.js';
import { manifestIssues } from '../../src/board/manifest.js';
import { schemaIssues } from '../../src/board/schemas.js';
import { calendarOf, dueRungs, nextRung, openAt, rungsOf, type Calendar, type RungRecords } from '../../src/notify/ladder.js';
import { ladderSentence } from '../../src/notify/ladder-notes.js';

const H = 3_600_000;
const D = 24 * H;
const t = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

const LADDER: Ladder = { before: [D, 2 * H], after: { every: 4 * H, times: 2 }, escalate: { after: D, to: 'finance-leads' }, owner: { after: 2 * D, to: 'mira@example.com' } };
const ALWAYS: Calendar = { timeZone: 'UTC', quietHours: null, workingDays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] };
const BERLIN: Calendar = { timeZone: 'Europe/Berlin', quietHours: { from: 19 * 60, to: 8 * 60 }, workingDays: ['mon', 'tue', 'wed', 'thu', 'fri'] };
const PEOPLE = [{ email: 'mira@example.com', name: 'Mira Okafor' }];

describe('the rungs of a ladder', () => {
  it('reminds before due, again after it, then escalates, then tells the owner, in that order', () => {
    const item = { openedAt: '2026-12-01T09:00:00.000Z', due: '2026-12-03T12:00:00.000Z' };
    const rungs = rungsOf(item, LADDER);
    expect(rungs.map((r) => [r.kind, r.to, iso(r.at)])).toEqual([
      ['remind', null, '2026-12-02T12:00:00.000Z'],
      ['remind', null, '2026-12-03T10:00:00.000Z'],
      ['remind', null, '2026-12-03T16:00:00.000Z'],
      ['remind', null, '2026-12-03T20:00:00.000Z'],
      ['escalate', 'finance-leads', '2026-12-04T12:00:00.000Z'],
      ['owner', 'mira@example.com', '2026-12-05T12:00:00.000Z'],
    ]);
    expect(new Set(rungs.map((r) => r.key)).size).toBe(rungs.length);
  });

  it('drops rungs that fall before the item opened (its arrival email says it already)', () => {
    const item = { openedAt: '2026-12-03T11:00:00.000Z', due: '2026-12-03T12:00:00.000Z' };
    expect(rungsOf(item, LADDER).map((r) => r.key)).toEqual(['after-1', 'after-2', 'escalate', 'owner']);
  });

  it('counts from when the item opened when it has no due time, and has no reminders "before"', () => {
    const item = { openedAt: '2026-12-01T09:00:00.000Z', due: null };
    expect(rungsOf(item, LADDER).map((r) => [r.key, iso(r.at)])).toEqual([
      ['after-1', '2026-12-01T13:00:00.000Z'],
      ['after-2', '2026-12-01T17:00:00.000Z'],
      ['escalate', '2026-12-02T09:00:00.000Z'],
      ['owner', '2026-12-03T09:00:00.000Z'],
    ]);
  });
});

describe('quiet hours and working days, in the board time zone', () => {
  it('a rung at 20:00 on a Friday in Berlin waits for Monday 08:00 Berlin', () => {
    // 2026-12-04 is a Friday; Berlin is UTC+1 in winter.
    expect(iso(openAt(t('2026-12-04T19:00:00Z'), BERLIN))).toBe('2026-12-07T07:00:00.000Z');
  });

  it('a rung at 06:00 on a Tuesday waits for 08:00 that day; one at 10:00 goes at once', () => {
    expect(iso(openAt(t('2026-12-08T05:00:00Z'), BERLIN))).toBe('2026-12-08T07:00:00.000Z');
    expect(iso(openAt(t('2026-12-08T09:00:00Z'), BERLIN))).toBe('2026-12-08T09:00:00.000Z');
  });

  it('the quiet hours begin at their first minute and end at their last', () => {
    expect(iso(openAt(t('2026-12-08T17:59:00Z'), BERLIN))).toBe('2026-12-08T17:59:00.000Z'); // 18:59 Berlin
    expect(iso(openAt(t('2026-12-08T18:00:00Z'), BERLIN))).toBe('2026-12-09T07:00:00.000Z'); // 19:00 Berlin
  });

  it('quiet hours within a day (lunch) hold a rung until they end', () => {
    const lunch: Calendar = { ...ALWAYS, quietHours: { from: 12 * 60, to: 13 * 60 } };
    expect(iso(openAt(t('2026-12-08T12:30:00Z'), lunch))).toBe('2026-12-08T13:00:00.000Z');
    expect(iso(openAt(t('2026-12-08T13:00:00Z'), lunch))).toBe('2026-12-08T13:00:00.000Z');
  });

  it('the same instant is quiet in one zone and working hours in another', () => {
    const ny: Calendar = { ...BERLIN, timeZone: 'America/New_York' };
    // Tue 2026-12-08 19:30 UTC: 20:30 in Berlin (quiet), 14:30 in New York (working).
    expect(iso(openAt(t('2026-12-08T19:30:00Z'), BERLIN))).toBe('2026-12-09T07:00:00.000Z');
    expect(iso(openAt(t('2026-12-08T19:30:00Z'), ny))).toBe('2026-12-08T19:30:00.000Z');
  });

  it('across the change to summer time, 08:00 is 08:00 on the wall clock', () => {
    // Sat 2026-03-28 20:00 CET; clocks go forward on Sunday 29 March; Monday 08:00 CEST is 06:00 UTC.
    expect(iso(openAt(t('2026-03-28T19:00:00Z'), BERLIN))).toBe('2026-03-30T06:00:00.000Z');
  });

  it('working days alone (no quiet hours) move a Saturday rung to Monday midnight', () => {
    const weekdays: Calendar = { ...ALWAYS, workingDays: ['mon', 'tue', 'wed', 'thu', 'fri'] };
    expect(iso(openAt(t('2026-12-05T15:00:00Z'), weekdays))).toBe('2026-12-07T00:00:00.000Z');
  });
});

describe('what goes out now', () => {
  const item = { openedAt: '2026-12-01T09:00:00.000Z', due: '2026-12-03T12:00:00.000Z' };

  it('nothing before the first rung; then each rung once, in order', () => {
    let done: RungRecords = {};
    expect(dueRungs(item, LADDER, ALWAYS, done, t('2026-12-02T11:59:59Z')).send).toEqual([]);
    const sent: string[] = [];
    for (let now = t('2026-12-02T12:00:00Z'); now <= t('2026-12-06T00:00:00Z'); now += H) {
      const { send, pass } = dueRungs(item, LADDER, ALWAYS, done, now);
      expect(pass).toEqual([]);
      for (const r of send) {
        sent.push(r.key);
        done = { ...done, [r.key]: { at: iso(now), sent: true, kind: r.kind, to: r.to } };
      }
    }
    expect(sent).toEqual([`before-${D}`, `before-${2 * H}`, 'after-1', 'after-2', 'escalate', 'owner']);
    expect(nextRung(item, LADDER, ALWAYS, done)).toBeNull();
  });

  it('after a long stop, only the last reminder due is sent, the earlier ones passed over; the escalation still goes', () => {
    const { send, pass } = dueRungs(item, LADDER, ALWAYS, {}, t('2026-12-04T13:00:00Z'));
    expect(send.map((r) => r.key)).toEqual(['after-2', 'escalate']);
    expect(pass.map((r) => r.key)).toEqual([`before-${D}`, `before-${2 * H}`, 'after-1']);
  });

  it('in quiet hours nothing goes; at their end the rung that waited goes', () => {
    // Due Tue 2026-12-08 19:00 UTC (20:00 Berlin): the "2 h before" rung is 18:00 Berlin, "after-1" 00:00 Berlin.
    const late = { openedAt: '2026-12-08T08:00:00.000Z', due: '2026-12-08T19:00:00.000Z' };
    const ladder: Ladder = { before: [2 * H], after: { every: 4 * H, times: 1 }, escalate: null, owner: null };
    expect(dueRungs(late, ladder, BERLIN, {}, t('2026-12-08T17:00:00Z')).send.map((r) => r.key)).toEqual([`before-${2 * H}`]);
    const done: RungRecords = { [`before-${2 * H}`]: { at: '2026-12-08T17:00:00.000Z', sent: true, kind: 'remind', to: null } };
    for (const quiet of ['2026-12-08T23:00:00Z', '2026-12-09T03:00:00Z', '2026-12-09T06:59:59Z']) expect(dueRungs(late, ladder, BERLIN, done, t(quiet)).send).toEqual([]);
    const next = nextRung(late, ladder, BERLIN, done);
    expect(next && [next.key, iso(next.fireAt), next.waited]).toEqual(['after-1', '2026-12-09T07:00:00.000Z', 'quiet hours']);
    expect(dueRungs(late, ladder, BERLIN, done, t('2026-12-09T07:00:00Z')).send.map((r) => r.key)).toEqual(['after-1']);
  });
});

describe('where an item stands, in words', () => {
  const item = { openedAt: '2026-12-01T09:00:00.000Z', due: '2026-12-03T12:00:00.000Z' };
  const sent = (key: string, kind: 'remind' | 'escalate' | 'owner' = 'remind', to: string | null = null) => ({ [key]: { at: '2026-12-03T00:00:00.000Z', sent: true, kind, to } });

  it('"Reminded twice; goes to the finance leads in 4 hours."', () => {
    const ladder: Ladder = { ...LADDER, after: null };
    const done = { ...sent(`before-${D}`), ...sent(`before-${2 * H}`) };
    const next = nextRung(item, ladder, ALWAYS, done);
    expect(ladderSentence(done, next, new Date('2026-12-04T08:00:00Z'), PEOPLE)).toBe('Reminded twice; goes to the finance leads in 4 hours.');
  });

  it('names the owner by name, says what waits for quiet hours, and says when the ladder is done', () => {
    const done = { ...sent(`before-${D}`), ...sent(`before-${2 * H}`), ...sent('after-1'), ...sent('after-2'), ...sent('escalate', 'escalate', 'finance-leads') };
    const next = nextRung(item, LADDER, ALWAYS, done);
    expect(ladderSentence(done, next, new Date('2026-12-04T12:00:00Z'), PEOPLE)).toBe('Reminded 4 times; told the finance leads; goes to Mira Okafor, the process owner, in 24 hours.');
    const all = { ...done, ...sent('owner', 'owner', 'mira@example.com') };
    expect(ladderSentence(all, null, new Date('2026-12-06T00:00:00Z'), PEOPLE)).toBe('Reminded 4 times; told the finance leads and Mira Okafor; no more reminders.');
    const quiet = nextRung({ openedAt: '2026-12-08T08:00:00.000Z', due: '2026-12-08T19:00:00.000Z' }, { before: [], after: { every: H, times: 1 }, escalate: null, owner: null }, BERLIN, {});
    expect(ladderSentence({}, quiet, new Date('2026-12-08T19:00:00Z'), PEOPLE)).toBe('Next reminder in 12 hours (after quiet hours).');
  });
});

describe("WORK.md's reminders", () => {
  const data = {
    quietHours: '19:00-08:00',
    workingDays: ['mon', 'tue', 'wed', 'thu', 'fri'],
    ladders: {
      'claim-review': {
        before: ['1d', '2h'],
        after: { every: '4h', times: 2 },
        escalate: { after: '1d', to: 'finance-leads' },
        owner: { after: '2d', to: 'mira@example.com' },
        steps: { approve: { after: { every: '90s' } } },
      },
    },
  };

  it('reads spans, quiet hours and a step ladder that replaces its process ladder', () => {
    expect([spanMs('90s'), spanMs('30m'), spanMs('4h'), spanMs('2d')]).toEqual([90_000, 1_800_000, 4 * H, 2 * D]);
    const r = remindersFrom(data);
    expect(r.quietHours).toEqual({ from: 19 * 60, to: 8 * 60 });
    expect(r.ladders['claim-review']!.ladder).toEqual(LADDER);
    expect(r.ladders['claim-review']!.steps.approve).toEqual({ before: [], after: { every: 90_000, times: 1 }, escalate: null, owner: null });
    expect(calendarOf(r, 'Europe/Berlin')).toEqual(BERLIN);
    expect(remindersFrom(undefined).ladders).toEqual({});
  });

  it('names every unknown group and person at once', () => {
    const work = { people: [{ email: 'ann@example.com' }], groups: { finance: ['ann@example.com'] }, reminders: data };
    expect(reminderIssues(work).map((i) => i.path)).toEqual(['reminders.ladders.claim-review.escalate.to', 'reminders.ladders.claim-review.owner.to']);
    const ok = { people: [{ email: 'Mira@example.com' }], groups: { 'finance-leads': [] }, reminders: data };
    expect(reminderIssues(ok)).toEqual([]);
    expect(manifestIssues({ ...work, notifications: { timeZone: 'Europe/Atlantis' } }).map((i) => i.path)).toEqual([
      'notifications.timeZone',
      'reminders.ladders.claim-review.escalate.to',
      'reminders.ladders.claim-review.owner.to',
    ]);
  });

  it('the schema refuses a span without a unit, a bad quiet-hours clock and an unknown day', () => {
    const base = { schema: 'workboard/v1', name: 'b', title: 'B', description: 'd', rev: 1 };
    expect(schemaIssues('work', { ...base, reminders: data })).toEqual([]);
    const bad = schemaIssues('work', { ...base, reminders: { quietHours: '25:00-08:00', workingDays: ['monday'], ladders: { p: { before: ['10'] } } } });
    expect(bad.map((i) => i.path).sort()).toEqual(['reminders.ladders.p.before[0]', 'reminders.quietHours', 'reminders.workingDays[0]'].sort());
  });
});

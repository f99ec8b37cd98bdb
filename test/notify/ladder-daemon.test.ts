/**
 * Reminder ladders as serve's daemon runs them (its own Board and Service, as
 * `serve` opens them), on a fake clock, with email over real SMTP on loopback:
 * the rungs go out in order to the assignees, then the named group, then the
 * process owner, each audited; never in quiet hours or on a day off in the
 * board's zone; never for a test run; never after the item is decided; and
 * nothing is ever decided by a ladder.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { allEntries } from '../../src/notify/outbox.js';
import { NO_WORDS, peopleNames, say, saidText } from '../../src/git/audit-words.js';
import { cleanupHarnesses, type Harness } from '../support/svc-harness.js';
import { CAST, daemonOn, notifyBoard, smtpServer, toApproval, type Clocks, type Mail, type Smtp } from './support.js';

const H = 3_600_000;
const LEAD = CAST.lee; // the finance leads
const OWNER = CAST.ed; // the process owner
// Monday 7 December 2026, 09:00 in Berlin.
const MONDAY_9 = '2026-12-07T08:00:00.000Z';

const open: (Clocks | Smtp)[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('daemon' in x ? x.stop() : x.close());
  await cleanupHarnesses();
});

async function setup(): Promise<{ smtp: Smtp; h: Harness; d: Clocks; sent: { at: string; mail: Mail }[] }> {
  const smtp = await smtpServer();
  open.push(smtp);
  const h = await notifyBoard({
    finance: [CAST.fin, CAST.bob],
    notifications: { email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port } }, timeZone: 'Europe/Berlin' },
    spec: { start: MONDAY_9 },
  });
  await editManifest(h.board, CAST.operator, 'reminders.set', (m) => {
    m.groups = { ...(m.groups as Record<string, string[]>), 'finance-leads': [LEAD] };
    m.reminders = {
      quietHours: '19:00-08:00',
      workingDays: ['mon', 'tue', 'wed', 'thu', 'fri'],
      ladders: {
        'claim-review': {
          // approve is due 2 days after it opens (Wed 09:00 Berlin).
          steps: { approve: { before: ['1d'], after: { every: '6h', times: 2 }, escalate: { after: '1d', to: 'finance-leads' }, owner: { after: '2d', to: OWNER } } },
        },
      },
    };
    return 'reminders';
  });
  const d = await daemonOn(h);
  open.push(d);
  // Each mail with the fake clock's time when it arrived.
  const sent: { at: string; mail: Mail }[] = [];
  const seen = { n: 0 };
  const collect = () => {
    for (; seen.n < smtp.mails.length; seen.n++) sent.push({ at: d.clock.now().toISOString(), mail: smtp.mails[seen.n]! });
  };
  const advance = d.advance;
  d.advance = async (ms) => {
    await advance(ms);
    collect();
  };
  return { smtp, h, d, sent };
}

/** Audit lines of a run with the given actions. */
async function auditLines(h: Harness, runId: string, ...actions: string[]): Promise<{ action: string; entity: string; input?: { changes?: Record<string, unknown> } }[]> {
  const text = await fs.readFile(path.join(h.root, 'runs', runId, 'audit.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => actions.includes(l.action));
}

const ladderMails = (sent: { at: string; mail: Mail }[]) => sent.filter((s) => /^(Reminder|Still waiting on)/.test(s.mail.subject));

/** Local hour and weekday in Berlin. */
function berlin(iso: string): { hour: number; day: string } {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', hourCycle: 'h23', weekday: 'short', hour: 'numeric' }).formatToParts(new Date(iso)).map((x) => [x.type, x.value]),
  );
  return { hour: Number(p.hour), day: String(p.weekday) };
}

describe('a reminder ladder under serve', () => {
  it('reminds, reminds again after due (waiting out the night), escalates to the leads, then tells the owner, each audited, never in quiet hours', async () => {
    const { h, d, sent } = await setup();
    const view = await toApproval(h);
    const runId: string = view.run.id;
    await d.plan();
    for (let i = 0; i < 5 * 24; i++) await d.advance(H);

    const ladder = ladderMails(sent);
    // Two mails at one moment (one to each of the group) arrive in either order.
    const rows = ladder.map((s) => [s.at, s.mail.to.join(','), s.mail.subject.split(':')[0]]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : a[1]! < b[1]! ? -1 : 1));
    expect(rows).toEqual(
      [
        ['2026-12-08T08:00:00.000Z', CAST.bob, 'Reminder'], // 1 day before due: Tue 09:00
        ['2026-12-08T08:00:00.000Z', CAST.fin, 'Reminder'],
        ['2026-12-09T14:00:00.000Z', CAST.bob, 'Reminder'], // 6 h after due: Wed 15:00
        ['2026-12-09T14:00:00.000Z', CAST.fin, 'Reminder'],
        ['2026-12-10T07:00:00.000Z', CAST.bob, 'Reminder'], // 12 h after due is Wed 21:00, quiet: Thu 08:00
        ['2026-12-10T07:00:00.000Z', CAST.fin, 'Reminder'],
        ['2026-12-10T08:00:00.000Z', LEAD, 'Still waiting on the finance'], // 1 day after due
        ['2026-12-11T08:00:00.000Z', OWNER, 'Still waiting on the finance'], // 2 days after due: Fri 09:00
      ].map(([at, to, subject]) => [at, to, subject]),
    );
    for (const s of ladder) {
      const b = berlin(s.at);
      expect(b.hour >= 8 && b.hour < 19 && !['Sat', 'Sun'].includes(b.day), `${s.at} is ${b.day} ${b.hour}:00 in Berlin`).toBe(true);
      expect(s.mail.text).toContain(`/work/${runId}/`);
    }
    const escalation = ladder.find((s) => s.mail.to.includes(LEAD))!.mail;
    expect(escalation.text).toContain('it is assigned to the finance');
    expect(escalation.text).toContain('Nothing is decided for them.');

    const audited = await auditLines(h, runId, 'work-item.reminded', 'work-item.escalated');
    expect(audited.map((l) => [l.action, l.input?.changes?.rung])).toEqual([
      ['work-item.reminded', `before-${24 * H}`],
      ['work-item.reminded', 'after-1'],
      ['work-item.reminded', 'after-2'],
      ['work-item.escalated', 'escalate'],
      ['work-item.escalated', 'owner'],
    ]);
    expect(audited[3]!.input?.changes?.to).toEqual([LEAD]);
    // `workboard log` says it in words: who was told, and that the item still waits.
    const words = {
      ...NO_WORDS,
      names: peopleNames([
        { email: LEAD, name: 'Lee Park' },
        { email: OWNER, name: 'Ed Stone' },
      ]),
    };
    const said = audited.map((l) => saidText(say(l as never, words)));
    expect(said[0]).toMatch(/still waits: its people were reminded \(to (fin|bob)@example.com, (fin|bob)@example.com\)$/);
    expect(said[3]).toMatch(/still waits: the finance leads were told \(to Lee Park\)$/);
    expect(said[4]).toMatch(/still waits: Ed Stone was told \(to Ed Stone\)$/);
    // Nothing was decided: the approval still waits.
    const now = await h.view(runId);
    expect(h.item(now, 'approve').stepId).toBe('approve');
    expect(now.run.state).not.toBe('ended');
    // The daemon logged each rung.
    expect(d.log.filter((l) => l.includes('work-item.reminded')).length).toBe(3);
  }, 120_000);

  it('stops the moment the item is decided, and never reminds a test run', async () => {
    const { h, d, sent } = await setup();
    const live = await toApproval(h);
    const test = await toApproval(h, 'test', 300);
    await d.plan();
    await d.advance(24 * H); // Tue 09:00: the first reminder of the live run
    expect(
      ladderMails(sent)
        .map((s) => s.mail.to[0])
        .sort(),
    ).toEqual([CAST.bob, CAST.fin]);
    await h.decide(live, 'approve', 'approved', CAST.fin);
    for (let i = 0; i < 4 * 24; i++) await d.advance(H);
    expect(ladderMails(sent)).toHaveLength(2);
    expect(await auditLines(h, live.run.id, 'work-item.reminded', 'work-item.escalated')).toHaveLength(1);
    expect(await auditLines(h, test.run.id, 'work-item.reminded', 'work-item.escalated')).toEqual([]);
    const entries = await allEntries(h.board.state);
    expect(entries.filter((e) => e.runId === test.run.id && ['reminder', 'ladder_escalation', 'ladder_owner'].includes(e.kind))).toEqual([]);
    // The test run's approval still waits, undecided.
    expect(h.item(await h.view(test.run.id), 'approve').stepId).toBe('approve');
  }, 120_000);
});

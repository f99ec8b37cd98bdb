/**
 * `workboard reminders`, the real CLI on a real board: a waiting approval's
 * ladder rung by rung, in words. A daemon (as serve opens one) sent what fell
 * due three hours ago, a reminder through a loopback SMTP server, passing an
 * earlier one over; since then no serve ran. The CLI, on the wall clock, says
 * which rung was sent (and how its email went), which was passed over, which
 * is due and not sent yet, which quiet hours move, and whom and by which
 * channel each tells, naming people and never an id; `--json` carries the
 * same; a test run and a step with nothing waiting say why there is none.
 */
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { cleanupHarnesses, type Harness } from '../support/svc-harness.js';
import { CAST, daemonOn, notifyBoard, smtpServer, toApproval, type Smtp } from './support.js';

const H = 3_600_000;
const sinks: Smtp[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const s of sinks.splice(0)) await s.close();
  await cleanupHarnesses();
});

/** "Sat 5 Dec 2026, 20:30 UTC", written here from the UTC string rather than by the code under test. */
function utc(ms: number): string {
  const [wd, day, mon, year, hms] = new Date(ms).toUTCString().replace(',', '').split(' ');
  return `${wd} ${Number(day)} ${mon} ${year}, ${hms!.slice(0, 5)} UTC`;
}
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const floorMinute = (ms: number) => Math.floor(ms / 60_000) * 60_000;

async function ladderBoard(now: number): Promise<{ h: Harness; smtp: Smtp }> {
  const smtp = await smtpServer();
  sinks.push(smtp);
  const h = await notifyBoard({
    finance: [CAST.fin, CAST.cat],
    prefs: { [CAST.cat]: 'digest' },
    notifications: { timeZone: 'UTC', email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port } } },
  });
  await editManifest(h.board, CAST.operator, 'reminders.set', (m) => {
    const names: Record<string, string> = { [CAST.ann]: 'Ann Lee', [CAST.fin]: 'Fin Nordqvist', [CAST.cat]: 'Cat Ng', [CAST.lee]: 'Lee Park', [CAST.ed]: 'Ed Stone' };
    m.people = (m.people as { email: string }[]).map((p) => (names[p.email] ? { ...p, name: names[p.email] } : p));
    m.groups = { ...(m.groups as Record<string, string[]>), 'finance-leads': [CAST.lee] };
    // The approval is due 2 h before now (below): reminders 1 day and 2 hours before, one an hour after,
    // the finance leads 6 hours after (in quiet hours, which end an hour later), the owner a day after.
    m.reminders = {
      quietHours: `${hhmm(now + 3 * H)}-${hhmm(now + 5 * H)}`,
      ladders: {
        'claim-review': { steps: { approve: { before: ['1d', '2h'], after: { every: '1h', times: 1 }, escalate: { after: '6h', to: 'finance-leads' }, owner: { after: '1d', to: CAST.ed } } } },
      },
    };
    return 'reminders';
  });
  return { h, smtp };
}

describe('workboard reminders', () => {
  it("shows a waiting approval's ladder rung by rung: sent, passed over, due, moved by quiet hours, to whom and how", async () => {
    const now = Date.now();
    const { h, smtp } = await ladderBoard(now);
    // The approval opened 50 hours ago, so it fell due (2 days) 2 hours ago.
    h.setTime(new Date(now - 50 * H).toISOString());
    const view = await toApproval(h);
    const runId: string = view.run.id;
    const item = h.item(view, 'approve');
    expect(Date.parse(item.due)).toBe(now - 2 * H);
    // Three hours ago a serve ran: both reminders before the due time had fallen, so the later went and the earlier was passed over.
    h.setTime(new Date(now - 3 * H).toISOString());
    const d = await daemonOn(h);
    await d.plan();
    await d.stop();
    expect(smtp.mails.filter((m) => m.to.includes(CAST.fin) && m.subject.startsWith('Reminder'))).toHaveLength(1);

    const cwd = path.dirname(h.root);
    const r = await workboard(['--board', h.root, 'reminders', runId], { cwd });
    expect(r.code, r.stderr).toBe(0);
    process.stdout.write(r.stdout);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toContain(`Reminded once; next reminder now.`);
    const rungs = lines.filter((l) => /^ {2}[✓–!·] /.test(l));
    expect(rungs).toEqual([
      `  – Reminder 1 day before it is due: passed over ${utc(now - 3 * H)} (3 hours ago), a later reminder went out in its place.`,
      `  ✓ Reminder 2 hours before it is due: sent ${utc(now - 3 * H)} (3 hours ago) to Fin Nordqvist and Cat Ng, by email to Fin Nordqvist sent and Cat Ng's digest waiting.`,
      `  ! Reminder 1 hour after it is due: due since ${utc(now - H)} (1 hour ago), not sent yet (workboard serve sends it) to Fin Nordqvist and Cat Ng, by email to Fin Nordqvist and Cat Ng's digest.`,
      `  · To the finance leads: falls at ${utc(now + 4 * H)}, in quiet hours, so goes ${utc(floorMinute(now + 5 * H))} (in 5 hours) to Lee Park, by email to Lee Park.`,
      `  · To the process owner, Ed Stone: goes ${utc(now + 22 * H)} (in 22 hours) to Ed Stone, by email to Ed Stone.`,
    ]);
    expect(lines[0]).toBe('Claim review · Ann Lee · 120');
    expect(lines.some((l) => l.includes(`waits for the finance`) && l.includes(`due ${utc(now - 2 * H)} (2 hours ago)`))).toBe(true);
    // Words, not ids: no run or work item id, no rung key, group key or email.
    for (const id of [runId, item.id, 'before-', 'after-1', 'finance-leads', CAST.fin, CAST.ed, '@']) expect(r.stdout).not.toContain(id);

    // --json: the same rungs, as values.
    const j = await workboard(['--board', h.root, '--json', 'reminders', runId, 'approve'], { cwd });
    expect(j.code, j.stderr).toBe(0);
    const data = JSON.parse(j.stdout).data;
    expect(data.items).toHaveLength(1);
    const rows = data.items[0].rows;
    expect(rows.map((x: any) => [x.key, x.status, x.waited])).toEqual([
      ['before-86400000', 'passed over', null],
      ['before-7200000', 'sent', null],
      ['after-1', 'due', null],
      ['escalate', 'to come', 'quiet hours'],
      ['owner', 'to come', null],
    ]);
    expect(rows[1].ways).toEqual([
      { channel: 'email', person: CAST.fin, status: 'sent' },
      { channel: 'digest', person: CAST.cat, status: 'waiting' },
    ]);
    expect(rows[3]).toMatchObject({ at: new Date(now + 4 * H).toISOString(), fireAt: new Date(floorMinute(now + 5 * H)).toISOString(), audience: 'finance-leads', recipients: [CAST.lee] });
  }, 120_000);

  it('says why there is no ladder: a test run is never reminded, and a step with nothing waiting is refused in words', async () => {
    const { h } = await ladderBoard(Date.now());
    h.setTime(new Date().toISOString());
    const test = await toApproval(h, 'test');
    const live = await toApproval(h);
    const cwd = path.dirname(h.root);
    const t = await workboard(['--board', h.root, 'reminders', test.run.id], { cwd });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toContain('This is a test run: test runs are never reminded.');
    const wrong = await workboard(['--board', h.root, 'reminders', live.run.id, 'check'], { cwd });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('step check of this run has no work item waiting; waiting: approve (');
  }, 120_000);
});

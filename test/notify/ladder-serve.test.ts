/**
 * Reminder ladders under a real `workboard serve`, with seconds for spans and
 * email to an SMTP server on loopback: the rungs fire in order; serve is
 * SIGKILLed once between rungs and once at a random moment around a rung,
 * and no rung is ever audited, queued or sent twice (the outbox and the run's
 * commit carry it together); a decided item and a test run get nothing; and
 * in quiet hours nothing goes at all.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { allEntries, statusOf } from '../../src/notify/outbox.js';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { cleanupHarnesses, type Harness } from '../support/svc-harness.js';
import { until as waitUntil } from '../support/until.js';
import { CAST, FINANCE, kill, notifyBoard, serve, smtpServer, type Smtp } from './support.js';

const until = <T>(what: () => Promise<T | undefined> | T | undefined, ms = 45_000) => waitUntil(what, ms, 50);
const LEAD = CAST.lee;
const OWNER = CAST.ed;
const LADDER_KINDS = ['reminder', 'ladder_escalation', 'ladder_owner'];

const children: ChildProcess[] = [];
const sinks: Smtp[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const s of sinks.splice(0)) await s.close();
  await cleanupHarnesses();
});

/** The ladder of the tests: two reminders 4 s apart, the leads at 12 s, the owner at 16 s. */
const LADDER = { after: { every: '4s', times: 2 }, escalate: { after: '12s', to: 'finance-leads' }, owner: { after: '16s', to: OWNER } };

async function board(quietHours?: string, ladder: Record<string, unknown> = LADDER): Promise<{ h: Harness; smtp: Smtp }> {
  const smtp = await smtpServer();
  sinks.push(smtp);
  const h = await notifyBoard({
    notifications: { email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port } } },
    spec: { processes: [{ folder: 'contract-approval', roles: { legal: FINANCE } }] },
  });
  await editManifest(h.board, CAST.operator, 'reminders.set', (m) => {
    m.groups = { ...(m.groups as Record<string, string[]>), 'finance-leads': [LEAD] };
    // contract-approval's review has no due time: the ladder counts from when it opened.
    m.reminders = {
      ...(quietHours ? { quietHours } : {}),
      ladders: { 'contract-approval': ladder },
    };
    return 'reminders';
  });
  return { h, smtp };
}

async function rungsAudited(h: Harness, runId: string): Promise<string[]> {
  const text = await fs.readFile(path.join(h.root, 'runs', runId, 'audit.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.action === 'work-item.reminded' || l.action === 'work-item.escalated')
    .map((l) => String(l.input.changes.rung));
}

async function ladderEntries(h: Harness, runId: string) {
  return (await allEntries(h.board.state)).filter((e) => e.runId === runId && LADDER_KINDS.includes(e.kind));
}

function started(h: Harness) {
  const s = serve(h.root);
  children.push(s.child);
  return s;
}

describe('reminder ladders under a real serve', () => {
  it('rungs fire in order, each once across two SIGKILLs of serve; never for a decided item or a test run', async () => {
    const { h, smtp } = await board();
    const first = started(h);
    await first.ready;
    // Items open now by the wall clock serve reads (the harness's own clock stood still since the board was made).
    h.setTime(new Date().toISOString());
    const t0 = Date.now();
    const a = await h.start('contract-approval', { supplier: 'Acme Paper' }, CAST.ann);
    const b = await h.start('contract-approval', { supplier: 'Bolt Freight' }, CAST.ann);
    const test = await h.start('contract-approval', { supplier: 'Test Supplies' }, CAST.ann, { mode: 'test' });
    const A = a.run.id as string;
    const B = b.run.id as string;

    // The first reminder of each, sent; then B is decided, and serve is killed between rungs.
    await until(async () => ((await rungsAudited(h, A)).length >= 1 && (await rungsAudited(h, B)).length >= 1 ? true : undefined));
    await until(async () => ((await ladderEntries(h, A)).every((e) => statusOf(e) === 'sent') && (await ladderEntries(h, B)).every((e) => statusOf(e) === 'sent') ? true : undefined));
    await h.decide(await h.view(B), 'review', 'approved', CAST.fin);
    await kill(first.child);
    expect(await rungsAudited(h, A)).toEqual(['after-1']);

    // A second serve, killed at a random moment around the second reminder (8 s after the item opened).
    const second = started(h);
    await second.ready;
    const around = 8000 + Math.random() * 600 - (Date.now() - t0);
    await new Promise((r) => setTimeout(r, Math.max(0, around)));
    await kill(second.child);
    const atKill = await rungsAudited(h, A);

    // A third serve carries the ladder to its end.
    const third = started(h);
    await third.ready;
    await until(async () => ((await rungsAudited(h, A)).includes('owner') ? true : undefined));
    await until(async () => ((await ladderEntries(h, A)).every((e) => statusOf(e) === 'sent') ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500)); // time for anything sent twice to show

    expect(await rungsAudited(h, A)).toEqual(['after-1', 'after-2', 'escalate', 'owner']);
    const entries = await ladderEntries(h, A);
    expect(entries.map((e) => e.kind)).toEqual(['reminder', 'reminder', 'ladder_escalation', 'ladder_owner']);
    const mails = (to: string, about: string) => smtp.mails.filter((m) => m.to.includes(to) && m.subject.includes(about));
    const reminders = mails(CAST.fin, 'Acme Paper').filter((m) => m.subject.startsWith('Reminder'));
    // after-1 was sent before the first kill, and is not sent again; after-2 at least once (a kill in the
    // middle of its SMTP exchange sends it again under the outbox's at-least-once), never a third reminder.
    expect(reminders.length).toBeGreaterThanOrEqual(2);
    expect(reminders.length).toBeLessThanOrEqual(3);
    expect(mails(LEAD, 'Acme Paper')).toHaveLength(1);
    expect(mails(OWNER, 'Acme Paper')).toHaveLength(1);
    expect(mails(LEAD, 'Acme Paper')[0]!.subject).toMatch(/^Still waiting on the finance/);
    process.stdout.write(`ladder serve-kill: rungs audited when the second serve was killed: ${JSON.stringify(atKill)}; reminder mails for A: ${reminders.length}\n`);

    // B was decided after its first reminder: nothing more. The test run: nothing at all.
    expect(await rungsAudited(h, B)).toEqual(['after-1']);
    expect(mails(CAST.fin, 'Bolt Freight').filter((m) => m.subject.startsWith('Reminder'))).toHaveLength(1);
    expect(mails(LEAD, 'Bolt Freight')).toEqual([]);
    expect(await rungsAudited(h, test.run.id)).toEqual([]);
    expect(await ladderEntries(h, test.run.id)).toEqual([]);
    // Nothing was decided by the ladder: A's review still waits.
    expect(h.item(await h.view(A), 'review').stepId).toBe('review');
    // The chains with their rung lines verify, and the log says them in words.
    await kill(third.child);
    const verify = await workboard(['--board', h.root, 'audit', 'verify'], { cwd: h.root });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const log = await workboard(['--board', h.root, 'log', A], { cwd: h.root });
    expect(log.stdout).toContain('still waits: the finance leads were told');
    const doctor = await workboard(['--board', h.root, 'doctor'], { cwd: h.root });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  }, 120_000);

  it('in quiet hours no rung goes out, and none is recorded as sent', async () => {
    // Quiet from an hour ago to two hours ahead, in UTC (the board's zone here).
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    // A ladder of the same rungs a quarter as far apart, so waiting past all of them takes seconds.
    const ladder = { after: { every: '1s', times: 2 }, escalate: { after: '3s', to: 'finance-leads' }, owner: { after: '4s', to: OWNER } };
    const { h, smtp } = await board(`${hhmm(Date.now() - 3_600_000)}-${hhmm(Date.now() + 2 * 3_600_000)}`, ladder);
    const s = started(h);
    await s.ready;
    h.setTime(new Date().toISOString());
    const a = await h.start('contract-approval', { supplier: 'Quiet Ltd' }, CAST.ann);
    // Past every rung's time (1 s … 4 s) and as long again: the work item's own email goes, no rung does.
    await until(() => (smtp.mails.some((m) => m.subject.includes('Quiet Ltd')) ? true : undefined));
    await new Promise((r) => setTimeout(r, 8_000));
    expect(await rungsAudited(h, a.run.id)).toEqual([]);
    expect(await ladderEntries(h, a.run.id)).toEqual([]);
    expect(smtp.mails.filter((m) => m.subject.startsWith('Reminder') || m.subject.startsWith('Still waiting'))).toEqual([]);
    await kill(s.child);
  }, 90_000);
});

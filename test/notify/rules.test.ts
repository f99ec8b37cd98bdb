/**
 * Who is told what, without disk: runs are driven through the pure engine
 * (start, execute) on a fixed clock, and each committed change's events go
 * through runNotifications; then how deliveries are planned, backed off and
 * parked (schedule.ts). Expected values come from the issue, not the code.
 */
import { NO_REMINDERS } from '../../src/board/ladders.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Manifest, type Person } from '../../src/board/manifest.js';
import type { CheckAnswer } from '../../src/engine/check.js';
import { execute, start, type Command, type Plan } from '../../src/engine/execute.js';
import type { Actor, Context, Limits, Pinned, RunState } from '../../src/engine/types.js';
import { snapshotOf } from '../../src/engine/view.js';
import { digestOf, emailOf } from '../../src/notify/message.js';
import { runNotifications, type Notification } from '../../src/notify/rules.js';
import { backoffMs, delivered, dueKeys, failed, planDeliveries, retried } from '../../src/notify/schedule.js';
import type { OutboxEntry } from '../../src/notify/outbox.js';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

const LIMITS: Limits = { runDataBytes: 100_000, leaseSeconds: 600, checkPass: 0.9, checkFail: null, checkConfidence: 0.8, checkStateBytes: 65_536 };
const T0 = Date.parse('2026-10-06T09:00:00.000Z');
const ANN = 'ann@example.com';
const WES = 'wes@example.com';
const WIN = 'win@example.com';
const APE = 'ape@example.com';
const OLGA = 'olga@example.com';
const ann: Actor = { kind: 'person', email: ANN, operator: false };
const wes: Actor = { kind: 'person', email: WES, operator: false };
const ape: Actor = { kind: 'person', email: APE, operator: false };
const bot: Actor = { kind: 'agent', id: 'bot' };
const noFiles = () => ({ ok: false as const, problem: 'not found' });

function manifest(people: Person[] = [ANN, WES, WIN, APE, OLGA].map((email) => ({ email }))): Manifest {
  return {
    name: 'rules-board',
    title: 'Rules',
    description: 'd',
    settings: DEFAULT_SETTINGS,
    people,
    groups: { writers: [WES, WIN], approvers: [APE] },
    operators: [OLGA],
    agents: [{ id: 'bot' }],
    notify: null,
    notifications: { baseUrl: 'https://wb.example.com', digestMinutes: 60, maxAttempts: 3, webhook: null, email: null, timeZone: 'UTC' },
    fourEyes: false,
    evaluator: null,
    views: [],
    reminders: NO_REMINDERS,
    delegations: [],
  };
}

function pinned(frontmatter: string): Pinned {
  const r = loadProcess(`---\n${frontmatter}---\nBody.\n`, FULL_OFFER);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return { process: r.process, version: 1, hash: r.hash, roles: { writer: 'writers', approver: 'approvers' } };
}

/** A person writes, an approver approves or sends it back to the writers. */
const REPORT = pinned(`name: report
description: d
inputs:
  amount: number
steps:
  - id: prepare
    person: writer
    task: Prepare the report.
    output: { text: string }
    next: approve
  - id: approve
    person: approver
    approve: Approve the report.
    on_reject: prepare
    next: done
  - id: done
    finish: paid
`);

/** An agent step that is due in an hour. */
const CHORE = pinned(`name: chore
description: d
steps:
  - id: work
    agent: Do it.
    due: 1h
  - id: done
    finish: done
`);

const SCREEN = pinned(`name: screen
description: d
steps:
  - id: screen
    agent: Screen the vendor.
    output: { cleared: boolean }
    check:
      - ask: The verdict matches the report.
        pass: 0.9
        fail: 0.5
  - id: done
    finish: screened
`);

/** A run driven through the engine; every committed change's notifications are collected. */
class Drive {
  state!: RunState;
  readonly told: Notification[][] = [];
  private n = 0;
  private ids = 0;
  constructor(
    readonly p: Pinned,
    readonly m: Manifest = manifest(),
  ) {}

  private ctx(offsetMs: number): Context {
    return { now: new Date(T0 + offsetMs), newId: (pfx) => `${pfx}-${String(++this.n).padStart(4, '0')}`, limits: LIMITS };
  }

  private take(plan: Plan, offsetMs: number): Notification[] {
    if (plan.kind !== 'commit') throw new Error(`expected a commit, got ${JSON.stringify(plan).slice(0, 400)}`);
    this.state = plan.state;
    const notes = runNotifications(plan.events, plan.state, this.p, this.m, new Date(T0 + offsetMs).toISOString(), () => `n-${++this.ids}`);
    this.told.push(notes);
    return notes;
  }

  start(actor: Actor, inputs: Record<string, unknown> = {}, mode: 'live' | 'test' = 'live'): Notification[] {
    return this.take(start(this.p, { inputs, mode }, actor, this.ctx(0), 'r-1'), 0);
  }

  run(actor: Actor, c: Command, offsetMs = 60_000): Notification[] {
    return this.take(execute(this.state, this.p, this.ctx(offsetMs), actor, c), offsetMs);
  }

  item(stepId: string): string {
    const wi = this.state.steps[stepId]?.workItem;
    if (!wi) throw new Error(`no work item on ${stepId}`);
    return wi;
  }

  decide(actor: Actor, stepId: string, decision: 'completed' | 'approved' | 'rejected', extra: Record<string, unknown> = {}, offsetMs = 60_000): Notification[] {
    const d = { workItemId: this.item(stepId), snapshot: snapshotOf(this.state, this.p), decision, ...extra };
    return this.run(actor, { tool: 'decide', decision: d, rules: { groups: this.m.groups, fourEyes: false }, checkFile: noFiles }, offsetMs);
  }

  claim(stepId: string, offsetMs = 30_000): string {
    const plan = execute(this.state, this.p, this.ctx(offsetMs), bot, { tool: 'claim', stepId });
    if (plan.kind !== 'commit' || !plan.result || !('lease' in plan.result)) throw new Error('no lease');
    this.state = plan.state;
    return plan.result.lease.claimId;
  }
}

/** A person step for the writer role, due an hour after it opens. */
const signWithinAnHour = (name: string) =>
  pinned(`name: ${name}
description: d
steps:
  - id: sign
    person: writer
    task: Sign it.
    due: 1h
  - id: done
    finish: signed
`);

describe('who is told what, and where they act', () => {
  it('a work item opened for a group tells its members, with the work item page', () => {
    const d = new Drive(REPORT);
    const [n, ...more] = d.start(ann, { amount: 12 });
    expect(more).toEqual([]);
    expect(n).toMatchObject({ kind: 'work_item', mode: 'live', board: 'rules-board', runId: 'r-1', process: 'report', stepId: 'prepare', recipients: [WES, WIN] });
    expect(n!.path).toBe(`/work/r-1/${d.item('prepare')}`);
    expect(n!.workItemId).toBe(d.item('prepare'));
    expect(n!.subject).toBe('Report · 12: prepare the report');
    expect(n!.text).toContain('Amount: 12');
  });

  it('a work item whose role is the operators group tells the operators WORK.md names', () => {
    const d = new Drive({ ...REPORT, roles: { writer: 'writers', approver: 'operators' } });
    d.start(ann, { amount: 12 });
    const told = d.decide(wes, 'prepare', 'completed', { output: { text: 'Report.' } });
    expect(told.map((n) => [n.kind, n.stepId, n.recipients])).toEqual([['work_item', 'approve', [OLGA]]]);
  });

  it('an approval waits for the approvers; a rejection with on_reject tells the writers their step is reopened, with the note', () => {
    const d = new Drive(REPORT);
    d.start(ann, { amount: 12 });
    const toApprove = d.decide(wes, 'prepare', 'completed', { output: { text: 'Report.' } });
    expect(toApprove).toHaveLength(1);
    expect(toApprove[0]).toMatchObject({ kind: 'work_item', stepId: 'approve', recipients: [APE], path: `/work/r-1/${d.item('approve')}` });
    const back = d.decide(ape, 'approve', 'rejected', { note: 'The totals do not add up.' }, 120_000);
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ kind: 'rejected', stepId: 'prepare', recipients: [WES, WIN], path: `/work/r-1/${d.item('prepare')}` });
    expect(back[0]!.text).toContain('The totals do not add up.');
    expect(back[0]!.text).toContain(APE);
  });

  it('the run ending tells the person who started it, with its outcome and the run page', () => {
    const d = new Drive(REPORT);
    d.start(ann, { amount: 12 });
    d.decide(wes, 'prepare', 'completed', { output: { text: 'Report.' } });
    const end = d.decide(ape, 'approve', 'approved', {}, 120_000);
    expect(end).toHaveLength(1);
    expect(end[0]).toMatchObject({ kind: 'run_ended', recipients: [ANN], path: '/runs/r-1' });
    expect(end[0]!.subject).toContain('paid');
  });

  it('a cancelled run tells its starter too; a run an agent started tells nobody when it ends', () => {
    const d = new Drive(REPORT);
    d.start(ann, { amount: 1 });
    const cancelled = d.run({ kind: 'person', email: OLGA, operator: true }, { tool: 'cancel', reason: 'Duplicate.' });
    expect(cancelled.map((n) => [n.kind, n.recipients])).toEqual([['run_ended', [ANN]]]);
    expect(cancelled[0]!.subject).toMatch(/cancel/i);

    const byAgent = new Drive(CHORE);
    byAgent.start(bot);
    const claimId = byAgent.claim('work');
    expect(byAgent.run(bot, { tool: 'submit', stepId: 'work', claimId, submission: { summary: 'Done.' }, checkFile: noFiles })).toEqual([]);
    expect(byAgent.state.run.state).toBe('ended');
  });

  it('an escalation tells the operators, with the note and the work item page', () => {
    const d = new Drive(CHORE);
    expect(d.start(bot)).toEqual([]); // an agent's step: nobody to tell yet
    const claimId = d.claim('work');
    const [n, ...more] = d.run(bot, { tool: 'escalate', stepId: 'work', claimId, note: 'The vendor portal is down.' });
    expect(more).toEqual([]);
    expect(n).toMatchObject({ kind: 'escalation', stepId: 'work', recipients: [OLGA], path: `/work/r-1/${d.item('work')}` });
    expect(n!.text).toContain('The vendor portal is down.');
  });

  it('an unsure check tells the operators that a person decides', () => {
    const d = new Drive(SCREEN);
    d.start(bot);
    const claimId = d.claim('screen');
    const submission = { output: { cleared: true }, summary: 'Cleared.' };
    const ask = execute(d.state, d.p, { now: new Date(T0 + 60_000), newId: (p) => `${p}-x`, limits: LIMITS }, bot, { tool: 'submit', stepId: 'screen', claimId, submission, checkFile: noFiles });
    if (ask.kind !== 'check') throw new Error(`expected a check request, got ${ask.kind}`);
    const unsure: CheckAnswer[] = [{ yes: 0.7 }];
    const [n, ...more] = d.run(bot, { tool: 'submit', stepId: 'screen', claimId, submission, checkFile: noFiles, check: { material: ask.request.hash, model: 'judge', answers: unsure } });
    expect(more).toEqual([]);
    expect(n).toMatchObject({ kind: 'check_unsure', stepId: 'screen', recipients: [OLGA], path: `/work/r-1/${d.item('screen')}` });
  });

  it('overdue: an unclaimed agent step tells the operators (run page); a person step tells its group and the operators (work item page)', () => {
    const chore = new Drive(CHORE);
    chore.start(bot);
    const [late, ...more] = chore.run(bot, { tool: 'tick' }, 2 * 3600_000);
    expect(more).toEqual([]);
    expect(late).toMatchObject({ kind: 'overdue', stepId: 'work', recipients: [OLGA], path: '/runs/r-1' });

    const due = signWithinAnHour('due');
    const d = new Drive(due);
    d.start(ann);
    const [n] = d.run(bot, { tool: 'tick' }, 2 * 3600_000);
    expect(n).toMatchObject({ kind: 'overdue', stepId: 'sign', recipients: [WES, WIN, OLGA], path: `/work/r-1/${d.item('sign')}` });
  });

  it('a digest lists each notification in the words of its own email: the run and step titles, and when it is due in the board zone', () => {
    const signing = signWithinAnHour('signing');
    const m = manifest();
    const d = new Drive(signing, { ...m, notifications: { ...m.notifications, timeZone: 'Europe/Berlin' } });
    const [opened] = d.start(ann);
    const [late] = d.run(bot, { tool: 'tick' }, 2 * 3600_000);
    const link = `https://wb.example.com/work/r-1/${d.item('sign')}`;
    const digest = digestOf([opened!, late!], 'https://wb.example.com', 'Rules board', 'Europe/Berlin');
    // Opened at 09:00 UTC, due an hour later: 12:00 in Berlin, on summer time in October.
    expect(digest.text).toBe(
      [
        `1. Signing: sign it\n   Sign it.\n   Due Tue 6 Oct 2026, 12:00 CEST.\n   ${link}`,
        `2. Overdue: Signing: sign it\n   Sign it.\n   It was due Tue 6 Oct 2026, 12:00 CEST.\n   ${link}`,
        '— workboard (Rules board)\n',
      ].join('\n\n'),
    );
    expect(digest.html).toContain('<p>Due Tue 6 Oct 2026, 12:00 CEST.</p>');
    // Each line is what that notification's own email says.
    for (const n of [opened!, late!]) {
      const own = emailOf(n, 'https://wb.example.com', 'Rules board');
      expect(digest.text).toContain(own.subject);
      for (const line of digest.text.split('\n\n')[n === opened ? 0 : 1]!.split('\n').slice(1, -1)) expect(own.text).toContain(line.trim());
    }
  });

  it('a test run is told the same way, marked mode: test', () => {
    const d = new Drive(REPORT);
    const [n] = d.start(ann, { amount: 3 }, 'test');
    expect(n).toMatchObject({ kind: 'work_item', mode: 'test', recipients: [WES, WIN] });
  });

  it('each notification of one change has its own id', () => {
    const d = new Drive(REPORT);
    d.start(ann, { amount: 12 });
    d.decide(wes, 'prepare', 'completed', { output: { text: 'Report.' } });
    d.decide(ape, 'approve', 'rejected', { note: 'No.' });
    const ids = d.told.flat().map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('deliveries: planned once, backed off, parked', () => {
  const note: Notification = {
    id: 'n-1',
    kind: 'work_item',
    at: '2026-10-06T09:00:00.000Z',
    mode: 'live',
    board: 'b',
    runId: 'r-1',
    recipients: [ANN, WES, WIN, 'gone@example.com'],
    subject: 's',
    text: 't',
    path: '/runs/r-1',
  };
  const withChannels = (people: Person[]): Manifest => {
    const m = manifest(people);
    return {
      ...m,
      notify: { command: 'true', args: [] },
      notifications: { ...m.notifications, webhook: { url: 'http://127.0.0.1:1/' }, email: { from: 'wb@example.com', smtp: { host: '127.0.0.1' } } },
    };
  };
  const prefs = withChannels([{ email: ANN }, { email: WES, notify: 'digest' }, { email: WIN, notify: 'none' }]);

  it('the command and the webhook once each; per person an email, a digest place, or a skip saying why', () => {
    const plan = planDeliveries(note, prefs, note.at);
    expect(plan).toEqual({
      command: { attempts: 0, nextAt: note.at },
      webhook: { attempts: 0, nextAt: note.at },
      [`email:${ANN}`]: { attempts: 0, nextAt: note.at },
      [`digest:${WES}`]: { attempts: 0, nextAt: note.at },
      [`email:${WIN}`]: { attempts: 0, skipped: expect.stringMatching(/none|no notifications/) },
      'email:gone@example.com': { attempts: 0, skipped: expect.stringMatching(/no longer|not on/) },
    });
  });

  it('a test run gets every delivery skipped as a test run', () => {
    const plan = planDeliveries({ ...note, mode: 'test' }, prefs, note.at);
    expect(Object.keys(plan).length).toBe(6);
    for (const d of Object.values(plan)) expect(d).toEqual({ attempts: 0, skipped: 'test run' });
  });

  it('backoff doubles from 15 s, is capped at an hour, and jitter adds at most 10%', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a, 0))).toEqual([15_000, 30_000, 60_000, 120_000]);
    expect(backoffMs(30, 0)).toBe(3_600_000);
    expect(backoffMs(1, 1)).toBe(16_500);
    // however the jitter falls, a later attempt never waits less than an earlier one (below the cap)
    for (let a = 1; a < 8; a++) expect(backoffMs(a + 1, 0)).toBeGreaterThan(backoffMs(a, 1));
  });

  it('each failure waits longer; the maxAttempts-th failure parks it; an operator retry starts over, now', () => {
    const now = new Date('2026-10-06T09:00:00.000Z');
    let d = { attempts: 0, nextAt: now.toISOString() } as ReturnType<typeof failed>;
    const waits: number[] = [];
    for (let i = 0; i < 2; i++) {
      d = failed(d, 'the webhook answered 500', now, 3, 0);
      expect(d.parkedAt).toBeUndefined();
      waits.push(Date.parse(d.nextAt!) - now.getTime());
    }
    expect(waits).toEqual([15_000, 30_000]);
    d = failed(d, 'the webhook answered 500', now, 3, 0);
    expect(d).toEqual({ attempts: 3, lastError: 'the webhook answered 500', parkedAt: now.toISOString() });
    const entry: OutboxEntry = { ...note, deliveries: { webhook: d, command: delivered({ attempts: 0, nextAt: note.at }, note.at) } };
    expect(dueKeys(entry, new Date(now.getTime() + 86_400_000))).toEqual([]);
    const again = retried(entry, '2026-10-07T00:00:00.000Z');
    expect(again.deliveries!.webhook).toMatchObject({ attempts: 0, nextAt: '2026-10-07T00:00:00.000Z' });
    expect(again.deliveries!.webhook!.parkedAt).toBeUndefined();
    expect(again.deliveries!.command).toEqual(entry.deliveries!.command);
    expect(dueKeys(again, new Date('2026-10-07T00:00:00.000Z'))).toEqual(['webhook']);
  });
});

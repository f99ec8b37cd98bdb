/**
 * Issue 27 through the real binary: `inbox` and `show` speak the process's
 * and the board's words (the run's title, step titles, labels, people's
 * names, amounts with their unit, relative times, the agent's findings with a
 * warning marked) while --json stays the tool's result; `login-link` prints
 * only the link on stdout, pointed at WORK.md's baseUrl or
 * WORKBOARD_PUBLIC_URL; `serve --http` says where the web app is.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { boardWith } from '../identities/support.js';
import { BIN, ensureBuilt, type CliResult } from '../support/cli-run.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { hasScript, onTerminal } from '../support/terminal.js';

// Times print in the board's zone (WORK.md notifications.timeZone, UTC when unset), never the terminal's.
process.env.TZ = 'America/New_York';
beforeAll(ensureBuilt, 300_000);
afterAll(cleanupTmp);

const EXPENSE = `---
name: expense-approval
description: Check an expense claim and have finance approve the payout.
inputs:
  claimant: person
  amount: { type: number, description: Amount claimed in EUR }
  receiptUrl: string
steps:
  - id: review_claim
    agent: Read the receipt and compare the claim with the travel policy. Record whether it is within policy.
    output:
      withinPolicy: boolean
      notes: string
    next: approve
  - id: approve
    person: finance-approver
    approve: Approve the payout when the review found the claim within policy.
    due: 2d
    next: paid
  - id: paid
    finish: paid
---
# Expense approval

Finance approves the payout.
`;

const TRIP = `---
name: trip
description: Plan a trip.
inputs:
  city: string
steps:
  - id: plan
    person: initiator
    task: Choose how the trip goes on.
    output:
      nights: { type: number, description: Nights away }
    next:
      - { to: book, when: The hotel is booked }
      - { to: waiting_list, when: Put us on the waiting list }
  - id: book
    finish: booked
  - id: waiting_list
    finish: waiting
---
# Trip
`;

let dir = '';
let wb: (...args: string[]) => Promise<CliResult>;
let runId = '';

async function editWork(edit: (d: Record<string, any>) => void): Promise<void> {
  const file = path.join(dir, 'WORK.md');
  const [, front, body] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(await fs.readFile(file, 'utf8'))!;
  const data = parse(front!) as Record<string, any>;
  edit(data);
  await fs.writeFile(file, `---\n${stringify(data)}---\n${body}`);
}

const must = async (...args: string[]): Promise<CliResult> => {
  const r = await wb(...args);
  if (r.code !== 0) throw new Error(`workboard ${args.join(' ')}: ${r.stderr}`);
  return r;
};

beforeAll(async () => {
  ({ dir, wb } = await boardWith({ agents: ['reviewer'] }));
  await must('person', 'add', 'jon@example.com', '--name', 'Jon Berg');
  await must('person', 'add', 'mira@example.com', '--name', 'Mira Okafor');
  await must('group', 'add', 'finance', 'mira@example.com');
  await fs.mkdir(path.join(dir, 'processes/expense-approval'), { recursive: true });
  await fs.writeFile(path.join(dir, 'processes/expense-approval/PROCESS.md'), EXPENSE);
  await must('publish', path.join(dir, 'processes/expense-approval'), '--role', 'finance-approver=finance');
  runId = (
    await must('start', 'expense-approval', '--input', 'claimant=jon@example.com', '--input', 'amount=1240', '--input', 'receiptUrl=https://files.example/r/1.pdf', '--as', 'jon@example.com')
  ).stdout.trim();
  const token = (await must('claim', runId, 'review_claim', '--as', 'reviewer')).stdout.trim();
  await must('submit', token, '--output', 'withinPolicy=false', '--output', 'notes=Hotel is over the nightly cap.', '--summary', 'Reviewed.', '--as', 'reviewer');
}, 120_000);

describe('inbox and show in words', () => {
  it("inbox names the run, the step and the people, formats the amount and marks the agent's warning", async () => {
    const r = await must('inbox', '--as', 'mira@example.com');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('Expense approval · Jon Berg · 1,240.00 EUR');
    expect(lines[1]).toBe('  Approve the payout when the review found the claim within policy');
    expect(lines[2]).toMatch(/^ {2}due in 2 days \(\w{3} \d{1,2} \w{3} 2\d{3}, \d\d:\d\d UTC\)$/);
    expect(lines[3]).toBe('  inputs   Claimant: Jon Berg  ·  Amount claimed in EUR: 1,240.00 EUR  ·  Receipt URL: https://files.example/r/1.pdf');
    expect(lines[4]).toBe('  found    ⚠ Within policy: No  ·  Notes: Hotel is over the nightly cap.');
    expect(r.stdout).not.toContain('jon@example.com');
    expect(r.stdout).not.toContain('withinPolicy');
    expect(r.stdout).toMatch(new RegExp(`workboard decide ${runId} w-[0-9a-f]+ approved\\|rejected\\|failed --snapshot [0-9a-f]{64}`));
  });

  it('show lists the steps by their titles, who did them by name, and the outputs by label', async () => {
    const r = await must('show', runId, '--as', 'mira@example.com');
    expect(r.stdout).toMatch(/^Expense approval · Jon Berg · 1,240\.00 EUR {2}waiting\n/);
    expect(r.stdout).toContain('started just now');
    expect(r.stdout).toContain('by Jon Berg');
    expect(r.stdout).toMatch(/done +Read the receipt and compare the claim with the travel policy\n +reviewer, just now\n +⚠ Within policy: No {2}· {2}Notes: Hotel is over the nightly cap\.\n/);
    expect(r.stdout).toMatch(/waiting +Approve the payout when the review found the claim within policy {2}due in 2 days\n/);
    expect(r.stdout).toContain('waiting for the Finance group: Approve the payout when the review found the claim within policy');
  });

  it("gives times in the board's time zone, named, as its emails do, whatever the terminal's zone", async () => {
    // The terminal is in New York (TZ above); the board says Berlin: the CLI follows the board, as an email does.
    await editWork((d) => (d.notifications = { ...(d.notifications ?? {}), timeZone: 'Europe/Berlin' }));
    try {
      const r = await must('inbox', '--as', 'mira@example.com');
      const due = r.stdout.split('\n')[2]!;
      expect(due).toMatch(/^ {2}due in 2 days \(\w{3} \d{1,2} \w{3} 2\d{3}, \d\d:\d\d CES?T\)$/);
      const v = JSON.parse((await must('--json', 'show', runId)).stdout).data;
      const dueAt = v.workItems[0].due as string;
      const berlin = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(dueAt));
      expect(due).toContain(`, ${berlin} CE`);
    } finally {
      await editWork((d) => delete d.notifications);
    }
  });

  it('runs names each run in words beside its id', async () => {
    const r = await must('runs', '--process', 'expense-approval');
    expect(r.stdout).toBe(`${runId}  Expense approval · Jon Berg · 1,240.00 EUR  waiting  started just now\n`);
  });

  it('--json is the tool result, ids and keys as they are', async () => {
    const r = JSON.parse((await must('--json', 'inbox', '--as', 'mira@example.com')).stdout);
    expect(r.ok).toBe(true);
    expect(r.data.items[0]).toMatchObject({ runId, process: 'expense-approval', workItem: { stepId: 'approve', kind: 'approve' } });
    const v = JSON.parse((await must('--json', 'show', runId)).stdout);
    expect(v.data.data.steps.review_claim.output).toEqual({ withinPolicy: false, notes: 'Hotel is over the nightly cap.' });
    expect(v.data.data.inputs.amount).toBe(1240);
  });
});

describe('decide on a terminal', () => {
  it.skipIf(!hasScript)(
    "asks for outputs by label and for the route by its words; the reason defaults to the route's words",
    async () => {
      await fs.mkdir(path.join(dir, 'processes/trip'), { recursive: true });
      await fs.writeFile(path.join(dir, 'processes/trip/PROCESS.md'), TRIP);
      await must('publish', path.join(dir, 'processes/trip'));
      const trip = (await must('start', 'trip', '--input', 'city=Oslo', '--as', 'jon@example.com')).stdout.trim();
      const item = (await must('inbox', '--decide-args', '--as', 'jon@example.com')).stdout
        .split('\n')
        .find((l) => l.startsWith(trip))!
        .split(' ')[1]!;
      const run = await onTerminal([process.execPath, BIN, '--board', dir, '--as', 'jon@example.com', 'decide', trip, item], {
        prompt: 'Decision (',
        input: 'completed\n3\n\n2\n\n\ny\n',
        env: { ...process.env, NO_COLOR: '1' },
      });
      const code = run.code;
      let out = run.out;
      expect(code, out).toBe(0);
      out = out.replace(/\r/g, ''); // the terminal ends lines with CR LF
      expect(out).toContain('Nights away (number): ');
      expect(out).toContain('Where next:\n  1. The hotel is booked (Book)\n  2. Put us on the waiting list (Waiting list)\n');
      expect(out).toContain('Reason (empty: "Put us on the waiting list"): ');
      const v = JSON.parse((await must('--json', 'show', trip)).stdout).data;
      expect(v.run).toMatchObject({ state: 'ended', outcome: 'waiting' });
      expect(v.data.steps.plan).toMatchObject({ output: { nights: 3 }, next: 'waiting_list', reason: 'Put us on the waiting list' });
    },
    60_000,
  );
});

describe('login-link', () => {
  it("prints only the link on stdout, at WORKBOARD_PUBLIC_URL, then at WORK.md's baseUrl, and --base-url wins", async () => {
    const plain = await must('login-link', 'mira@example.com');
    expect(plain.stdout).toMatch(/^http:\/\/127\.0\.0\.1:7420\/signin\?code=[^\s]+\n$/);
    expect(plain.stderr).toContain('works once, for 15 minutes, for mira@example.com');
    const env = await new Promise<CliResult>((resolve) => {
      const child = spawn(process.execPath, [BIN, '--board', dir, 'login-link', 'mira@example.com'], { env: { ...process.env, NO_COLOR: '1', WORKBOARD_PUBLIC_URL: 'https://work.example.com' } });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr: '' }));
    });
    expect(env.stdout).toMatch(/^https:\/\/work\.example\.com\/signin\?code=[^\s]+\n$/);
    await editWork((d) => (d.notifications = { baseUrl: 'https://board.example.org' }));
    expect((await must('login-link', 'mira@example.com')).stdout).toMatch(/^https:\/\/board\.example\.org\/signin\?code=[^\s]+\n$/);
    expect((await must('login-link', 'mira@example.com', '--base-url', 'https://other.example')).stdout).toMatch(/^https:\/\/other\.example\/signin\?code=/);
    await editWork((d) => delete d.notifications);
  });
});

describe('serve --http', () => {
  it("prints the web app's address beside the MCP one", async () => {
    const child = spawn(process.execPath, [BIN, '--board', dir, 'serve', '--http', '127.0.0.1:0'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const web = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /web app at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('close', () => reject(new Error(out)));
    });
    try {
      expect(out).toMatch(/MCP over HTTP at http:\/\/127\.0\.0\.1:\d+\/mcp/);
      const page = await fetch(new URL('signin', web));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
    } finally {
      const gone = new Promise((r) => child.once('close', r));
      child.kill('SIGTERM');
      await gone;
    }
  });
});

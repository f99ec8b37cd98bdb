/**
 * flow-1 from the command line, each command a real process on a real board:
 * `start` with the runs a payment waits for (its blocked_by input), `show`
 * saying it is blocked and naming them by title, `decide` on the blocker
 * waking it, and `priority` setting its level (operators and its starter),
 * audited in `audit log`.
 */
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT } from '../support/cli-run.js';

let b: string;

afterAll(async () => {
  if (b) await fs.rm(path.dirname(b), { recursive: true, force: true });
});

function wb(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, '--board', b, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const json = (...args: string[]) => JSON.parse(wb('--json', ...args).stdout);

beforeAll(async () => {
  await ensureBuilt();
  b = path.join(await fs.mkdtemp(path.join(tmpdir(), 'wb-flow-cli-')), 'b');
  expect(spawnSync(process.execPath, [BIN, 'init', b, '--name', 'flow']).status).toBe(0);
  for (const args of [
    ['person', 'add', 'ana@example.com'],
    ['person', 'add', 'lee@example.com'],
    ['person', 'add', 'fin@example.com'],
    ['person', 'add', 'ops@example.com'],
    ['operator', 'add', 'ops@example.com'],
    ['group', 'add', 'legal', 'lee@example.com'],
    ['group', 'add', 'finance', 'fin@example.com'],
  ])
    expect(wb(...args).code).toBe(0);
  expect(wb('publish', path.join(ROOT, 'fixtures/service/contract-approval'), '--role', 'legal=legal').code).toBe(0);
  expect(wb('publish', path.join(ROOT, 'fixtures/service/supplier-payment'), '--role', 'finance=finance').code).toBe(0);
}, 300_000);

describe('flow-1 in the CLI', () => {
  it('starts a run blocked by another, shows what it waits for, wakes it with the blocker\'s approval, and sets its priority', () => {
    const contract = wb('start', 'contract-approval', '--input', 'supplier=Acme', '--as', 'ana@example.com').stdout.trim();
    const payment = wb('start', 'supplier-payment', '--input', 'supplier=Acme', '--input', 'amount=120', '--input', `after=["${contract}"]`, '--as', 'ana@example.com').stdout.trim();
    expect(payment).toMatch(/^r-/);

    const blocked = wb('show', payment, '--as', 'fin@example.com');
    expect(blocked.code).toBe(0);
    expect(blocked.stdout).toContain('Supplier payment · Acme');
    expect(blocked.stdout).toMatch(/ blocked\n/);
    expect(blocked.stdout).toContain('  priority high\n');
    expect(blocked.stdout).toContain(`  blocked, waiting for:\n      Contract approval · Acme  waiting\n      ${contract}\n`);
    expect(json('inbox', '--as', 'fin@example.com').data.items).toEqual([]);

    const review = json('show', contract, '--as', 'lee@example.com').data.workItems[0];
    expect(wb('decide', contract, review.id, 'approved', '--snapshot', review.snapshot, '--as', 'lee@example.com').code).toBe(0);
    const woken = wb('show', payment, '--as', 'fin@example.com').stdout;
    expect(woken).toContain(`  was blocked by:\n      Contract approval · Acme  ended approved\n`);
    expect(json('inbox', '--as', 'fin@example.com').data.items.map((i: { runId: string }) => i.runId)).toEqual([payment]);

    const refused = wb('priority', payment, 'urgent', '--as', 'fin@example.com');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('only an operator or the person who started the run sets its priority');
    const set = wb('priority', payment, 'urgent', '--as', 'ops@example.com');
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('  priority urgent\n');
    expect(wb('priority', payment, 'asap', '--as', 'ops@example.com').stderr).toContain('priority: one of low, normal, high, urgent');
    const log = wb('log', payment).stdout;
    expect(log).toContain('every run it waited for ended well: its work starts');
    expect(log).toMatch(/ops@example\.com set the priority to urgent\b.*was high/);
  });
});

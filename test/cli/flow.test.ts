/**
 * flow-1 from the command line, each command a real process on a real board:
 * `start` with the runs a payment waits for (its blocked_by input), `show`
 * saying it is blocked and naming them by title, `decide` on the blocker
 * waking it, and `priority` setting its level (operators and its starter),
 * audited in `audit log`; `show` and `log` of a parent and its children,
 * which name one another by title, never by a bare id.
 */
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT, workboardBatch } from '../support/cli-run.js';

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
  // The board's set-up is a fixture: one process for all of it (workboardBatch); what the tests call runs as its own.
  const fixture = (f: string) => path.join(ROOT, 'fixtures/service', f);
  await workboardBatch(
    [
      ['init', b, '--name', 'flow'],
      ['person', 'add', 'ana@example.com'],
      ['person', 'add', 'lee@example.com'],
      ['person', 'add', 'fin@example.com'],
      ['person', 'add', 'ops@example.com'],
      ['operator', 'add', 'ops@example.com'],
      ['group', 'add', 'legal', 'lee@example.com'],
      ['group', 'add', 'finance', 'fin@example.com'],
      ['group', 'add', 'it', 'fin@example.com'],
      ['publish', fixture('contract-approval'), '--role', 'legal=legal'],
      ['publish', fixture('supplier-payment'), '--role', 'finance=finance'],
      ['publish', fixture('equipment-order')],
      ['publish', fixture('access-request'), '--role', 'it=it'],
      ['publish', fixture('onboarding'), '--role', 'it=it'],
    ].map((args) => ({ cwd: path.dirname(b), args: ['--board', b, ...args] })),
  );
}, 300_000);

/** The lines of a CLI text that name a run by id alone: the id as the whole line (a dim line under its title is allowed) is fine; an id inside words is not. */
const idsInWords = (text: string): string[] => text.split('\n').filter((l) => /r-[0-9a-z]{26}/.test(l) && !/^\s*r-[0-9a-z]{26}(,|$)/.test(l));

describe('flow-1 in the CLI', () => {
  it("starts a run blocked by another, shows what it waits for, wakes it with the blocker's approval, and sets its priority", () => {
    const contract = wb('start', 'contract-approval', '--input', 'supplier=Acme', '--as', 'ana@example.com').stdout.trim();
    const payment = wb('start', 'supplier-payment', '--input', 'supplier=Acme', '--input', 'amount=120', '--input', `after=["${contract}"]`, '--as', 'ana@example.com').stdout.trim();
    expect(payment).toMatch(/^r-/);

    const blocked = wb('show', payment, '--as', 'fin@example.com');
    expect(blocked.code).toBe(0);
    expect(blocked.stdout).toContain('Supplier payment · Acme');
    expect(blocked.stdout).toMatch(/ blocked\n/);
    expect(blocked.stdout).toContain('  priority high\n');
    expect(blocked.stdout).toContain(`  blocked, waiting for:\n      Contract approval · Acme  waiting\n      ${contract}\n`);
    expect(blocked.stdout).toMatch(/ {2}inputs .*The runs this payment waits for: Contract approval · Acme/);
    expect(idsInWords(blocked.stdout)).toEqual([]);
    expect(wb('log', payment).stdout).toContain('the run waits for “Contract approval · Acme” to end');
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

  it('shows a parent with its children and a child with its parent, by title, and logs what the parent started in words', () => {
    const parent = wb('start', 'onboarding', '--input', 'employee=Mira Okafor', '--input', 'equipment=["laptop","phone"]', '--input', 'systems=[]', '--as', 'ana@example.com').stdout.trim();
    expect(parent).toMatch(/^r-/);
    const shown = wb('show', parent, '--as', 'fin@example.com');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('  rollup:  active (0 of 2 ended)\n  children:\n      Equipment order · Mira Okafor · laptop  active  from Equipment\n');
    expect(shown.stdout).toContain('      Equipment order · Mira Okafor · phone  active  from Equipment\n');
    expect(idsInWords(shown.stdout)).toEqual([]);
    const kids = [...shown.stdout.matchAll(/^ {6}(r-[0-9a-z]{26})$/gm)].map((m) => m[1]!);
    expect(kids).toHaveLength(2);

    const child = wb('show', kids[1]!, '--as', 'fin@example.com').stdout;
    expect(child).toContain(`  parent:  Onboarding · Mira Okafor  waiting\n      ${parent}\n`);
    expect(idsInWords(child)).toEqual([]);

    expect(wb('cancel', parent, '--reason', 'The candidate withdrew.', '--as', 'ops@example.com').code).toBe(0);
    const cancelled = wb('show', kids[0]!, '--as', 'fin@example.com').stdout;
    expect(cancelled).toContain('its parent “Onboarding · Mira Okafor” was cancelled');
    expect(idsInWords(cancelled)).toEqual([]);
    const log = wb('log', parent).stdout;
    expect(log).toContain('“Equipment” started 2 runs of Equipment order and waits for them');
    expect(idsInWords(log)).toEqual([]);
    expect(wb('log', kids[0]!).stdout).toContain('the run was cancelled');
  });
});

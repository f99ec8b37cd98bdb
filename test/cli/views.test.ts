/**
 * `workboard runs --view <id>` on a copy of the example board, each command a
 * real process: the first view (a board layout by priority) in words, a view
 * named, `--json`, an unknown view refused naming the views there are, a
 * view mixed with other filters refused, and an invalid view in WORK.md
 * refused with the file named and every problem listed, the board unchanged.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, promises as fs, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT } from '../support/cli-run.js';

let b: string;
const runs = { contract: '', blocked: '', urgent: '' };

function wb(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, '--board', b, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const start = (process: string, ...inputs: string[]) => {
  const r = wb('start', process, ...inputs.flatMap((i) => ['--input', i]), '--as', 'jon@example.com');
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
};

beforeAll(async () => {
  await ensureBuilt();
  b = path.join(await fs.mkdtemp(path.join(tmpdir(), 'wb-views-cli-')), 'b');
  cpSync(path.join(ROOT, 'examples/board'), b, { recursive: true, filter: (src) => path.basename(src) !== '.work' });
  runs.contract = start('contract-approval', 'supplier=Nordlicht', 'contractUrl=https://contracts.example.com/n.pdf', 'value=48000');
  runs.blocked = start('supplier-payment', 'supplier=Nordlicht', 'amount=12000', 'invoiceUrl=https://invoices.example.com/n.pdf', 'urgency=high', `after=["${runs.contract}"]`);
  runs.urgent = start('supplier-payment', 'supplier=Stadtwerke', 'amount=2250', 'invoiceUrl=https://invoices.example.com/s.pdf', 'urgency=urgent');
}, 300_000);

afterAll(async () => {
  if (b) await fs.rm(path.dirname(b), { recursive: true, force: true });
});

describe('runs --view', () => {
  it('the first view, a board by priority, in words: columns most urgent first, each run by title with what it waits for', () => {
    const r = wb('runs', '--view', 'open-by-priority', '--as', 'mira@example.com');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('Open work by priority  3 runs');
    const heads = lines.filter((l) => /^[A-Z]/.test(l)).slice(1);
    expect(heads).toEqual(['Urgent  1', 'High  1', 'Normal  1']);
    expect(r.stdout).toContain(`  ${runs.urgent}  Supplier payment · 2,250.00 EUR · Stadtwerke · Urgent  Waiting · urgent · waiting for the finance group · started`);
    expect(r.stdout).toContain(`  ${runs.blocked}  Supplier payment · 12,000.00 EUR · Nordlicht · High  Waiting · high · waiting for other runs · started`);
    expect(r.stdout).toContain(`  ${runs.contract}  Contract approval · 48,000.00 EUR · Nordlicht  Waiting · waiting for the legal group · started`);
  });

  it('a list view, and --json with the view, its runs and no columns', () => {
    const r = wb('runs', '--view', 'blocked-payments', '--as', 'mira@example.com');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([
      'Payments waiting for a contract  1 run',
      expect.stringMatching(new RegExp(`^${runs.blocked}  Supplier payment · 12,000.00 EUR · Nordlicht · High  Waiting · high · waiting for other runs · started `)),
    ]);
    const j = JSON.parse(wb('--json', 'runs', '--view', 'waiting-on', '--as', 'mira@example.com').stdout);
    expect(j.ok).toBe(true);
    expect(j.data.view).toEqual({ id: 'waiting-on', title: 'Who each run waits for', filter: { state: ['active', 'waiting'] }, groupBy: 'waitingFor', layout: 'board' });
    expect(j.data.runs.map((x: { id: string }) => x.id)).toEqual([runs.urgent, runs.blocked, runs.contract]);
    expect(j.data.runs[1]).toMatchObject({ blocked: true, priority: 30, waitingFor: [{ kind: 'runs' }], parent: null });
    expect(j.data.columns).toEqual([
      { key: { by: 'waitingFor', waiter: { kind: 'group', name: 'finance' } }, runs: [runs.urgent] },
      { key: { by: 'waitingFor', waiter: { kind: 'runs' } }, runs: [runs.blocked] },
      { key: { by: 'waitingFor', waiter: { kind: 'group', name: 'legal' } }, runs: [runs.contract] },
    ]);
  });

  it('an unknown view is not_found, naming the views there are; a view is not mixed with other filters', () => {
    const r = wb('runs', '--view', 'nope', '--as', 'mira@example.com');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no view nope: the views are open-by-priority, waiting-on, blocked-payments');
    const mixed = wb('runs', '--view', 'waiting-on', '--process', 'supplier-payment', '--as', 'mira@example.com');
    expect(mixed.code).not.toBe(0);
    expect(mixed.stderr).toContain('--view is a filter of its own: leave out --process');
  });

  it('an invalid view in WORK.md is refused with the file named and every problem listed, and nothing changes', () => {
    const work = path.join(b, 'WORK.md');
    const good = readFileSync(work, 'utf8');
    const bad = good
      .replace('    groupBy: priority\n    layout: board\n', '    groupBy: owner\n    layout: timeline\n')
      .replace('      blocked: true\n', '      blocked: true\n      assignee: nobody@example.com\n');
    writeFileSync(work, bad);
    try {
      const r = wb('runs', '--view', 'waiting-on', '--as', 'mira@example.com');
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('WORK.md is not a valid board file');
      expect(r.stderr).toContain('WORK.md: views[0].groupBy: must be one of "state", "priority", "waitingFor", "process", "parent"');
      expect(r.stderr).toContain('WORK.md: views[0].layout: must be one of "list", "board"');
      expect(r.stderr).toContain('WORK.md: views[2].filter.assignee: "nobody@example.com" is neither a person (people:) nor a group (groups:) of this board');
      expect(readFileSync(work, 'utf8')).toBe(bad);
    } finally {
      writeFileSync(work, good);
    }
  });
});

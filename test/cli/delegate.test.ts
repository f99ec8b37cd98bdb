/**
 * Out of office through the real binary (issue 42): `workboard delegate`
 * hands Mira's work to Jon; `inbox` shows him her approval "for Mira Okafor";
 * he decides it and `log` says "Jon Park approved for Mira Okafor"; refusals
 * name every problem and exit 1 with WORK.md unchanged; `--end` as someone
 * else is refused, as an operator it ends it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardWith, PAYOUT } from '../identities/support.js';
import { ensureBuilt } from '../support/cli-run.js';
import { cleanupTmp } from '../support/tmp-board.js';

beforeAll(ensureBuilt, 300_000);
afterAll(cleanupTmp);

const MIRA = 'mira@example.com';
const JON = 'jon@example.com';

async function board() {
  const { dir, wb } = await boardWith({ agents: ['bot'] });
  expect((await wb('person', 'add', MIRA, '--name', 'Mira Okafor')).code).toBe(0);
  expect((await wb('person', 'add', JON, '--name', 'Jon Park')).code).toBe(0);
  expect((await wb('person', 'add', 'ops@example.com', '--name', 'Olu Ops')).code).toBe(0);
  expect((await wb('operator', 'add', 'ops@example.com')).code).toBe(0);
  expect((await wb('group', 'add', 'finance', MIRA)).code).toBe(0);
  await fs.mkdir(path.join(dir, 'processes/payout'), { recursive: true });
  await fs.writeFile(path.join(dir, 'processes/payout/PROCESS.md'), PAYOUT);
  expect((await wb('publish', path.join(dir, 'processes/payout'), '--role', 'approver=finance')).code).toBe(0);
  const runId = (await wb('start', 'payout', '--input', 'amount=184.5', '--as', 'bot')).stdout.trim();
  return { dir, wb, runId };
}

const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);

describe('workboard delegate', () => {
  it('hands work over: inbox marks it, the decision is for Mira in log, and it ends', async () => {
    const { dir, wb, runId } = await board();
    expect((await wb('inbox', '--as', JON)).stdout).toBe('nothing waiting for you\n');
    const set = await wb('delegate', JON, '--until', inAWeek(), '--note', 'Holiday', '--as', MIRA);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^delegated Mira Okafor → Jon Park until .* \(Holiday\)\n/);
    expect((await wb('delegate', '--list')).stdout).toMatch(/^Mira Okafor → Jon Park until /);
    const inbox = await wb('inbox', '--as', JON);
    expect(inbox.stdout).toContain('  Approve the payout\n  for Mira Okafor (out of office)\n');
    const item = (await wb('inbox', '--decide-args', '--as', JON)).stdout.trim().split(/\s+/);
    const decided = await wb('decide', ...item, 'approved', '--note', 'Paid while Mira is away.', '--as', JON);
    expect(decided.code, decided.stderr).toBe(0);
    const log = await wb('log', runId);
    expect(log.stdout).toContain(' Jon Park approved for Mira Okafor “Approve the payout” ("Paid while Mira is away.")\n');

    const byJon = await wb('delegate', '--end', '--for', MIRA, '--as', JON);
    expect(byJon.code).toBe(1);
    expect(byJon.stderr).toContain('only mira@example.com or an operator');
    const byOps = await wb('delegate', '--end', '--for', MIRA, '--as', 'ops@example.com');
    expect(byOps.code, byOps.stderr).toBe(0);
    expect(byOps.stdout).toBe("ended Mira Okafor's out of office: their work is theirs again\n");
    expect((await wb('delegate', '--list')).stdout).toBe('nobody is out of office\n');
    // Both changes are audited on the board's chain, with who made them and both people.
    const lines = (await fs.readFile(path.join(dir, 'audit/board.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.slice(-2).map((l) => [l.actor, l.action, l.input.changes.change])).toEqual([
      [MIRA, 'delegation.set', expect.stringMatching(/^delegation mira@example\.com to jon@example\.com until /)],
      ['ops@example.com', 'delegation.ended', 'delegation mira@example.com to jon@example.com ended'],
    ]);
  });

  it('refuses to oneself, to a stranger, a past end, and a cycle, naming each; nothing changes', async () => {
    const { dir, wb } = await board();
    const before = await fs.readFile(path.join(dir, 'WORK.md'), 'utf8');
    const self = await wb('delegate', MIRA, '--until', '2020-01-01', '--as', MIRA);
    expect(self.code).toBe(1);
    expect(self.stderr).toContain('to: a person cannot hand their work to themselves');
    expect(self.stderr).toMatch(/until: 2020-01-01T00:00:00Z is already past/);
    const stranger = await wb('delegate', 'nobody@example.com', '--until', inAWeek(), '--as', MIRA);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain('to: nobody@example.com is not a person on this board');
    expect(await fs.readFile(path.join(dir, 'WORK.md'), 'utf8')).toBe(before);
    expect((await wb('delegate', JON, '--until', inAWeek(), '--as', MIRA)).code).toBe(0);
    const cycle = await wb('delegate', MIRA, '--until', inAWeek(), '--as', JON);
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toContain('to: that would be a cycle: jon@example.com → mira@example.com → jon@example.com');
    const usage = await wb('delegate', '--as', MIRA);
    expect(usage.code).toBe(2);
  });
});

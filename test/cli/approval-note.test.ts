/**
 * Through the real binary: an approval's note is kept like a rejection's, in
 * the step file, on the audit line, and in `show` and `log`; a decided
 * approval reads as its decision ("approved", "rejected", never "done"), its
 * step by title, and `log` prints a long note whole.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardWith, PAYOUT } from '../identities/support.js';
import { ensureBuilt } from '../support/cli-run.js';
import { cleanupTmp } from '../support/tmp-board.js';

// A stale dist/ is rebuilt once here, not inside the test's own time limit.
beforeAll(ensureBuilt, 300_000);
afterAll(cleanupTmp);

/** A board where the agent bot started a payout that waits for Ana (finance), and the decide arguments inbox gives her. */
async function payoutAwaitingAna() {
  const { dir, wb } = await boardWith({ people: ['ana@example.com'], agents: ['bot'] });
  expect((await wb('group', 'add', 'finance', 'ana@example.com')).code).toBe(0);
  await fs.mkdir(path.join(dir, 'processes/payout'), { recursive: true });
  await fs.writeFile(path.join(dir, 'processes/payout/PROCESS.md'), PAYOUT);
  expect((await wb('publish', path.join(dir, 'processes/payout'), '--role', 'approver=finance')).code).toBe(0);
  const runId = (await wb('start', 'payout', '--input', 'amount=184.5', '--as', 'bot')).stdout.trim();
  const item = (await wb('inbox', '--limit', '1', '--decide-args', '--as', 'ana@example.com')).stdout.trim().split(/\s+/);
  return { dir, wb, runId, item };
}

describe('an approval with a note', () => {
  it('keeps the note in the step file and the audit line; show and log print it', async () => {
    const { dir, wb, runId, item } = await payoutAwaitingAna();
    const note = 'OK to pay. Receipt matches.';
    const decided = await wb('decide', ...item, 'approved', '--note', note, '--as', 'ana@example.com');
    expect(decided.code, decided.stderr).toBe(0);

    const stepFile = await fs.readFile(path.join(dir, 'runs', runId, 'approve.md'), 'utf8');
    expect(stepFile).toContain('decision: approved\n');
    expect(stepFile).toContain(`note: ${note}\n`);
    const lines = (await fs.readFile(path.join(dir, 'runs', runId, 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.action === 'step.completed' && l.entity === `${runId}/approve`)).toMatchObject({ actor: 'ana@example.com', input: { changes: { note } } });

    const show = await wb('show', runId, '--as', 'ana@example.com');
    expect(show.stdout).toMatch(new RegExp(`approved +Approve the payout\\n +ana@example\\.com, just now: approved\\n\\s+note: ${note.replace(/\./g, '\\.')}\\n`));
    const log = await wb('log', runId);
    expect(log.stdout).toContain(` ana@example.com approved “Approve the payout” ("${note}")\n`);
    expect(log.stdout).toContain(' bot started Payout v1\n');
  });

  it('says a rejection as "rejected" in show, and log keeps a long note whole', async () => {
    const { wb, runId, item } = await payoutAwaitingAna();
    const note = 'The hotel invoice covers two nights but the trip was one night; attach the corrected invoice from the hotel and the boarding passes.';
    expect(note.length).toBeGreaterThan(120);
    const decided = await wb('decide', ...item, 'rejected', '--note', note, '--as', 'ana@example.com');
    expect(decided.code, decided.stderr).toBe(0);

    const show = await wb('show', runId, '--as', 'ana@example.com');
    expect(show.stdout).toMatch(/\n {2}rejected +Approve the payout\n/);
    expect(show.stdout).not.toMatch(/\n {2}done +Approve the payout/);
    const log = await wb('log', runId);
    expect(log.stdout).toContain(` ana@example.com rejected “Approve the payout” ("${note}")\n`);
  });
});

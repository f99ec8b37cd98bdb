/**
 * Operators hear when the check evaluator keeps failing: the third failure in
 * a row puts one `evaluator_failing` notification for them in the outbox, and
 * failures after it (the same streak) do not add more.
 */
import { afterAll, expect, it } from 'vitest';
import { allEntries } from '../../src/notify/outbox.js';
import { CAST, cleanupHarnesses, Harness, rid } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SUBMISSION = {
  output: { cleared: true, report: 'OFAC: no match. EU: no match.' },
  summary: 'Searched OFAC and the EU list; no match. Cleared.',
  next: 'approve',
  reason: 'Cleared on both lists.',
};

it('the third evaluator failure in a row tells the operators once', async () => {
  // An evaluator command that always fails.
  const h = await Harness.open({
    groups: { finance: [CAST.fin] },
    evaluator: { command: process.execPath, args: ['-e', 'process.stderr.write("down for maintenance"); process.exit(2)'], timeoutSeconds: 10 },
    processes: [{ folder: 'sanctions-screen', roles: { finance: 'finance' } }],
  });
  const run = await h.start('sanctions-screen', { supplier: 'Acme Ltd' });
  const { token } = await h.claim(run.run.id, 'screen');
  const told = async () => (await allEntries(h.board.store)).filter((e) => e.kind === 'evaluator_failing');
  for (let i = 1; i <= 4; i++) {
    const err = await h.fail('submit', { token, ...SUBMISSION, requestId: rid() }, CAST.agent);
    expect(err.code).toBe('retry');
    expect(await told()).toHaveLength(i < 3 ? 0 : 1);
  }
  const [n] = await told();
  expect(n).toMatchObject({ recipients: [CAST.operator], path: '/operators' });
  expect(n!.text).toContain('down for maintenance');
});

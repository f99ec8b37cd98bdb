/**
 * Notifications around checks: the third evaluator failure in a row puts one
 * `evaluator_failing` notification for the operators in the outbox (the same
 * streak adds no more); an unsure check on a person's task goes to the
 * operators, and what they return goes back to the task's people with the note.
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
  const told = async () => (await allEntries(h.board.state)).filter((e) => e.kind === 'evaluator_failing');
  for (let i = 1; i <= 4; i++) {
    const err = await h.fail('submit', { token, ...SUBMISSION, requestId: rid() }, CAST.agent);
    expect(err.code).toBe('retry');
    expect(await told()).toHaveLength(i < 3 ? 0 : 1);
  }
  const [n] = await told();
  expect(n).toMatchObject({ recipients: [CAST.operator], path: '/operators' });
  expect(n!.text).toContain('down for maintenance');
});

it("a task an unsure check escalated, returned by an operator, is told to the task's people as returned, with the note", async () => {
  const AGREEABLE = new URL('../support/evaluators/agreeable.mjs', import.meta.url).pathname;
  const h = await Harness.open({
    groups: { writers: [CAST.cat] },
    evaluator: { command: process.execPath, args: [AGREEABLE], timeoutSeconds: 10 },
    // Between 0.5 and 0.9 a yes/no answer is unsure (the test evaluator answers 0.7 to UNSURE).
    checkLimits: { checkFail: 0.5 },
    processes: [{ folder: 'press-note', roles: { signer: 'writers' } }],
  });
  const run = await h.start('press-note', {});
  const c = await h.claim(run.run.id, 'draft');
  const drafted = await h.ok('submit', { token: c.token, output: { text: 'Release 2 ships on 5 May.' }, summary: 'Drafted.', requestId: rid() }, CAST.agent);
  // The signer completes the task; the check is unsure, so the operators decide.
  const task = h.item(drafted, 'sign_off');
  const escalated = await h.ok(
    'decide',
    { runId: run.run.id, workItemId: task.id, snapshot: task.snapshot, decision: 'completed', output: { text: 'Release 2 ships.' }, summary: 'UNSURE about the date', requestId: rid() },
    CAST.cat,
  );
  const held = h.item(escalated, 'sign_off');
  expect(held.assignedTo).toEqual({ group: 'operators' });
  await h.ok('decide', { runId: run.run.id, workItemId: held.id, snapshot: held.snapshot, decision: 'returned', note: 'Name the date, please.', requestId: rid() }, CAST.operator);
  const kinds = (await allEntries(h.board.state)).map((e) => ({ kind: e.kind, to: e.recipients, text: e.text }));
  expect(kinds).toContainEqual({ kind: 'check_unsure', to: [CAST.operator], text: expect.any(String) });
  expect(kinds).toContainEqual({ kind: 'returned', to: [CAST.cat], text: expect.stringContaining('Name the date, please.') });
});

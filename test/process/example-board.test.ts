/**
 * The example board's processes say what they do. Its expense claim asks the
 * claimant, not whoever started the run, when the review finds something
 * missing (finance once got Jon's question); its approval's title reads true
 * whichever way the review went; and each process's source is the version
 * the example board last published, so what a reader opens is what runs.
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, REPO, rid } from '../support/svc-harness.js';

const PROCESSES = path.join(REPO, 'examples/board/processes');

afterAll(cleanupHarnesses);

describe('the example expense claim', () => {
  it('asks the claimant what the review found missing, even when someone else started the run', async () => {
    const h = await Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: path.join(PROCESSES, 'expense-approval'), roles: { 'finance-approver': 'finance' } }] });
    // Bob, in finance's office, files Ann's claim for her.
    const run = await h.start('expense-approval', { claimant: CAST.ann, amount: 48, receiptUrl: 'https://receipts.example.com/48' }, CAST.bob);
    const c = await h.claim(run.run.id, 'review_claim');
    await h.ok(
      'submit',
      {
        token: c.token,
        output: { withinPolicy: false, notes: 'The receipt is missing its date.' },
        evidence: [{ kind: 'link', ref: 'https://policy.example.com/travel' }],
        summary: 'Sent back to Ann.',
        next: 'ask_claimant',
        reason: 'The date is missing.',
        requestId: rid(),
      },
      CAST.agent,
    );
    const view = await h.view(run.run.id, CAST.ann);
    expect(view.workItems.map((w: { stepId: string; assignedTo: unknown }) => [w.stepId, w.assignedTo])).toEqual([['ask_claimant', { person: CAST.ann }]]);
  });

  it("has an approval whose title does not claim the review's result", () => {
    const text = readFileSync(path.join(PROCESSES, 'expense-approval/PROCESS.md'), 'utf8');
    const approve = /approve: (.*)/.exec(text)?.[1] ?? '';
    expect(approve).not.toMatch(/when the review found/);
    expect(approve).toMatch(/^Approve the payout if /);
  });
});

describe('every example process', () => {
  it('is, as written, the version the example board last published', async () => {
    const names = (await fs.readdir(PROCESSES, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const versions = (await fs.readdir(path.join(PROCESSES, name))).filter((f) => /^v\d+$/.test(f)).map((f) => Number(f.slice(1)));
      const latest = Math.max(...versions);
      const source = await fs.readFile(path.join(PROCESSES, name, 'PROCESS.md'), 'utf8');
      const published = await fs.readFile(path.join(PROCESSES, name, `v${latest}`, 'PROCESS.md'), 'utf8');
      expect({ name, source }).toEqual({ name, source: published });
    }
  });
});

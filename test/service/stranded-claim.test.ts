/**
 * A claim here ends when the step's files arrive completed by another agent
 * (docs/git.md "Never completed twice"): a clone's lease lives in its own
 * `.work/`, so the other clone, which had no lease for the step, let its own
 * agent claim and submit it, and the files that arrive here (by a git
 * fast-forward, say) hold this run's chain with that agent's lines on top.
 * The token here then answers stale, naming who completed the step, and the
 * step is completed once. The other clone is a copy of the board without
 * its leases; the arrival is a copy of the run's folder.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { evaluate } from '../../src/evaluator/evaluator.js';
import { Service } from '../../src/service/service.js';
import { CAST, CLAIM_REVIEW_SUBMISSION, cleanupHarnesses, Harness, rid, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = { groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] };

describe('a claim whose step arrives completed by another agent', () => {
  it('answers stale, naming that agent, to renew and submit; the step is completed once', async () => {
    const h = await Harness.open(SPEC);
    const run = (await h.start('claim-review', { claimant: CAST.ann, amount: 10 })) as { run: { id: string } };
    const id = run.run.id;
    const token = ((await h.claim(id, 'check', CAST.agent)) as { token: string }).token;

    // The other clone: this board as it is now, without this clone's leases.
    const other = path.join(path.dirname(h.root), 'other');
    await fs.cp(h.root, other, { recursive: true });
    await fs.rm(path.join(other, '.work', 'leases'), { recursive: true, force: true });
    const there = await Service.open(await Board.open(other), { now: () => new Date(h.clock), evaluate });
    const rival = { kind: 'agent', id: CAST.rival } as const;
    const claimed = await there.callWire('claim', { runId: id, stepId: 'check', requestId: rid() }, rival);
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    const submitted = await there.callWire('submit', { token: claimed.ok ? (claimed.data as { token: string }).token : '', requestId: rid(), ...CLAIM_REVIEW_SUBMISSION }, rival);
    expect(submitted.ok, JSON.stringify(submitted)).toBe(true);

    // Its run folder arrives here whole, as a fast-forward brings it.
    await fs.cp(path.join(other, 'runs', id), path.join(h.root, 'runs', id), { recursive: true });

    const renew = await h.fail('renew', { token }, CAST.agent);
    expect(renew.code).toBe('stale');
    expect(renew.message).toContain(`${CAST.rival} completed check`);
    const submit = await h.fail('submit', { token, ...CLAIM_REVIEW_SUBMISSION }, CAST.agent);
    expect(submit.code).toBe('stale');
    expect(submit.message).toContain(`${CAST.rival} completed check`);
    const chain = (await fs.readFile(path.join(h.root, 'runs', id, 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { actor: string; action: string; entity: string });
    expect(chain.filter((e) => e.action === 'step.completed' && e.entity.endsWith('/check')).map((e) => e.actor)).toEqual([CAST.rival]);
  });
});

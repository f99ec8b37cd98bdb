/**
 * list_runs (tool contracts "list_runs", spec §4.2) and list_processes:
 * filter by process, state and equality of input fields; paged with cursors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, instant, type BoardSpec, CLAIM_REVIEW_SUBMISSION } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { finance: [CAST.fin] },
  processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }, { folder: 'two-payments' }],
};
const SUBMISSION = CLAIM_REVIEW_SUBMISSION;

describe('list_runs', () => {
  let h: Harness;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    h = await Harness.open(SPEC);
    ids.a = (await h.start('claim-review', { claimant: CAST.ann, amount: 10 })).run.id;
    h.advance('1m');
    ids.b = (await h.start('claim-review', { claimant: CAST.bob, amount: 10 })).run.id;
    h.advance('1m');
    ids.c = (await h.start('claim-review', { claimant: CAST.ann, amount: 99.5 })).run.id;
    h.advance('1m');
    ids.d = (await h.start('two-payments', {})).run.id;
    h.advance('1m');
    await h.ok('cancel', { runId: ids.b, reason: 'Duplicate.' }, CAST.operator);
    const c = await h.claim(ids.c!, 'check');
    await h.ok('submit', { token: c.token, ...SUBMISSION }, CAST.agent);
  });

  const idsOf = (r: { items: { id: string }[] }) => r.items.map((i) => i.id).sort();

  it('lists every run with its summary row', async () => {
    const all = await h.ok('list_runs', {}, CAST.ann);
    expect(idsOf(all)).toEqual([ids.a, ids.b, ids.c, ids.d].sort());
    expect(all.nextCursor).toBeNull();
    const row = all.items.find((i: { id: string }) => i.id === ids.c);
    expect(row).toEqual({
      id: ids.c,
      process: 'claim-review',
      version: 1,
      state: 'waiting',
      outcome: null,
      startedAt: instant('2026-10-06T09:02:00Z'),
      updatedAt: expect.any(String),
      inputs: { claimant: CAST.ann, amount: 99.5 },
    });
    expect(all.items.find((i: { id: string }) => i.id === ids.b)).toMatchObject({ state: 'cancelled', outcome: null });
    // Anyone in the organization may list runs.
    expect(idsOf(await h.ok('list_runs', {}, CAST.agent))).toEqual(idsOf(all));
  });

  it('filters by process, by state, and by equality of input fields', async () => {
    expect(idsOf(await h.ok('list_runs', { process: 'claim-review' }, CAST.ann))).toEqual([ids.a, ids.b, ids.c].sort());
    expect(idsOf(await h.ok('list_runs', { process: 'two-payments' }, CAST.ann))).toEqual([ids.d]);
    expect(idsOf(await h.ok('list_runs', { process: 'no-such' }, CAST.ann))).toEqual([]);
    expect(idsOf(await h.ok('list_runs', { state: 'cancelled' }, CAST.ann))).toEqual([ids.b]);
    expect(idsOf(await h.ok('list_runs', { state: 'waiting' }, CAST.ann))).toEqual([ids.c]);
    expect(idsOf(await h.ok('list_runs', { state: 'active' }, CAST.ann))).toEqual([ids.a, ids.d].sort());
    expect(idsOf(await h.ok('list_runs', { state: 'ended' }, CAST.ann))).toEqual([]);
    expect(idsOf(await h.ok('list_runs', { inputs: { claimant: CAST.ann } }, CAST.ann))).toEqual([ids.a, ids.c].sort());
    expect(idsOf(await h.ok('list_runs', { inputs: { claimant: CAST.ann, amount: 99.5 } }, CAST.ann))).toEqual([ids.c]);
    expect(idsOf(await h.ok('list_runs', { inputs: { amount: 10 } }, CAST.ann))).toEqual([ids.a, ids.b].sort());
    expect(idsOf(await h.ok('list_runs', { inputs: { amount: '10' } }, CAST.ann))).toEqual([]);
    expect(idsOf(await h.ok('list_runs', { inputs: { nothing: 1 } }, CAST.ann))).toEqual([]);
    expect(idsOf(await h.ok('list_runs', { process: 'claim-review', state: 'active', inputs: { amount: 10 } }, CAST.ann))).toEqual([ids.a]);
  });

  it('pages with cursors: every run once, then a null cursor', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await h.ok('list_runs', { limit: 1, ...(cursor ? { cursor } : {}) }, CAST.ann);
      expect(r.items.length).toBeLessThanOrEqual(1);
      seen.push(...r.items.map((i: { id: string }) => i.id));
      if (r.nextCursor === null) break;
      cursor = r.nextCursor;
    }
    expect(seen.sort()).toEqual([ids.a, ids.b, ids.c, ids.d].sort());
    const two = await h.ok('list_runs', { limit: 3 }, CAST.ann);
    expect(two.items).toHaveLength(3);
    expect(two.nextCursor).toEqual(expect.any(String));
    const rest = await h.ok('list_runs', { limit: 3, cursor: two.nextCursor }, CAST.ann);
    expect(rest.items).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    expect([...idsOf(two), ...idsOf(rest)].sort()).toEqual([ids.a, ids.b, ids.c, ids.d].sort());
  });
});

describe('list_processes', () => {
  it('lists the published processes with name, description, version and inputs', async () => {
    const h = await Harness.open(SPEC);
    const r = await h.ok('list_processes', {}, CAST.agent);
    expect(r.nextCursor).toBeNull();
    expect(r.items).toEqual([
      {
        name: 'claim-review',
        description: 'An agent checks an expense claim against the policy and finance approves the payout.',
        version: 1,
        inputs: { claimant: 'person', amount: 'number' },
      },
      { name: 'two-payments', description: 'Raise an invoice and wait for its two instalments to be paid.', version: 1, inputs: {} },
    ]);
  });
});

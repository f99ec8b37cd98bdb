/**
 * Contract details an independent conformance run found (issue 16, items 13
 * and 14), through the service on a real board: a `person` value must name
 * one of the board's people, and an upload must carry at least one byte.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, rid, type BoardSpec } from '../support/svc-harness.js';

afterAll(cleanupHarnesses);

const SPEC: BoardSpec = {
  groups: { finance: [CAST.fin] },
  processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }],
};

describe('a person value names someone on the board', () => {
  it('start_run with a claimant the board does not know is invalid, naming the field, and makes no run', async () => {
    const h = await Harness.open(SPEC);
    const before = await h.snapshot();
    const err = await h.fail('start_run', { process: 'claim-review', inputs: { claimant: 'nobody@example.com', amount: 10 }, requestId: rid() }, CAST.ann);
    expect(err.code).toBe('invalid');
    expect(err.issues).toEqual(['inputs.claimant: nobody@example.com is not a person on this board (workboard person add)']);
    expect(await h.snapshot()).toEqual(before);
  });

  it('a known person is accepted whatever the case of the address', async () => {
    const h = await Harness.open(SPEC);
    const v = await h.ok('start_run', { process: 'claim-review', inputs: { claimant: CAST.ann.toUpperCase(), amount: 10 }, requestId: rid() }, CAST.ann);
    expect(v.run.state).toBe('active');
  });
});

describe('upload', () => {
  it('an empty contentBase64 is invalid (at least one character), and nothing is stored', async () => {
    const h = await Harness.open(SPEC);
    const before = await h.snapshot();
    const err = await h.fail('upload', { fileName: 'empty.txt', contentType: 'text/plain', contentBase64: '', requestId: rid() }, CAST.agent);
    expect(err.code).toBe('invalid');
    expect(err.issues).toEqual(['contentBase64: must NOT have fewer than 1 characters']);
    expect(await h.snapshot()).toEqual(before);
  });
});

/**
 * flow-1's pure rules (docs/profile-flow-1.md §2–§3), without disk: what a
 * blocked run does given its blockers, which blockers a start refuses, and the
 * sort keys that put urgent work first while leaving a board of normal runs
 * exactly in the core's order.
 */
import { describe, expect, it } from 'vitest';
import { blockerIssues, blockersVerdict, type BlockerEnd } from '../../src/engine/blockers.js';
import { urgencyPrefix } from '../../src/engine/priority.js';

const run = (id: string, state: BlockerEnd['state'], outcome: string | null = null): BlockerEnd => ({ id, process: 'contract-approval', state, outcome });
const reads = (...rs: (BlockerEnd | [string, null])[]) => new Map(rs.map((r) => (Array.isArray(r) ? r : [r.id, r])));

describe('blockersVerdict', () => {
  it('waits while any blocker is open or not on this board, naming those; wakes when all ended with a finish outcome', () => {
    expect(blockersVerdict(['a', 'b', 'c'], reads(run('a', 'ended', 'approved'), run('b', 'waiting'), ['c', null]))).toEqual({ kind: 'wait', waitingFor: ['b', 'c'] });
    expect(blockersVerdict(['a', 'b'], reads(run('a', 'ended', 'approved'), run('b', 'ended', 'paid')))).toEqual({ kind: 'wake' });
  });

  it('ends the run as its first failed, rejected or cancelled blocker did, naming it, even while others are open', () => {
    expect(blockersVerdict(['a', 'b'], reads(run('a', 'active'), run('b', 'ended', 'rejected')))).toEqual({
      kind: 'end',
      state: 'ended',
      outcome: 'failed',
      note: 'blocked by run b (contract-approval), which ended rejected',
    });
    expect(blockersVerdict(['a'], reads(run('a', 'ended', 'failed')))).toMatchObject({ kind: 'end', outcome: 'failed', note: 'blocked by run a (contract-approval), which ended failed' });
    expect(blockersVerdict(['a', 'b'], reads(run('a', 'cancelled'), run('b', 'ended', 'failed')))).toEqual({
      kind: 'end',
      state: 'cancelled',
      outcome: null,
      note: 'blocked by run a (contract-approval), which was cancelled',
    });
  });

  it('names the blocker by its title in words when the service read one, never by id', () => {
    const titled = { ...run('r-1', 'ended', 'rejected'), title: 'Contract approval · Acme' };
    const v = blockersVerdict(['r-1'], reads(titled));
    expect(v).toEqual({ kind: 'end', state: 'ended', outcome: 'failed', note: 'blocked by “Contract approval · Acme”, which ended rejected' });
    expect(JSON.stringify(v)).not.toContain('r-1');
  });
});

describe('blockerIssues', () => {
  it('names each run that is missing, named twice, or already ended without its work done; accepts open and well-ended ones', () => {
    const found = reads(run('a', 'active'), run('b', 'ended', 'approved'), run('c', 'cancelled'), ['d', null]);
    expect(blockerIssues('after', ['a', 'b', 'a', 'c', 'd'], found)).toEqual([
      'inputs.after[2]: run a is named twice',
      'inputs.after[3]: run c (contract-approval) already was cancelled; a run it blocks could never start',
      'inputs.after[4]: no run d on this board',
    ]);
    expect(blockerIssues('after', ['a', 'b'], found)).toEqual([]);
  });
});

describe('urgencyPrefix', () => {
  it('sorts urgent, high, normal (and runs without a level), low, each then by the rest of the key; normal keys are left as they are', () => {
    const key = (priority: number | undefined, readySince: string) => `${urgencyPrefix(priority === undefined ? {} : { priority })}${readySince}|r|s`;
    const keys = [key(10, '2026-01-01'), key(undefined, '2026-01-03'), key(20, '2026-01-02'), key(30, '2026-01-05'), key(40, '2026-01-06'), key(30, '2026-01-04')];
    expect([...keys].sort()).toEqual([key(40, '2026-01-06'), key(30, '2026-01-04'), key(30, '2026-01-05'), key(20, '2026-01-02'), key(undefined, '2026-01-03'), key(10, '2026-01-01')]);
    expect(key(20, '2026-01-02')).toBe('2026-01-02|r|s');
    expect(key(undefined, '2026-01-02')).toBe('2026-01-02|r|s');
  });
});

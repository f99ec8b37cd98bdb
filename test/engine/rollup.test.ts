/** flow-1's status rollup (docs/profile-flow-1.md "7. Lineage and rollup"): the first rule that holds, in AIP-20's terms. */
import { describe, expect, it } from 'vitest';
import { rollup, type ChildStanding } from '../../src/engine/rollup.js';

const c = (state: ChildStanding['state'], extra: Partial<ChildStanding> = {}): ChildStanding => ({ state, blocked: false, overdue: false, ...extra });

describe('rollup', () => {
  it('no children: no state', () => expect(rollup([])).toBeNull());
  it('all-children-terminal: done, cancelled ones included', () => expect(rollup([c('ended'), c('cancelled')])).toBe('done'));
  it('any-child-blocked comes before overdue and waiting', () => expect(rollup([c('ended'), c('waiting', { blocked: true }), c('active', { overdue: true })])).toBe('blocked'));
  it('any-child-overdue comes before waiting', () => expect(rollup([c('waiting'), c('active', { overdue: true })])).toBe('overdue'));
  it('any-child-waiting', () => expect(rollup([c('ended'), c('waiting'), c('active')])).toBe('waiting'));
  it('otherwise active', () => expect(rollup([c('ended'), c('active')])).toBe('active'));
  it('an ended child that was overdue or blocked does not count', () => expect(rollup([c('ended', { overdue: true, blocked: true }), c('active')])).toBe('active'));
});

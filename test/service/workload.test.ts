/**
 * What the open runs hold, by process and step (service/workload.ts), over
 * plain states: ready and claimed agent steps, open work items, overdue
 * steps, and the oldest wait for agents and for people; steps with nothing
 * waiting are left out.
 */
import { describe, expect, it } from 'vitest';
import { addRun, emptyWorkload } from '../../src/service/workload.js';

const NOW = new Date('2026-12-05T09:00:00.000Z');
const step = (id: string, kind: string, state: string | null, more: Record<string, unknown> = {}) => ({ id, kind, state, readySince: null, due: null, overdue: false, workItem: null, ...more });
const run = (process: string, steps: ReturnType<typeof step>[], leases: Record<string, { expiresAt: string }> = {}) =>
  ({
    state: { run: { process }, steps: Object.fromEntries(steps.map((s) => [s.id, s])), leases },
    pinned: { process: { steps: steps.map((s) => ({ id: s.id, kind: s.kind })) } },
  }) as never;

describe('workload', () => {
  it('counts by process and step, and keeps the oldest waits', () => {
    const w = emptyWorkload();
    addRun(w, run('claims', [step('check', 'agent', 'ready', { readySince: '2026-12-05T08:00:00.000Z' }), step('approve', 'approve', null)]), NOW);
    addRun(w, run('claims', [step('check', 'agent', 'ready', { readySince: '2026-12-05T07:00:00.000Z' })], { check: { expiresAt: '2026-12-05T09:10:00.000Z' } }), NOW);
    addRun(w, run('claims', [step('check', 'agent', 'done'), step('approve', 'approve', 'waiting', { workItem: 'w-1', readySince: '2026-12-04T09:00:00.000Z', overdue: true })]), NOW);
    addRun(w, run('notes', [step('draft', 'agent', 'ready', { readySince: '2026-12-05T08:30:00.000Z' })], { draft: { expiresAt: '2026-12-05T08:59:00.000Z' } }), NOW);
    expect(Object.fromEntries(w.runs)).toEqual({ claims: 3, notes: 1 });
    expect([...w.steps.values()]).toEqual([
      { process: 'claims', step: 'check', ready: 1, claimed: 1, waiting: 0, overdue: 0 },
      { process: 'claims', step: 'approve', ready: 0, claimed: 0, waiting: 1, overdue: 1 },
      // An expired lease no longer holds the step: it is ready.
      { process: 'notes', step: 'draft', ready: 1, claimed: 0, waiting: 0, overdue: 0 },
    ]);
    // The claimed step's wait is not an agent's: the oldest ready one is 08:00.
    expect(new Date(w.oldestAgent!).toISOString()).toBe('2026-12-05T08:00:00.000Z');
    expect(new Date(w.oldestPerson!).toISOString()).toBe('2026-12-04T09:00:00.000Z');
  });

  it('is empty for no open runs', () => {
    expect(emptyWorkload()).toEqual({ runs: new Map(), steps: new Map(), oldestAgent: null, oldestPerson: null });
  });
});

/**
 * The run engine without any disk: processes from text, a fixed clock and
 * counting ids. The spec's running rules (§3) are asserted here directly.
 */
import { describe, expect, it } from 'vitest';
import { cmd, type Decision } from './throwing.js';
import { Machine } from '../../src/engine/machine.js';
import { type Actor, type Context, type Pinned } from '../../src/engine/types.js';
import { ToolError } from '../../src/protocol/errors.js';
import { runView, snapshotOf } from '../../src/engine/view.js';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

const agent: Actor = { kind: 'agent', id: 'bot' };
const mira: Actor = { kind: 'person', email: 'mira@example.com', operator: true };
const groups = { finance: ['mira@example.com'], ops: ['mira@example.com'] };
const noFiles = () => ({ ok: false as const, problem: 'not found' });

function pinned(frontmatter: string, roles: Record<string, string> = {}): Pinned {
  const r = loadProcess(`---\n${frontmatter}---\nBody.\n`, FULL_OFFER);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return { process: r.process, version: 1, hash: r.hash, roles };
}

function clock(start = '2026-01-05T09:00:00.000Z') {
  let now = new Date(start);
  let n = 0;
  const ctx = (): Context => ({
    now,
    newId: (p) => `${p}-${String(++n).padStart(4, '0')}`,
    limits: { runDataBytes: 10_000, leaseSeconds: 600, checkPass: 0.9, checkFail: null, checkConfidence: 0.8, checkStateBytes: 65_536 },
  });
  return { ctx, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

/** Re-open a machine on the state as of a new time, as the service does per call. */
function next(m: Machine, ctx: Context): Machine {
  const n = new Machine(structuredClone(m.state), m.pinned, ctx);
  n.applyDeadlines();
  n.settle();
  return n;
}

const stateOf = (m: Machine, id: string) => (runView(m.state, m.pinned, m.ctx.now, null).steps as { id: string; state: string | null }[]).find((s) => s.id === id)?.state;

const APPROVAL = `name: claim
description: d
inputs:
  amount: number
steps:
  - id: review
    agent: Review.
    output: { ok: boolean }
    next:
      - { to: approve, when: fine }
      - { to: stop, when: not fine }
  - id: approve
    person: approver
    approve: Approve.
    due: 1d
    on_reject: review
    next: done
  - id: stop
    finish: stopped
  - id: done
    finish: paid
`;

function submitReview(m: Machine, claimId: string, ok = true) {
  cmd.submit(m, 'review', claimId, { output: { ok }, summary: 'Looked.', next: ok ? 'approve' : 'stop', reason: 'because' }, agent, noFiles);
}

describe('start and the agent loop', () => {
  it('the first step is ready at start; undeclared, missing and mistyped inputs are refused together', () => {
    const p = pinned(APPROVAL, { approver: 'finance' });
    const c = clock();
    expect(() => cmd.startRun(p, { inputs: { amount: '12', extra: 1 }, mode: 'live' }, mira, c.ctx(), 'r-1')).toThrow(
      expect.objectContaining({ code: 'invalid', issues: ['inputs.amount: expected number', 'inputs.extra: not declared'] }),
    );
    const m = cmd.startRun(p, { inputs: { amount: 12 }, mode: 'live' }, mira, c.ctx(), 'r-1');
    m.settle();
    expect(stateOf(m, 'review')).toBe('ready');
    expect(m.state.run.state).toBe('active');
    expect(m.state.run.initiator).toBe('mira@example.com');
  });

  it('claim conflicts name who holds it; a non-ready step is not_ready', () => {
    const p = pinned(APPROVAL, { approver: 'finance' });
    const c = clock();
    const m = cmd.startRun(p, { inputs: { amount: 1 }, mode: 'live' }, mira, c.ctx(), 'r-1');
    cmd.claim(m, 'review', agent);
    expect(() => cmd.claim(m, 'review', agent)).toThrow(expect.objectContaining({ code: 'conflict', issues: ['claimed_by_you'] }));
    expect(() => cmd.claim(m, 'review', { kind: 'agent', id: 'other' })).toThrow(expect.objectContaining({ issues: ['claimed_by_other'] }));
    expect(() => cmd.claim(m, 'approve', agent)).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(() => cmd.claim(m, 'review', mira)).toThrow(expect.objectContaining({ code: 'forbidden' }));
  });

  it('a lease that ends makes the step claimable at once, with the progress note in the handoff', () => {
    const p = pinned(APPROVAL, { approver: 'finance' });
    const c = clock();
    let m = cmd.startRun(p, { inputs: { amount: 1 }, mode: 'live' }, mira, c.ctx(), 'r-1');
    const lease = cmd.claim(m, 'review', agent);
    const renewed = cmd.renew(m, 'review', lease.claimId, 'half done', agent);
    expect(() => cmd.renew(m, 'review', lease.claimId, undefined, agent)).toThrow(expect.objectContaining({ code: 'stale' }));
    c.advance(601_000);
    m = next(m, c.ctx());
    expect(stateOf(m, 'review')).toBe('ready');
    expect(m.state.steps.review!.handoff).toEqual({ progress: 'half done' });
    expect(() => submitReview(m, renewed.claimId)).toThrow(expect.objectContaining({ code: 'stale' }));
    const again = cmd.claim(m, 'review', { kind: 'agent', id: 'other' });
    expect(again.claimId).not.toBe(renewed.claimId);
  });

  it('a submission that breaks the rules lists every issue and changes nothing; the claim stands', () => {
    const p = pinned(APPROVAL, { approver: 'finance' });
    const c = clock();
    const m = cmd.startRun(p, { inputs: { amount: 1 }, mode: 'live' }, mira, c.ctx(), 'r-1');
    const lease = cmd.claim(m, 'review', agent);
    const before = structuredClone(m.state);
    let err: ToolError | undefined;
    try {
      cmd.submit(m, 'review', lease.claimId, { output: { ok: 'yes', more: 1 }, summary: '' }, agent, noFiles);
    } catch (e) {
      err = e as ToolError;
    }
    expect(err?.code).toBe('not_accepted');
    expect(err?.issues).toEqual(['summary: missing', 'output.ok: expected boolean', 'output.more: not declared', 'next: required, one of approve, stop', 'reason: required']);
    expect(m.state).toEqual(before);
    submitReview(m, lease.claimId);
    expect(stateOf(m, 'review')).toBe('done');
  });
});

describe('people, rework and ending', () => {
  function toApproval() {
    const p = pinned(APPROVAL, { approver: 'finance' });
    const c = clock();
    const m = cmd.startRun(p, { inputs: { amount: 1 }, mode: 'live' }, mira, c.ctx(), 'r-1');
    submitReview(m, cmd.claim(m, 'review', agent).claimId);
    m.settle();
    return { m, c };
  }

  it('a person step opens one work item; the run waits on it; due marks it overdue and keeps it open', () => {
    const { m, c } = toApproval();
    expect(m.state.run.state).toBe('waiting');
    const view = runView(m.state, m.pinned, m.ctx.now, null) as { workItems: { stepId: string; assignedTo: unknown; due: string }[] };
    expect(view.workItems).toHaveLength(1);
    expect(view.workItems[0]).toMatchObject({ stepId: 'approve', assignedTo: { group: 'finance' }, due: '2026-01-06T09:00:00.000Z' });
    c.advance(86_400_001);
    const later = next(m, c.ctx());
    expect(later.state.steps.approve!.overdue).toBe(true);
    expect(later.state.steps.approve!.state).toBe('waiting');
  });

  it('decide checks run_ended, already_decided, not_found, stale, forbidden in that order', () => {
    const { m } = toApproval();
    const wi = m.state.steps.approve!.workItem!;
    const snap = snapshotOf(m.state, m.pinned);
    const d =
      (over: Partial<Decision>, who: Actor = mira) =>
      () =>
        cmd.decide(m, { workItemId: wi, snapshot: snap, decision: 'approved', ...over }, who, groups, noFiles);
    expect(d({ workItemId: 'w-none' })).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(d({ snapshot: 'old' })).toThrow(expect.objectContaining({ code: 'stale' }));
    expect(d({}, agent)).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(d({}, { kind: 'person', email: 'jon@example.com', operator: false })).toThrow(expect.objectContaining({ code: 'forbidden' }));
    d({})();
    expect(m.state.run.outcome).toBe('paid');
    expect(d({})).toThrow(expect.objectContaining({ code: 'conflict', issues: ['run_ended'] }));
  });

  it('a decision that breaks several rules at once is refused for the first in that order', () => {
    const { m } = toApproval();
    const wi = m.state.steps.approve!.workItem!;
    const snap = snapshotOf(m.state, m.pinned);
    const d = (over: Partial<Decision>, who: Actor) => () => cmd.decide(m, { workItemId: wi, snapshot: snap, decision: 'approved', ...over }, who, groups, noFiles);
    const stranger: Actor = { kind: 'person', email: 'jon@example.com', operator: false };
    // Unknown item, old snapshot, an agent, a note missing: not_found comes first.
    expect(d({ workItemId: 'w-none', snapshot: 'old', decision: 'rejected' }, agent)).toThrow(expect.objectContaining({ code: 'not_found' }));
    // Old snapshot, not assigned, a note missing: stale before forbidden.
    expect(d({ snapshot: 'old', decision: 'rejected' }, stranger)).toThrow(expect.objectContaining({ code: 'stale' }));
    // Not assigned and a note missing: forbidden before the decision's own problems.
    expect(d({ decision: 'rejected' }, stranger)).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(d({ decision: 'rejected' }, agent)).toThrow(expect.objectContaining({ code: 'forbidden' }));
    // Rejected for real: now the same item is already_decided, whatever else is wrong.
    cmd.decide(m, { workItemId: wi, snapshot: snap, decision: 'rejected', note: 'Receipt missing' }, mira, groups, noFiles);
    expect(d({ snapshot: 'old' }, agent)).toThrow(expect.objectContaining({ code: 'conflict', issues: ['already_decided'] }));
    // Once the run has ended, run_ended comes before everything.
    cmd.cancel(m, 'stop', { kind: 'person', email: 'ops@example.com', operator: true });
    expect(d({ workItemId: 'w-none', snapshot: 'old' }, agent)).toThrow(expect.objectContaining({ code: 'conflict', issues: ['run_ended'] }));
  });

  it('an approval keeps its note, as a rejection does: in the completion, its audit event and run data', () => {
    const { m } = toApproval();
    const note = 'OK to pay. Receipt matches.';
    cmd.decide(m, { workItemId: m.state.steps.approve!.workItem!, snapshot: snapshotOf(m.state, m.pinned), decision: 'approved', note }, mira, groups, noFiles);
    expect(m.state.steps.approve!.current).toEqual({ decision: 'approved', note, by: 'mira@example.com', at: m.at });
    expect(m.events.find((e) => e.action === 'step.completed' && e.entity === 'approve')).toEqual({ action: 'step.completed', actor: 'mira@example.com', entity: 'approve', changes: { note } });
    expect((runView(m.state, m.pinned, m.ctx.now, null) as { data: { steps: Record<string, unknown> } }).data.steps.approve).toEqual({
      decision: 'approved',
      note,
      by: 'mira@example.com',
      at: m.at,
      history: [],
    });
  });

  it('rejection into on_reject rewinds later work into history and hands the note to the next attempt', () => {
    const { m } = toApproval();
    const wi = m.state.steps.approve!.workItem!;
    cmd.decide(m, { workItemId: wi, snapshot: snapshotOf(m.state, m.pinned), decision: 'rejected', note: 'Receipt missing' }, mira, groups, noFiles);
    expect(stateOf(m, 'review')).toBe('ready');
    expect(m.state.steps.review!.handoff).toEqual({ returned: { note: 'Receipt missing', by: 'mira@example.com', at: m.at } });
    expect(m.state.steps.approve!.current).toMatchObject({ decision: 'rejected', note: 'Receipt missing' });
    // a second member deciding the same item learns it was decided, not that it is stale
    expect(() => cmd.decide(m, { workItemId: wi, snapshot: 'x', decision: 'approved' }, mira, groups, noFiles)).toThrow(expect.objectContaining({ code: 'conflict', issues: ['already_decided'] }));
    submitReview(m, cmd.claim(m, 'review', agent).claimId);
    expect(m.state.steps.review!.history).toHaveLength(1);
    expect(m.state.steps.approve!.state).toBe('waiting');
  });

  it('rejection without on_reject ends the run rejected with the note; every open step is cancelled', () => {
    const p = pinned(APPROVAL.replace('    on_reject: review\n', ''), { approver: 'finance' });
    const c = clock();
    const m = cmd.startRun(p, { inputs: { amount: 1 }, mode: 'live' }, mira, c.ctx(), 'r-1');
    submitReview(m, cmd.claim(m, 'review', agent).claimId);
    cmd.decide(m, { workItemId: m.state.steps.approve!.workItem!, snapshot: snapshotOf(m.state, m.pinned), decision: 'rejected', note: 'No' }, mira, groups, noFiles);
    expect(m.state.run).toMatchObject({ state: 'ended', outcome: 'rejected', ended: { by: 'mira@example.com', note: 'No' } });
  });

  it('cancel is for operators; it cancels every unfinished step and kills every lease', () => {
    const p = pinned(APPROVAL, { approver: 'finance' });
    const m = cmd.startRun(p, { inputs: { amount: 1 }, mode: 'live' }, mira, clock().ctx(), 'r-1');
    cmd.claim(m, 'review', agent);
    expect(() => cmd.cancel(m, 'dup', { kind: 'person', email: 'jon@example.com', operator: false })).toThrow(expect.objectContaining({ code: 'forbidden' }));
    cmd.cancel(m, 'Duplicate', mira);
    expect(m.state.run).toMatchObject({ state: 'cancelled', ended: { by: 'mira@example.com', note: 'Duplicate' } });
    expect(m.state.steps.review!.state).toBe('cancelled');
    expect(m.state.leases).toEqual({});
    expect(() => cmd.cancel(m, 'again', mira)).toThrow(expect.objectContaining({ code: 'conflict', issues: ['run_ended'] }));
  });
});

describe('waits and events', () => {
  const WAITS = `name: waits
description: d
inputs:
  at: { type: datetime, optional: true }
steps:
  - id: pause
    wait: 1h
  - id: until
    wait_until: inputs.at
  - id: signal
    wait_for: go
    timeout: 2h
    on_timeout: late
    next: done
  - id: late
    finish: late
  - id: done
    finish: done
`;

  it('deadlines fire in time order, each at its own moment, even when applied much later', () => {
    const c = clock();
    const m0 = cmd.startRun(pinned(WAITS), { inputs: { at: '2026-01-05T12:00:00Z' }, mode: 'live' }, agent, c.ctx(), 'r-1');
    m0.settle();
    expect(m0.state.run.state).toBe('waiting');
    c.advance(10 * 3_600_000); // 19:00: pause ended 10:00, until 12:00, signal timed out 14:00
    const m = next(m0, c.ctx());
    expect(m.state.run).toMatchObject({ state: 'ended', outcome: 'late' });
    expect(m.state.steps.pause!.current).toEqual({ by: 'server', at: '2026-01-05T10:00:00.000Z' });
    expect(m.state.steps.until!.current).toEqual({ by: 'server', at: '2026-01-05T12:00:00.000Z' });
    expect(m.state.steps.signal!.current).toEqual({ by: 'server', at: '2026-01-05T14:00:00.000Z' });
  });

  it('a wait_until on a missing value fails the run with a server note', () => {
    const c = clock();
    const m0 = cmd.startRun(pinned(WAITS), { inputs: {}, mode: 'live' }, agent, c.ctx(), 'r-1');
    c.advance(3_600_000);
    const m = next(m0, c.ctx());
    expect(m.state.run).toMatchObject({ state: 'ended', outcome: 'failed', ended: { by: 'server' } });
    expect(m.state.steps.until).toMatchObject({ state: 'failed', current: { decision: 'failed', by: 'server' } });
  });

  it('an event that arrives early is held, then consumed when its wait is ready, with its data as output', () => {
    const c = clock();
    const m0 = cmd.startRun(pinned(WAITS), { inputs: { at: '2026-01-05T09:30:00Z' }, mode: 'live' }, agent, c.ctx(), 'r-1');
    expect(cmd.sendEvent(m0, 'go', { n: 1 }, agent)).toBeNull();
    expect(m0.state.run.events).toHaveLength(1);
    c.advance(3_600_000);
    const m = next(m0, c.ctx());
    expect(m.state.run).toMatchObject({ state: 'ended', outcome: 'done' });
    expect(m.state.steps.signal!.current).toMatchObject({ output: { n: 1 }, by: 'bot' });
    expect(m.state.run.events).toEqual([]);
  });
});

describe('parallel-1', () => {
  const FORK = `name: fork
description: d
steps:
  - id: split
    parallel: [left, right]
    next: review
  - id: left
    agent: L
    next: join
  - id: right
    agent: R
    next: join
  - id: review
    person: boss
    approve: ok?
    on_reject: split
    next: done
  - id: done
    finish: done
`;

  it('forks in one write, joins when the last branch ends, and rework from after the join runs every branch again', () => {
    const p = pinned(FORK, { boss: 'finance' });
    const m = cmd.startRun(p, { inputs: {}, mode: 'live' }, mira, clock().ctx(), 'r-1');
    expect([stateOf(m, 'split'), stateOf(m, 'left'), stateOf(m, 'right')]).toEqual(['waiting', 'ready', 'ready']);
    const sub = (id: string) => cmd.submit(m, id, cmd.claim(m, id, agent).claimId, { output: {}, summary: id }, agent, noFiles);
    sub('left');
    expect([stateOf(m, 'split'), stateOf(m, 'review')]).toEqual(['waiting', null]);
    sub('right');
    expect([stateOf(m, 'split'), stateOf(m, 'review')]).toEqual(['done', 'waiting']);
    cmd.decide(m, { workItemId: m.state.steps.review!.workItem!, snapshot: snapshotOf(m.state, m.pinned), decision: 'rejected', note: 'again' }, mira, groups, noFiles);
    expect([stateOf(m, 'split'), stateOf(m, 'left'), stateOf(m, 'right')]).toEqual(['waiting', 'ready', 'ready']);
    expect(m.state.steps.left!.history).toHaveLength(1);
    expect(m.state.steps.left!.current).toBeNull();
  });
});

/**
 * The engine's front door as values: a command returns a plan to commit, a
 * refusal (with exactly what it keeps), or a request for a check verdict, and
 * never touches the state it was given. No disk, a fixed clock, counting ids.
 */
import { describe, expect, it } from 'vitest';
import { execute, start, type Plan } from '../../src/engine/execute.js';
import type { Actor, Context, Limits, Pinned, RunState } from '../../src/engine/types.js';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

const LIMITS: Limits = { runDataBytes: 100_000, leaseSeconds: 600, checkPass: 0.9, checkFail: null, checkConfidence: 0.8, checkStateBytes: 65_536 };
const bot: Actor = { kind: 'agent', id: 'bot' };
const other: Actor = { kind: 'agent', id: 'other' };
const olga: Actor = { kind: 'person', email: 'olga@example.com', operator: true };
const noFiles = () => ({ ok: false as const, problem: 'not found' });

function pinned(frontmatter: string): Pinned {
  const r = loadProcess(`---\n${frontmatter}---\nBody.\n`, FULL_OFFER);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return { process: r.process, version: 1, hash: r.hash, roles: {} };
}

const at = (iso: string): Context => {
  let n = 0;
  return { now: new Date(iso), newId: (p) => `${p}-${String(++n).padStart(4, '0')}`, limits: LIMITS };
};

const TWO_STEPS = pinned(`name: two
description: d
steps:
  - id: draft
    agent: Draft it.
    output: { text: string }
    due: 1h
    next: done
  - id: done
    finish: drafted
`);

const CHECKED = pinned(`name: checked
description: d
steps:
  - id: draft
    agent: Draft it.
    output: { text: string }
    check: The draft is polite.
    next: done
  - id: done
    finish: drafted
`);

function committed(plan: Plan): Extract<Plan, { kind: 'commit' }> {
  if (plan.kind !== 'commit') throw new Error(`expected a commit, got ${JSON.stringify(plan)}`);
  return plan;
}

function started(p: Pinned): RunState {
  return committed(start(p, { inputs: {}, mode: 'live' }, olga, at('2026-03-02T09:00:00.000Z'), 'r-1')).state;
}

function claimed(p: Pinned): { state: RunState; claimId: string } {
  const plan = committed(execute(started(p), p, at('2026-03-02T09:01:00.000Z'), bot, { tool: 'claim', stepId: 'draft' }));
  if (!plan.result || !('lease' in plan.result)) throw new Error('claim made no lease');
  return { state: plan.state, claimId: plan.result.lease.claimId };
}

describe('execute returns plans and leaves its input alone', () => {
  it('a commit carries the new state, its audit events and the lease; the stored state is unchanged', () => {
    const stored = started(TWO_STEPS);
    const copy = structuredClone(stored);
    const plan = committed(execute(stored, TWO_STEPS, at('2026-03-02T09:01:00.000Z'), bot, { tool: 'claim', stepId: 'draft' }));
    expect(stored).toEqual(copy);
    expect(plan.events.map((e) => e.action)).toEqual(['step.claimed']);
    expect(plan.state.leases.draft).toMatchObject({ agent: 'bot', expiresAt: '2026-03-02T09:11:00.000Z' });
    expect(plan.result).toEqual({ lease: plan.state.leases.draft });
    expect(plan.state.run.updatedAt).toBe('2026-03-02T09:01:00.000Z');
  });

  it('a refusal keeps nothing, not even the deadlines that fell due before it', () => {
    const { state } = claimed(TWO_STEPS);
    const copy = structuredClone(state);
    // Two hours on: the lease has expired and the step is overdue; claiming as another agent is fine then,
    // so refuse with something else: a step that does not exist.
    const plan = execute(state, TWO_STEPS, at('2026-03-02T11:00:00.000Z'), other, { tool: 'claim', stepId: 'nope' });
    expect(plan).toMatchObject({ kind: 'refuse', error: { code: 'not_found' } });
    expect('keep' in plan && plan.keep).toBeFalsy();
    expect(state).toEqual(copy);
  });

  it('the deadlines that fell due are part of a committed plan, stamped at their own times', () => {
    const { state } = claimed(TWO_STEPS);
    const plan = committed(execute(state, TWO_STEPS, at('2026-03-02T11:00:00.000Z'), other, { tool: 'claim', stepId: 'draft' }));
    expect(plan.events.map((e) => e.action)).toEqual(['lease.expired', 'step.overdue', 'step.claimed']);
    expect(plan.state.leases.draft?.agent).toBe('other');
  });

  it('a renew moves only the lease: updatedAt stays, and its one event is step.renewed', () => {
    const { state, claimId } = claimed(TWO_STEPS);
    const plan = committed(execute(state, TWO_STEPS, at('2026-03-02T09:05:00.000Z'), bot, { tool: 'renew', stepId: 'draft', claimId, progress: 'half' }));
    expect(plan.events.map((e) => e.action)).toEqual(['step.renewed']);
    expect(plan.state.run.updatedAt).toBe(state.run.updatedAt);
    expect(plan.state.steps).toEqual(state.steps);
    expect(plan.state.leases.draft).toMatchObject({ expiresAt: '2026-03-02T09:15:00.000Z', progress: 'half' });
  });

  it('a refused submission keeps its issues with the claim and nothing else', () => {
    const { state, claimId } = claimed(TWO_STEPS);
    const plan = execute(state, TWO_STEPS, at('2026-03-02T09:05:00.000Z'), bot, {
      tool: 'submit',
      stepId: 'draft',
      claimId,
      submission: { output: { text: 3 } },
      checkFile: noFiles,
    });
    if (plan.kind !== 'refuse' || !plan.keep) throw new Error(`expected a refusal that keeps the issues, got ${plan.kind}`);
    expect(plan.error.code).toBe('not_accepted');
    expect(plan.error.issues).toEqual(expect.arrayContaining(['output.text: expected string', 'summary: missing']));
    expect(plan.keep.events).toEqual([]);
    expect(plan.keep.state.steps).toEqual(state.steps);
    expect(plan.keep.state.run).toEqual(state.run);
    expect(plan.keep.state.leases.draft).toEqual({ ...state.leases.draft, issues: plan.error.issues });
  });

  it('a step with a check asks for a verdict first; a failing verdict refuses and keeps it in the handoff', () => {
    const { state, claimId } = claimed(CHECKED);
    const submit = { tool: 'submit' as const, stepId: 'draft', claimId, submission: { output: { text: 'Hi.' }, summary: 'Drafted.' }, checkFile: noFiles };
    const asked = execute(state, CHECKED, at('2026-03-02T09:05:00.000Z'), bot, submit);
    if (asked.kind !== 'check') throw new Error(`expected a request for a verdict, got ${asked.kind}`);
    expect(asked.request.material.submission).toEqual({ output: { text: 'Hi.' }, summary: 'Drafted.', evidence: [] });

    const failed = execute(state, CHECKED, at('2026-03-02T09:05:00.000Z'), bot, {
      ...submit,
      check: { material: asked.request.hash, model: 'judge', answers: [{ yes: 0.1 }] },
    });
    if (failed.kind !== 'refuse' || !failed.keep) throw new Error(`expected a refusal that keeps the verdict, got ${failed.kind}`);
    expect(failed.error.code).toBe('not_accepted');
    expect(failed.keep.events.map((e) => e.action)).toEqual(['step.check-failed']);
    expect(failed.keep.state.steps.draft).toMatchObject({ state: 'ready', handoff: { check: { verdict: 'fail' } } });

    const passed = committed(
      execute(state, CHECKED, at('2026-03-02T09:05:00.000Z'), bot, {
        ...submit,
        check: { material: asked.request.hash, model: 'judge', answers: [{ yes: 0.95 }] },
      }),
    );
    expect(passed.state.run).toMatchObject({ state: 'ended', outcome: 'drafted' });
  });

  it('a tick with nothing due commits no events and leaves updatedAt; one with a deadline due records it', () => {
    const stored = started(TWO_STEPS);
    const quiet = committed(execute(stored, TWO_STEPS, at('2026-03-02T09:30:00.000Z'), bot, { tool: 'tick' }));
    expect(quiet.events).toEqual([]);
    expect(quiet.state).toEqual(stored);
    const due = committed(execute(stored, TWO_STEPS, at('2026-03-02T10:30:00.000Z'), bot, { tool: 'tick' }));
    expect(due.events.map((e) => e.action)).toEqual(['step.overdue']);
    expect(due.state.steps.draft?.overdue).toBe(true);
  });

  it('start refuses bad inputs as a plan, naming every problem', () => {
    const p = pinned(`name: inputs
description: d
inputs:
  amount: number
steps:
  - id: done
    finish: ok
`);
    const plan = start(p, { inputs: { amount: 'x', extra: 1 }, mode: 'live' }, olga, at('2026-03-02T09:00:00.000Z'), 'r-2');
    expect(plan).toMatchObject({ kind: 'refuse', error: { code: 'invalid', issues: ['inputs.amount: expected number', 'inputs.extra: not declared'] } });
  });
});

describe('rights on every write, after run_ended (issue 25, items 7 and 9)', () => {
  const WAITS = pinned(`name: waits
description: d
steps:
  - id: draft
    agent: Draft it.
    output: { text: string }
  - id: hold
    wait_for: ping
  - id: done
    finish: drafted
`);
  const narrowed: Actor = { kind: 'agent', id: 'bot', processes: ['another'] };
  const refusal = (plan: Plan) => (plan.kind === 'refuse' ? { code: plan.error.code, issues: plan.error.issues } : plan.kind);
  const OUTSIDE = { code: 'forbidden', issues: ["process: waits is outside this agent's scope"] };
  const RUN_ENDED = { code: 'conflict', issues: ['run_ended'] };
  const cancelled = (state: RunState) => committed(execute(state, WAITS, at('2026-03-02T09:02:00.000Z'), olga, { tool: 'cancel', reason: 'dup' })).state;

  it('a token used by another identity is forbidden while the run lives, run_ended once it has ended', () => {
    const { state, claimId } = claimed(WAITS);
    const renew = { tool: 'renew' as const, stepId: 'draft', claimId, claimant: 'bot' };
    for (const who of [other, olga]) {
      expect(refusal(execute(state, WAITS, at('2026-03-02T09:05:00.000Z'), who, renew))).toMatchObject({
        code: 'forbidden',
        issues: [`token: issued to bot, not ${who.kind === 'agent' ? who.id : who.email}`],
      });
      expect(refusal(execute(cancelled(state), WAITS, at('2026-03-02T09:05:00.000Z'), who, renew))).toEqual(RUN_ENDED);
    }
  });

  it('a token is forbidden to another agent whatever became of its lease: even once that agent holds the step itself', () => {
    const { state, claimId } = claimed(WAITS);
    const retaken = committed(execute(state, WAITS, at('2026-03-02T09:12:00.000Z'), other, { tool: 'claim', stepId: 'draft' })).state;
    expect(retaken.leases.draft).toMatchObject({ agent: 'other' });
    const renew = { tool: 'renew' as const, stepId: 'draft', claimId, claimant: 'bot' };
    expect(refusal(execute(retaken, WAITS, at('2026-03-02T09:13:00.000Z'), other, renew))).toMatchObject({ code: 'forbidden', issues: ['token: issued to bot, not other'] });
  });

  it('a claim whose token names no agent is still worked only by the agent holding its lease', () => {
    const { state, claimId } = claimed(WAITS);
    const renew = { tool: 'renew' as const, stepId: 'draft', claimId };
    expect(refusal(execute(state, WAITS, at('2026-03-02T09:05:00.000Z'), other, renew))).toMatchObject({ code: 'forbidden' });
    expect(committed(execute(state, WAITS, at('2026-03-02T09:05:00.000Z'), bot, renew)).events.map((e) => e.action)).toEqual(['step.renewed']);
  });

  it('an agent whose scope no longer holds the process may not renew, submit, escalate or send an event', () => {
    const { state, claimId } = claimed(WAITS);
    const claim = { stepId: 'draft', claimId, claimant: 'bot' };
    const calls = [
      { tool: 'renew' as const, ...claim },
      { tool: 'submit' as const, ...claim, submission: { output: { text: 'Hi.' }, summary: 'Drafted.' }, checkFile: noFiles },
      { tool: 'escalate' as const, ...claim, note: 'stuck' },
      { tool: 'send_event' as const, name: 'ping' },
    ];
    for (const c of calls) {
      expect(refusal(execute(state, WAITS, at('2026-03-02T09:05:00.000Z'), narrowed, c))).toEqual(OUTSIDE);
      expect(refusal(execute(cancelled(state), WAITS, at('2026-03-02T09:05:00.000Z'), narrowed, c))).toEqual(RUN_ENDED);
    }
    expect(committed(execute(state, WAITS, at('2026-03-02T09:05:00.000Z'), bot, calls[3]!)).result).toEqual({ consumedBy: null });
  });
});

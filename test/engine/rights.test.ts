/**
 * Four eyes as a pure rule (engine/rights.ts): who may not decide an
 * approval of a run, from the run's state alone. Whoever started the run, or
 * completed another of its steps (the current completion or one reworked
 * into history), is barred, under every email they have had on the board.
 */
import { describe, expect, it } from 'vitest';
import { cmd } from './throwing.js';
import { fourEyesProblem } from '../../src/engine/rights.js';
import type { Actor, Context, Pinned } from '../../src/engine/types.js';
import { snapshotOf } from '../../src/engine/view.js';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

const SPEND = `name: spend
description: d
steps:
  - id: prepare
    person: finance
    task: Say what the money is for.
    output: { purpose: string }
  - id: approve
    person: finance
    approve: Approve the spend.
    on_reject: prepare
    next: done
  - id: done
    finish: approved
`;

const person = (email: string, formerEmails?: string[]): Actor => ({ kind: 'person', email, operator: false, ...(formerEmails ? { formerEmails } : {}) });
const groups = { finance: ['ann@example.com', 'cat@example.com', 'fin@example.com', 'lee@example.com', 'p1@example.com'] };
const noFiles = () => ({ ok: false as const, problem: 'not found' });

function pinned(): Pinned {
  const r = loadProcess(`---\n${SPEND}---\nBody.\n`, FULL_OFFER);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return { process: r.process, version: 1, hash: r.hash, roles: { finance: 'finance' } };
}

function ctx(): Context {
  let n = 0;
  return {
    now: new Date('2026-01-05T09:00:00.000Z'),
    newId: (p) => `${p}-${++n}`,
    limits: { runDataBytes: 10_000, leaseSeconds: 600, checkPass: 0.9, checkFail: null, checkConfidence: 0.8, checkStateBytes: 65_536 },
  };
}

/**
 * p1 starts; fin prepares; cat rejects, sending the work back; ann prepares
 * again. fin's completion is now only in prepare's history, ann's is current.
 */
function reworked() {
  const p = pinned();
  const m = cmd.startRun(p, { inputs: {}, mode: 'live' }, person('p1@example.com'), ctx(), 'r-1');
  m.settle();
  const decide = (stepId: string, who: string, d: Record<string, unknown>) =>
    cmd.decide(m, { workItemId: m.state.steps[stepId]!.workItem!, snapshot: snapshotOf(m.state, m.pinned), ...d } as never, person(who), groups, noFiles);
  decide('prepare', 'fin@example.com', { decision: 'completed', output: { purpose: 'Lunch' } });
  decide('approve', 'cat@example.com', { decision: 'rejected', note: 'Which lunch?' });
  decide('prepare', 'ann@example.com', { decision: 'completed', output: { purpose: 'Team lunch on Friday' } });
  expect(m.state.steps.prepare!.current?.by).toBe('ann@example.com');
  expect(m.state.steps.prepare!.history.map((c) => c.by)).toEqual(['fin@example.com']);
  return { state: m.state, approve: p.process.steps.find((s) => s.id === 'approve')! };
}

describe('four eyes', () => {
  it('bars the completer of an earlier step, and one whose completion was reworked into history', () => {
    const { state, approve } = reworked();
    expect(fourEyesProblem(state, approve, person('ann@example.com'))).toBe('four eyes: ann@example.com completed step prepare of this run, so another member decides its approvals');
    expect(fourEyesProblem(state, approve, person('fin@example.com'))).toBe('four eyes: fin@example.com completed step prepare of this run, so another member decides its approvals');
  });

  it('leaves the approval to whoever decided only the approval itself before, and to anyone else', () => {
    const { state, approve } = reworked();
    expect(fourEyesProblem(state, approve, person('cat@example.com'))).toBeNull();
    expect(fourEyesProblem(state, approve, person('lee@example.com'))).toBeNull();
  });

  it('follows a person through renames: the initiator and earlier work count under a former email', () => {
    const { state, approve } = reworked();
    expect(fourEyesProblem(state, approve, person('p1@example.com'))).toMatch(/^four eyes: p1@example\.com started this run/);
    expect(fourEyesProblem(state, approve, person('p1.renamed@example.com', ['p1@example.com']))).toBe(
      'four eyes: p1.renamed@example.com started this run (as p1@example.com), so another member decides its approvals',
    );
    expect(fourEyesProblem(state, approve, person('Fin.Okafor@example.com', ['old@example.com', 'FIN@example.com']))).toBe(
      'four eyes: Fin.Okafor@example.com completed step prepare of this run (as fin@example.com), so another member decides its approvals',
    );
    expect(fourEyesProblem(state, approve, person('lee@example.com', ['someone@example.com']))).toBeNull();
  });
});

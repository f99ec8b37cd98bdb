/** Out of office, the pure rules (src/engine/delegation.ts) and their words in the audit (src/git/audit-words.ts). */
import { describe, expect, it } from 'vitest';
import {
  decidesFor,
  delegationProblems,
  delegationsAfterRename,
  delegationsInForce,
  delegatorsOf,
  mayManage,
  withDelegation,
  withoutDelegation,
  type Delegation,
} from '../../src/engine/delegation.js';
import type { Actor } from '../../src/engine/types.js';
import { lineText, peopleNames } from '../../src/git/audit-words.js';
import { mergeValue } from '../../src/git/merge-data.js';

const NOW = new Date('2026-12-05T10:00:00Z');
const people = [
  { email: 'mira@example.com', name: 'Mira Okafor', formerEmails: ['mira.o@example.com'] },
  { email: 'jon@example.com', name: 'Jon Park' },
  { email: 'lee@example.com', name: 'Lee Chan' },
];
const d = (from: string, to: string, until = '2026-12-12T00:00:00.000Z', since = '2026-12-01T00:00:00.000Z'): Delegation => ({ from, to, since, until, by: from });
const person = (email: string, extra: Partial<Extract<Actor, { kind: 'person' }>> = {}): Actor => ({ kind: 'person', email, operator: false, ...extra });

describe('which delegations are in force', () => {
  it('from its start until (not at) its end', () => {
    const x = d('mira@example.com', 'jon@example.com', '2026-12-05T10:00:00.000Z');
    expect(delegationsInForce([x], new Date('2026-12-05T09:59:59.999Z'))).toEqual([x]);
    expect(delegationsInForce([x], NOW)).toEqual([]);
    expect(delegationsInForce([d('mira@example.com', 'jon@example.com', '2026-12-12T00:00:00.000Z', '2026-12-06T00:00:00.000Z')], NOW)).toEqual([]);
  });

  it('one per person, the latest begun, when a merge of two clones left two', () => {
    const a = d('mira@example.com', 'jon@example.com');
    const b = d('mira@example.com', 'lee@example.com', '2026-12-12T00:00:00.000Z', '2026-12-02T00:00:00.000Z');
    expect(delegationsInForce([b, a], NOW)).toEqual([b]);
    expect(delegationsInForce([a, b], NOW)).toEqual([b]);
  });

  it('delegators are found under any email a person had, and named by their current one', () => {
    expect(delegatorsOf('jon@example.com', [d('mira.o@example.com', 'jon@example.com')], people, NOW)).toEqual([{ email: 'mira@example.com', formerEmails: ['mira.o@example.com'] }]);
    expect(delegatorsOf('jon@example.com', [d('gone@example.com', 'jon@example.com')], people, NOW)).toEqual([]);
  });
});

describe('for whom a person decides', () => {
  const finance = ['mira@example.com'];
  const may = (a: Actor) => a.kind === 'person' && finance.includes(a.email);
  const jon = person('jon@example.com', { delegators: [{ email: 'mira@example.com' }] });
  it('their own work in their own name; a delegator’s for them; nobody’s else', () => {
    expect(decidesFor(person('mira@example.com'), may, () => false)).toBeNull();
    expect(decidesFor(jon, may, () => false)).toEqual({ email: 'mira@example.com' });
    expect(decidesFor(person('jon@example.com'), may, () => false)).toBeUndefined();
    expect(decidesFor({ kind: 'agent', id: 'scout' }, may, () => false)).toBeUndefined();
  });
  it('four eyes for both: blocked when the delegate or the delegator may not decide it', () => {
    expect(decidesFor(jon, may, (a) => a.kind === 'person' && a.email === 'jon@example.com')).toBeUndefined();
    expect(decidesFor(jon, may, (a) => a.kind === 'person' && a.email === 'mira@example.com')).toBeUndefined();
  });
});

describe('setting one: every problem at once', () => {
  it('to oneself (under a former email too), an unknown person, a bad or past end', () => {
    expect(delegationProblems({ from: 'mira@example.com', to: 'mira.o@example.com', until: 'soon' }, [], people, NOW)).toEqual([
      { path: 'to', message: 'a person cannot hand their work to themselves' },
      { path: 'until', message: '"soon" is not a time (e.g. 2026-12-12T09:00:00Z)' },
    ]);
    expect(delegationProblems({ from: 'x@example.com', to: 'y@example.com', until: '2026-12-01T00:00:00Z' }, [], people, NOW)).toEqual([
      { path: 'from', message: 'x@example.com is not a person on this board' },
      { path: 'to', message: 'y@example.com is not a person on this board' },
      { path: 'until', message: '2026-12-01T00:00:00Z is already past' },
    ]);
  });
  it('a cycle, direct or along a chain; a delegation that has ended makes none', () => {
    const until = '2026-12-12T00:00:00Z';
    expect(delegationProblems({ from: 'jon@example.com', to: 'mira@example.com', until }, [d('mira@example.com', 'jon@example.com')], people, NOW)).toEqual([
      { path: 'to', message: 'that would be a cycle: jon@example.com → mira@example.com → jon@example.com' },
    ]);
    const chain = [d('mira@example.com', 'jon@example.com'), d('jon@example.com', 'lee@example.com')];
    expect(delegationProblems({ from: 'lee@example.com', to: 'mira@example.com', until }, chain, people, NOW)[0]?.message).toBe(
      'that would be a cycle: lee@example.com → mira@example.com → jon@example.com → lee@example.com',
    );
    expect(delegationProblems({ from: 'jon@example.com', to: 'mira@example.com', until }, [d('mira@example.com', 'jon@example.com', '2026-12-04T00:00:00Z')], people, NOW)).toEqual([]);
    // Replacing one's own: Mira's to Jon does not count against Mira's new one to Lee.
    expect(delegationProblems({ from: 'mira@example.com', to: 'lee@example.com', until }, chain, people, NOW)).toEqual([]);
  });
  it('to someone away themselves: work handed on is not handed on again, so it is refused, naming their stand-in', () => {
    const until = '2026-12-12T00:00:00Z';
    expect(delegationProblems({ from: 'lee@example.com', to: 'jon@example.com', until }, [d('jon@example.com', 'mira@example.com')], people, NOW)).toEqual([
      { path: 'to', message: 'jon@example.com is out of office themselves (their work goes to mira@example.com), and handed work is not handed on again: choose someone who is in' },
    ]);
    // Once Jon's own has ended, he is in again.
    expect(delegationProblems({ from: 'lee@example.com', to: 'jon@example.com', until }, [d('jon@example.com', 'mira@example.com', '2026-12-04T00:00:00Z')], people, NOW)).toEqual([]);
  });
  it('a new one replaces the person’s own and drops those already over', () => {
    const old = d('mira@example.com', 'jon@example.com');
    const over = d('lee@example.com', 'jon@example.com', '2026-12-02T00:00:00.000Z');
    const next = withDelegation([old, over], { from: 'mira.o@example.com', to: 'lee@example.com', until: '2026-12-12T00:00:00Z', note: ' Holiday ' }, 'mira@example.com', people, NOW);
    expect(next).toEqual([{ from: 'mira@example.com', to: 'lee@example.com', since: NOW.toISOString(), until: '2026-12-12T00:00:00.000Z', by: 'mira@example.com', note: 'Holiday' }]);
  });
  it('ending: null with none in force; renames and removals follow the person', () => {
    expect(withoutDelegation([d('mira@example.com', 'jon@example.com')], 'mira@example.com', people, NOW)).toEqual([]);
    expect(withoutDelegation([], 'mira@example.com', people, NOW)).toBeNull();
    expect(delegationsAfterRename([d('mira@example.com', 'jon@example.com')], 'jon@example.com', 'jon.park@example.com')).toMatchObject([{ from: 'mira@example.com', to: 'jon.park@example.com' }]);
    expect(delegationsAfterRename([d('mira@example.com', 'jon@example.com')], 'jon@example.com', null)).toEqual([]);
  });
  it('only the person or an operator manages theirs', () => {
    expect(mayManage(person('mira.o@example.com'), 'mira@example.com', people)).toBe(true);
    expect(mayManage(person('jon@example.com'), 'mira@example.com', people)).toBe(false);
    expect(mayManage(person('ops@example.com', { operator: true }), 'mira@example.com', people)).toBe(true);
  });
});

describe('in the audit’s words', () => {
  const words = { names: peopleNames(people), runs: new Map() };
  const line = (action: string, actor: string, entity: string, changes: Record<string, unknown>) =>
    lineText({ seq: 4, ts: '2026-12-05T10:00:00.000Z', actor, action, entity, input: { fromRev: 1, toRev: 2, changes } }, words);
  it('"Jon Park approved for Mira Okafor", the note whole', () => {
    const r = 'r-01jd0000000000000000000000/approve';
    expect(line('step.completed', 'jon@example.com', r, { note: 'Fine.', for: 'mira@example.com' })).toBe('#4 2026-12-05 10:00:00Z Jon Park completed for Mira Okafor approve ("Fine.")');
    expect(line('step.rejected', 'jon@example.com', r, { note: 'No receipt.', for: 'mira@example.com' })).toBe('#4 2026-12-05 10:00:00Z Jon Park rejected for Mira Okafor approve ("No receipt.")');
    expect(line('step.completed', 'jon@example.com', r, {})).toBe('#4 2026-12-05 10:00:00Z Jon Park completed approve');
  });
  it('a delegation set and ended, naming both people', () => {
    expect(line('delegation.set', 'mira@example.com', 'WORK.md', { change: 'delegation mira@example.com to jon@example.com until 2026-12-12T00:00:00.000Z' })).toBe(
      '#4 2026-12-05 10:00:00Z Mira Okafor handed their work to Jon Park until 2026-12-12 00:00:00Z',
    );
    expect(line('delegation.ended', 'lee@example.com', 'WORK.md', { change: 'delegation mira@example.com to jon@example.com ended' })).toBe(
      "#4 2026-12-05 10:00:00Z Lee Chan ended Mira Okafor's out of office (their work had gone to Jon Park)",
    );
  });
});

describe('merged as WORK.md is, on two clones', () => {
  const a = d('mira@example.com', 'jon@example.com');
  const b = d('lee@example.com', 'mira@example.com');
  it('set on each side: both kept, whichever side is preferred', () => {
    for (const prefer of ['ours', 'theirs'] as const) {
      const merged = mergeValue({ delegations: [] }, { delegations: [a] }, { delegations: [b] }, prefer) as { delegations: Delegation[] };
      expect(new Set(merged.delegations)).toEqual(new Set([a, b]));
    }
  });
  it('ended on one side, untouched on the other: ended', () => {
    expect(mergeValue({ delegations: [a, b] }, { delegations: [b] }, { delegations: [a, b] }, 'theirs')).toEqual({ delegations: [b] });
  });
  it('one person set two on two clones: the later begun is the one in force', () => {
    const later = d('mira@example.com', 'lee@example.com', '2026-12-12T00:00:00.000Z', '2026-12-03T00:00:00.000Z');
    const merged = mergeValue({}, { delegations: [a] }, { delegations: [later] }, 'ours') as { delegations: Delegation[] };
    expect(merged.delegations).toHaveLength(2);
    expect(delegationsInForce(merged.delegations, NOW)).toEqual([later]);
  });
});

/**
 * The flow-1 key at publication (docs/profile-flow-1.md §1): `flow:` with a
 * default level, the input that sets the level, and the input that names the
 * blockers, each bound to a declared input of the right type; every problem
 * named at once, with where it is in the file; refused where the board does
 * not offer flow-1.
 */
import { describe, expect, it } from 'vitest';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER, TOOLS } from '../../src/protocol/offer.js';
import { publicationProblems } from '../support/publication.js';

function withFlow(flow: string[], inputs: string[] = []): string {
  return [
    '---',
    'name: flow-test',
    'description: A test process.',
    'inputs:',
    '  urgency: { type: string, optional: true, one_of: [low, high, urgent] }',
    '  size: { type: string, one_of: [small, large] }',
    '  after: { type: list, items: string, optional: true }',
    '  count: number',
    ...inputs.map((l) => `  ${l}`),
    'flow:',
    ...flow.map((l) => `  ${l}`),
    'steps:',
    '  - id: done',
    '    finish: done',
    '---',
    'Body.',
    '',
  ].join('\n');
}

const problems = publicationProblems;

describe('flow:', () => {
  it('binds a default level, priority_from and blocked_by to the process', () => {
    const r = loadProcess(withFlow(['priority: urgent', 'priority_from: inputs.urgency', 'blocked_by: inputs.after']), FULL_OFFER);
    expect(r.ok && r.process.flow).toEqual({ priority: 40, priorityFrom: 'urgency', blockedBy: 'after' });
  });

  it('names every problem at once, each where it is', () => {
    expect(problems(withFlow(['priority: asap', 'priority_from: inputs.size', 'blocked_by: inputs.count', 'routing: x']))).toEqual([
      '10: flow.priority: expected one of low, normal, high, urgent',
      '11: flow.priority_from: inputs.size must be a string with one_of drawn from low, normal, high, urgent',
      '12: flow.blocked_by: inputs.count must be a list of strings (run ids)',
      '13: flow.routing: unknown key',
    ]);
    expect(problems(withFlow(['priority_from: urgency', 'blocked_by: inputs.nowhere']))).toEqual([
      '10: flow.priority_from: expected a path inputs.<field>',
      '11: flow.blocked_by: no input "nowhere" is declared',
    ]);
    // The value of flow: begins on the line after the key.
    expect(problems(withFlow(['[]']))).toEqual(['10: flow: expected a map with one or more of priority, priority_from, blocked_by, follow_on']);
  });

  it('is refused, naming the profile, by a board that does not offer flow-1', () => {
    const offer = { profiles: new Set(['parallel-1']), tools: new Set<string>(TOOLS) };
    expect(problems(withFlow(['priority: high']), offer)).toEqual(['10: flow: needs profile flow-1, not enabled']);
  });
});

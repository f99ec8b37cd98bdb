/**
 * An issue about a route names that route's own entry in the file, also
 * after an entry that is not a route at all: every rule that reads routes
 * (duplicates, targets, loops, branches) counts entries the same way.
 */
import { describe, expect, it } from 'vitest';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

function issues(steps: string[]): string[] {
  const text = ['---', 'name: route-paths', 'description: Routes after a bad entry.', 'steps:', ...steps, '---', ''].join('\n');
  const r = loadProcess(text, FULL_OFFER);
  if (r.ok) throw new Error('expected issues');
  return r.issues.map((i) => `${i.path}: ${i.message}`);
}

describe('route issue paths', () => {
  it('point at the entry they are about, past an entry that is no route', () => {
    const found = issues(['  - id: a', '    agent: Do it.', '    next: [42, nosuch, a, a, done]', '  - id: done', '    finish: done']);
    expect(found).toEqual([
      'steps[0].next[0]: expected a step id or { to, when }',
      'steps[0].next[3]: route to "a" listed twice (also next[2])',
      'steps[0].next[1]: no step "nosuch"',
      'steps[0].next[2]: goes back to "a" (a → a); only on_reject may go back',
    ]);
  });

  it('point at the entry inside a branch as well', () => {
    const found = issues([
      '  - id: p',
      '    parallel: [x, y]',
      '    next: done',
      '  - id: x',
      '    agent: Do it.',
      '    next: [7, { to: done }, join]',
      '  - id: y',
      '    agent: Do it.',
      '    next: join',
      '  - id: done',
      '    finish: done',
    ]);
    expect(found).toEqual(['steps[1].next[0]: expected a step id or { to, when }', 'steps[1].next[1].to: a branch cannot route to a finish ("done"); end it with next: join']);
  });
});

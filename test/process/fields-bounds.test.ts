/**
 * fields-1's bounds at publication and on a value (docs/profile-fields-1.md):
 * `minimum` and `maximum` on a number input, every misuse named at once with
 * its place in the file; refused where the board does not offer fields-1 and
 * on a step's output; a value outside them refused with words that say the
 * bound, every problem of a start at once.
 */
import { describe, expect, it } from 'vitest';
import { loadProcess } from '../../src/process/load.js';
import { checkValues } from '../../src/process/values.js';
import { coreInputs } from '../../src/process/validate/fields.js';
import { FULL_OFFER, TOOLS } from '../../src/protocol/offer.js';
import { publicationProblems } from '../support/publication.js';
import { profilesUsed } from '../../src/board/processes.js';

function withInputs(inputs: string[], output: string[] = ['note: string']): string {
  return [
    '---',
    'name: bounds-test',
    'description: A test process.',
    'inputs:',
    ...inputs.map((l) => `  ${l}`),
    'steps:',
    '  - id: work',
    '    agent: Do the work.',
    '    output:',
    ...output.map((l) => `      ${l}`),
    '  - id: done',
    '    finish: done',
    '---',
    'Body.',
    '',
  ].join('\n');
}

const problems = publicationProblems;

describe('minimum and maximum at publication', () => {
  it('binds both to a number input, and the version records fields-1', () => {
    const r = loadProcess(withInputs(['amount: { type: number, minimum: 0.01, maximum: 5000, description: Amount in EUR }', 'ref: string']), FULL_OFFER);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.process.inputs.amount).toMatchObject({ type: 'number', minimum: 0.01, maximum: 5000 });
    expect(profilesUsed(r.process)).toEqual(['fields-1']);
  });

  it('a process without bounds does not use fields-1', () => {
    const r = loadProcess(withInputs(['amount: number']), FULL_OFFER);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(profilesUsed(r.process)).toEqual([]);
  });

  it('names every misuse at once, each where it is', () => {
    expect(
      problems(
        withInputs(
          [
            'name: { type: string, minimum: 1 }',
            'count: { type: number, maximum: many }',
            'span: { type: number, minimum: 10, maximum: 2 }',
            'size: { type: number, one_of: [1, 20], maximum: 10 }',
            'tags: { type: list, items: { type: number, minimum: 0 } }',
          ],
          ['score: { type: number, minimum: 0 }'],
        ),
      ),
    ).toEqual([
      "14: steps[0].output.score.minimum: only a process input may have a bound (fields-1), not a step's output",
      '5: inputs.name.minimum: only allowed on a number field, not string',
      '6: inputs.count.maximum: expected a number',
      '7: inputs.span.minimum: 10 is above the maximum, 2',
      "8: inputs.size.one_of[1]: 20 is outside the field's bounds",
      '9: inputs.tags.items.minimum: unknown key',
    ]);
  });

  it('is refused where the board does not offer fields-1', () => {
    const offer = { profiles: new Set(['parallel-1']), tools: new Set<string>(TOOLS) };
    expect(problems(withInputs(['amount: { type: number, minimum: 0.01 }']), offer)).toEqual(['5: inputs.amount.minimum: needs profile fields-1, not enabled']);
  });
});

describe('a value against its bounds', () => {
  const r = loadProcess(withInputs(['amount: { type: number, minimum: 0.01, maximum: 5000 }', 'nights: { type: number, minimum: 1 }', 'ref: string']), FULL_OFFER);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  const inputs = r.process.inputs;
  const check = (values: unknown) => {
    const out: string[] = [];
    checkValues(inputs, values, ['inputs'], (p, m) => out.push(`${p.join('.')}: ${m}`));
    return out;
  };

  it('takes the bounds themselves and anything between', () => {
    expect(check({ amount: 0.01, nights: 1, ref: 'a' })).toEqual([]);
    expect(check({ amount: 5000, nights: 30, ref: 'a' })).toEqual([]);
  });

  it('refuses what is below the minimum or above the maximum, every problem at once', () => {
    expect(check({ amount: -5, nights: 0 })).toEqual(['inputs.amount: must be at least 0.01', 'inputs.nights: must be at least 1', 'inputs.ref: missing']);
    expect(check({ amount: 0, nights: 1, ref: 'a' })).toEqual(['inputs.amount: must be at least 0.01']);
    expect(check({ amount: 5000.5, nights: 1, ref: 'a' })).toEqual(['inputs.amount: must be at most 5000']);
  });

  it('list_processes shows the inputs without the bounds, whose field objects the core closes', () => {
    expect(coreInputs({ amount: { type: 'number', minimum: 0.01, maximum: 9, description: 'EUR' }, ref: 'string', n: { type: 'number' } })).toEqual({
      amount: { type: 'number', description: 'EUR' },
      ref: 'string',
      n: { type: 'number' },
    });
  });
});

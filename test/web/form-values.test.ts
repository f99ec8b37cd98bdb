/**
 * Between HTML forms and tool arguments, without a browser: what a person
 * typed becomes the value it stands for (numbers, booleans, UTC datetimes,
 * choices as their JSON value, list rows, object key/value rows), empty
 * inputs are left out for the service to name, refusal issues land at their
 * fields, and a stale page's changes are listed by path.
 */
import { describe, expect, it } from 'vitest';
import { dataChanges } from '../../src/web/data-diff.js';
import { issuesByField, scalarValue, valuesFrom, webFields, type Posted } from '../../src/web/form-values.js';

const fields = webFields({
  amount: 'number',
  cleared: 'boolean',
  when: 'datetime',
  risk: { type: 'string', one_of: ['low', 'high'] },
  level: { type: 'number', one_of: [1, 2] },
  lines: { type: 'list', items: 'number' },
  extra: 'object',
  note: { type: 'string', optional: true },
});

describe('form values', () => {
  it('reads each field as the value it stands for', () => {
    const p: Posted = new Map([
      ['output.amount', [' 12.5 ']],
      ['output.cleared', ['true']],
      ['output.when', ['2026-12-01T09:30']],
      ['output.risk', ['"high"']],
      ['output.level', ['2']],
      ['output.lines', ['1', '', '3']],
      ['output.extra.key', ['a', ' ', 'b']],
      ['output.extra.value', ['1', 'ignored', 'text']],
      ['output.note', ['']],
    ]);
    expect(valuesFrom(fields, p, 'output')).toEqual({
      amount: 12.5,
      cleared: true,
      when: '2026-12-01T09:30:00Z',
      risk: 'high',
      level: 2,
      lines: [1, 3],
      extra: { a: 1, b: 'text' },
    });
  });

  it('keeps what does not parse as typed, for the service to refuse with its own words', () => {
    const amount = fields.find((f) => f.name === 'amount')!;
    expect(scalarValue(amount, 'twelve')).toBe('twelve');
    expect(scalarValue(amount, '   ')).toBeUndefined();
    const cleared = fields.find((f) => f.name === 'cleared')!;
    expect(scalarValue(cleared, 'maybe')).toBe('maybe');
  });

  it('puts each issue at its field, the rest at the top', () => {
    const by = issuesByField(['output.amount: expected number', 'inputs.lines[2]: expected number', 'note: required with decision rejected', 'run data: 300000 bytes, over the limit']);
    expect(Object.fromEntries(by)).toEqual({
      'output.amount': ['output.amount: expected number'],
      'inputs.lines': ['inputs.lines[2]: expected number'],
      note: ['note: required with decision rejected'],
      '': ['run data: 300000 bytes, over the limit'],
    });
  });
});

describe('what changed since the page was drawn', () => {
  it('lists every changed path with its value before and after', () => {
    const before = { inputs: { amount: 10 }, steps: { review: { output: { ok: true }, history: [] } } };
    const after = { inputs: { amount: 10 }, steps: { review: { output: { ok: false }, history: [] }, pay: { output: { ref: 'x' }, history: [] } } };
    expect(dataChanges(before, after)).toEqual([
      { path: 'steps.review.output.ok', before: 'true', after: 'false' },
      { path: 'steps.pay', before: '–', after: '{"history":[],"output":{"ref":"x"}}' },
    ]);
  });
});

/**
 * Between HTML forms and tool arguments, without a browser: what a person
 * typed becomes the value it stands for (numbers, booleans, datetimes read
 * off the board zone's clock,
 * choices as their JSON value, list rows, object key/value rows), empty
 * inputs are left out for the service to name, refusal issues land at their
 * fields, and a stale page's changes are listed by path.
 */
import { describe, expect, it } from 'vitest';
import { dataChanges } from '../../src/web/data-diff.js';
import { issuesByField, scalarValue, valuesFrom, webFields, type Posted } from '../../src/web/form-values.js';
import { zoneWords } from '../../src/words/index.js';

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
    expect(valuesFrom(fields, p, 'output', 'UTC')).toEqual({
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
    expect(scalarValue(amount, 'twelve', 'UTC')).toBe('twelve');
    expect(scalarValue(amount, '   ', 'UTC')).toBeUndefined();
    const cleared = fields.find((f) => f.name === 'cleared')!;
    expect(scalarValue(cleared, 'maybe', 'UTC')).toBe('maybe');
  });

  it("reads a typed date-time as the board zone's clock shows it, summer time included", () => {
    const when = fields.find((f) => f.name === 'when')!;
    const read = (text: string, zone: string) => scalarValue(when, text, zone);
    // Berlin is an hour ahead of UTC in winter and two in summer; Kolkata five and a half all year.
    expect(read('2026-12-01T09:30', 'Europe/Berlin')).toBe('2026-12-01T08:30:00Z');
    expect(read('2026-07-01T09:30:15', 'Europe/Berlin')).toBe('2026-07-01T07:30:15Z');
    expect(read('2026-12-01T09:30', 'Asia/Kolkata')).toBe('2026-12-01T04:00:00Z');
    expect(read('2026-12-01T09:30', 'UTC')).toBe('2026-12-01T09:30:00Z');
    // New York: 01:30 happens twice on 1 Nov 2026 (EDT, then EST); the first is meant.
    expect(read('2026-11-01T01:30', 'America/New_York')).toBe('2026-11-01T05:30:00Z');
    // Berlin skips 02:00-03:00 on 29 Mar 2026: 02:30 is read as 03:30 summer time, i.e. 01:30 UTC.
    expect(read('2026-03-29T02:30', 'Europe/Berlin')).toBe('2026-03-29T01:30:00Z');
    // No such day: kept as typed, for the service to refuse.
    expect(read('2026-02-30T09:30', 'Europe/Berlin')).toBe('2026-02-30T09:30');
    // The same through the whole form.
    expect(valuesFrom([when], new Map([['output.when', ['2026-12-01T09:30']]]), 'output', 'Europe/Berlin')).toEqual({ when: '2026-12-01T08:30:00Z' });
  });

  it("names the zone in the label's words", () => {
    expect(['UTC', 'Etc/UTC', 'Europe/Berlin', 'America/New_York', 'America/Argentina/Buenos_Aires'].map(zoneWords)).toEqual(['UTC', 'UTC', 'Berlin time', 'New York time', 'Buenos Aires time']);
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

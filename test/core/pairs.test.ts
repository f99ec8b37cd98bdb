/** key=value pairs: a value is JSON when it parses, else text; every malformed pair is named. */
import { expect, it } from 'vitest';
import { parsePairs } from '../../src/core/pairs.js';

it('reads values as JSON when they parse, as text otherwise, and names every pair without a key', () => {
  expect(parsePairs(['amount=107', 'name=Ana', 'ok=true', 'list=[1,2]', 'note=a=b', '=x', 'nokey'])).toEqual({
    values: { amount: 107, name: 'Ana', ok: true, list: [1, 2], note: 'a=b' },
    bad: ['=x', 'nokey'],
  });
});

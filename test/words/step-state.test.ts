/** A step's state in words: a decided approval says its decision, every other state stays as the protocol names it. */
import { describe, expect, it } from 'vitest';
import { stepStateWord } from '../../src/words/index.js';

describe('a step state in words', () => {
  it('says a finished approval as approved or rejected', () => {
    expect(stepStateWord('done', 'approved')).toBe('approved');
    expect(stepStateWord('done', 'rejected')).toBe('rejected');
  });

  it('keeps done for any other completion, and every other state as it is', () => {
    expect(stepStateWord('done')).toBe('done');
    expect(stepStateWord('done', 'failed')).toBe('done');
    expect(stepStateWord('waiting', 'rejected')).toBe('waiting');
    expect(stepStateWord('failed')).toBe('failed');
  });
});

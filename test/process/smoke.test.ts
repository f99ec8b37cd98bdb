import { describe, expect, it } from 'vitest';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/process/profiles.js';

describe('loadProcess', () => {
  it('accepts a minimal process', () => {
    const r = loadProcess('---\nname: a\ndescription: d\nsteps:\n  - id: done\n    finish: ok\n---\nbody\n', FULL_OFFER);
    expect(r.ok).toBe(true);
  });
});

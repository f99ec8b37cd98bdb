/**
 * The web reaches the board only as the service hands it over (issue 28):
 * no file of src/web/ imports anything of src/board/, not even a type. What
 * it needs of the board is named in src/service/web-board.ts.
 */
import { describe, expect, it } from 'vitest';
import { readSrc } from './src-graph.js';

describe('the web and the board', () => {
  it('no file of src/web/ imports src/board/ (type-only imports included)', () => {
    const { files } = readSrc();
    const web = [...files].filter(([file]) => /^web[\\/]/.test(file));
    expect(web.length).toBeGreaterThan(10); // the scan found the web's files
    const breaches = web.flatMap(([file, f]) => [...f.imports].filter((i) => /^board[\\/]/.test(i)).map((i) => `${file} imports ${i}`));
    expect(breaches).toEqual([]);
  });
});

/**
 * The mutation script is only as good as its texts: a mutation whose text
 * the code no longer holds is reported "not applicable", and the rule it
 * guarded goes unchecked. Each text must be in its file exactly once, and
 * each mutant must name test files that exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MUTANTS } from '../../scripts/mutants-list.mjs';

type Mutant = [id: string, file: string, text: string, mutated: string, tests: string[]];

describe('scripts/mutants-list.mjs', () => {
  it('finds each mutation text exactly once in its file, and names tests that exist', () => {
    const problems: string[] = [];
    const ids = new Set<string>();
    for (const [id, file, text, mutated, tests] of MUTANTS as Mutant[]) {
      if (ids.has(id)) problems.push(`${id}: named twice`);
      ids.add(id);
      if (text === mutated) problems.push(`${id}: the mutation changes nothing`);
      const found = existsSync(file) ? readFileSync(file, 'utf8').split(text).length - 1 : -1;
      if (found !== 1) problems.push(`${id}: ${file} holds its text ${found < 0 ? 'not at all (no such file)' : `${found} times`}`);
      for (const t of tests) if (!existsSync(t)) problems.push(`${id}: no test file ${t}`);
    }
    expect(problems).toEqual([]);
    expect(ids.size).toBeGreaterThan(0);
  });
});

/**
 * Robustness: loadProcess never throws, whatever the text. A property test
 * mutates the valid fixtures (delete, swap, duplicate lines, insert random
 * bytes and unicode, replace characters with YAML syntax, truncate), and a few
 * hostile inputs must be refused with issues, quickly.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadProcess, type LoadedProcess } from '../../src/process/load.js';
import { FULL_OFFER, type Offer } from '../../src/protocol/offer.js';

const validDir = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/valid');
const fixtures = readdirSync(validDir)
  .sort()
  .map((name) => readFileSync(join(validDir, name, 'PROCESS.md'), 'utf8'));

const OFFERS: Offer[] = [
  FULL_OFFER,
  { profiles: new Set(), tools: FULL_OFFER.tools },
  { profiles: FULL_OFFER.profiles, tools: new Set(['describe', 'list_processes', 'start_run', 'get_run', 'get_work', 'claim', 'submit', 'escalate', 'decide', 'cancel']) },
];

/** The shape every result must have, whatever the input. */
function checkShape(text: string, r: LoadedProcess) {
  if (r.ok) {
    expect(r.process.steps.length).toBeGreaterThan(0);
    expect(typeof r.process.name).toBe('string');
    expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
    return;
  }
  expect(r.issues.length).toBeGreaterThan(0);
  const lines = text.split('\n').length;
  for (const issue of r.issues) {
    expect(typeof issue.path).toBe('string');
    expect(typeof issue.message).toBe('string');
    expect(issue.message.trim()).not.toBe('');
    if (issue.line !== undefined) {
      expect(Number.isInteger(issue.line)).toBe(true);
      expect(issue.line).toBeGreaterThanOrEqual(1);
      expect(issue.line).toBeLessThanOrEqual(lines);
    }
    if (issue.col !== undefined) expect(issue.col).toBeGreaterThanOrEqual(1);
  }
}

type Mutation =
  | { kind: 'delete'; at: number; count: number }
  | { kind: 'swap'; a: number; b: number }
  | { kind: 'duplicate'; at: number; count: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'replace'; at: number; text: string }
  | { kind: 'truncate'; at: number };

const YAML_BITS = [
  ':',
  ': ',
  '-',
  '- ',
  '[',
  ']',
  '{',
  '}',
  ',',
  '&a ',
  '*a',
  '!!binary ',
  '!x ',
  '#',
  '|',
  '>',
  '"',
  "'",
  '\t',
  '\r',
  '\n',
  ' ',
  '  ',
  '%',
  '@',
  '`',
  '?',
  '---',
  '...',
  '~',
  '\u0000',
  '\uFEFF',
  '\u2028',
];

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('latin1')),
  fc.uint8Array({ maxLength: 12 }).map((b) => new TextDecoder().decode(b)),
  fc.constantFrom(...YAML_BITS),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), text }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

function apply(source: string, m: Mutation): string {
  const lines = source.split('\n');
  const n = Math.max(lines.length, 1);
  switch (m.kind) {
    case 'delete':
      lines.splice(m.at % n, m.count);
      return lines.join('\n');
    case 'swap': {
      const a = m.a % n;
      const b = m.b % n;
      [lines[a], lines[b]] = [lines[b] ?? '', lines[a] ?? ''];
      return lines.join('\n');
    }
    case 'duplicate': {
      const at = m.at % n;
      lines.splice(at, 0, ...lines.slice(at, at + m.count));
      return lines.join('\n');
    }
    case 'insert': {
      const at = m.at % (source.length + 1);
      return source.slice(0, at) + m.text + source.slice(at);
    }
    case 'replace': {
      const at = m.at % (source.length + 1);
      return source.slice(0, at) + m.text + source.slice(at + m.text.length);
    }
    case 'truncate':
      return source.slice(0, m.at % (source.length + 1));
  }
}

describe('fuzzing the valid fixtures', () => {
  it('never throws, and always returns a process or well-formed issues', () => {
    fc.assert(
      fc.property(fc.nat({ max: fixtures.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.constantFrom(...OFFERS), (which, mutations, offer) => {
        const mutated = mutations.reduce(apply, fixtures[which]!);
        let r: LoadedProcess;
        try {
          r = loadProcess(mutated, offer);
        } catch (e) {
          throw new Error(`loadProcess threw ${String(e)} on ${JSON.stringify(mutated)}`);
        }
        checkShape(mutated, r);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('hostile inputs', () => {
  /**
   * Load, and require a refusal with issues. Speed is the benchmark's business;
   * here each test's own timeout only guards against a hang.
   */
  function refused(text: string) {
    const r = loadProcess(text, FULL_OFFER);
    checkShape(text, r);
    expect(r.ok).toBe(false);
    return r.ok ? [] : r.issues;
  }

  it('refuses an alias bomb (billion laughs) without expanding it', () => {
    const lines = ['---', 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const name = String.fromCharCode(97 + i);
      const prev = String.fromCharCode(96 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    lines.push('---', '');
    const issues = refused(lines.join('\n'));
    expect(issues.some((i) => i.message.startsWith('aliases are not allowed'))).toBe(true);
    expect(issues.some((i) => i.message.startsWith('anchors are not allowed'))).toBe(true);
  });

  it.each([
    ['lists', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['maps', '{a: '.repeat(10_000) + '1' + '}'.repeat(10_000)],
    ['mixed', '[{a: '.repeat(5_000) + '1' + '}]'.repeat(5_000)],
  ])('refuses 10k-deep nested %s', (_kind, value) => {
    refused(`---\nname: deep\ndescription: ${value}\nsteps: [{id: done, finish: done}]\n---\n`);
  });

  it('refuses a file nested just past the limit, naming the limit', () => {
    const issues = refused(`---\nname: deep\ndescription: ${'['.repeat(200)}${']'.repeat(200)}\n---\n`);
    expect(issues.map((i) => i.message)).toContain('nested deeper than 64 levels');
  });

  it('refuses a 2 MB file', () => {
    const big = `---\nname: big\ndescription: ${'x'.repeat(2 * 1024 * 1024)}\nsteps: [{id: done, finish: done}]\n---\n`;
    expect(refused(big)).toEqual([{ path: '', message: 'file is larger than 1048576 bytes' }]);
  });

  it('refuses NUL bytes in the frontmatter or the body', () => {
    const base = fixtures[0]!;
    for (const text of [base.replace('name:', 'name:\u0000'), `${base}\u0000`, '\u0000'.repeat(1000)]) {
      expect(refused(text)).toEqual([{ path: '', message: 'file contains a NUL byte; expected UTF-8 text' }]);
    }
  });

  it('takes control characters in a value without throwing (the YAML library accepts them)', () => {
    const text = '---\nname: bell\ndescription: \u0007\u001b[31m\nsteps: [{id: done, finish: done}]\n---\n';
    checkShape(text, loadProcess(text, FULL_OFFER));
  });

  it('refuses a lone surrogate anywhere, even in a value that would validate (it cannot be hashed)', () => {
    const message = 'file contains a lone surrogate; expected UTF-8 text';
    const base = fixtures[0]!;
    // The fuzzer's own find: a surrogate pair split in the middle of instructions.
    for (const text of [base.replace('description: ', 'description: \uD800'), base.replace('description: ', 'description: \uDC00x'), `${base}\uDBFF`]) {
      expect(refused(text)).toEqual([{ path: '', message }]);
    }
    // A well-formed pair is fine.
    const r = loadProcess(base.replace('description: ', 'description: \u{1F4BC} '), FULL_OFFER);
    expect(r.ok ? [] : r.issues).toEqual([]);
  });

  // Regressions: each of these was slow or threw before the fixes in src/process.
  it('loads a 5,000-step chain (no recursion limit)', () => {
    const lines = ['---', 'name: long-chain', 'description: Many steps.', 'steps:'];
    for (let i = 0; i < 5000; i++) lines.push(`  - {id: s${i}, agent: Step ${i}.}`);
    lines.push('  - {id: done, finish: done}', '---', '');
    const r = loadProcess(lines.join('\n'), FULL_OFFER);
    expect(r.ok ? [] : r.issues).toEqual([]);
  });

  it('keeps the issue text linear when a file has thousands of loops', () => {
    const n = 8000;
    const lines = ['---', 'name: loops', 'description: Every step routes back to the first.', 'steps:'];
    for (let i = 0; i < n; i++) lines.push(`  - {id: s${i}, agent: x, next: [s${i + 1}, s0]}`);
    lines.push(`  - {id: s${n}, finish: done}`, '---', '');
    const text = lines.join('\n');
    const issues = refused(text);
    expect(issues).toHaveLength(n);
    const total = issues.reduce((sum, i) => sum + i.message.length, 0);
    expect(total).toBeLessThan(text.length * 4);
    const at = (i: number) => issues.find((x) => x.path === `steps[${i}].next[1]`)?.message;
    expect(at(3)).toBe('goes back to "s0" (s0 → s1 → s2 → s3 → s0); only on_reject may go back');
    expect(at(n - 1)).toBe(`goes back to "s0" (s0 → s1 → s2 → s3 → s4 → … ${n - 8} more … → s${n - 3} → s${n - 2} → s${n - 1} → s0); only on_reject may go back`);
  });

  it('handles a map with 60,000 keys', () => {
    const lines = ['---'];
    for (let i = 0; i < 60_000; i++) lines.push(`k${i}: 1`);
    lines.push('---', '');
    const issues = refused(lines.join('\n'));
    expect(issues.filter((i) => i.message === 'unknown key')).toHaveLength(60_000);
    expect(issues.find((i) => i.path === 'k59999')?.line).toBe(60_001);
  });

  it('reports a duplicate key in a map with 60,000 keys', () => {
    const lines = ['---', 'name: many-inputs', 'description: Lots of inputs.', 'inputs:'];
    for (let i = 0; i < 60_000; i++) lines.push(`  f${i}: string`);
    lines.push('  f0: number', 'steps: [{id: done, finish: done}]', '---', '');
    expect(refused(lines.join('\n'))).toEqual([{ path: '', message: 'duplicate key', line: 60_005, col: 3 }]);
  });
});

/**
 * plain-yaml.ts writes the front matter it knows to be plain without the yaml
 * library, and must give the library's bytes exactly: board files are read in
 * git diffs, and a second way of writing one would show up there as churn.
 * Whatever it declines (null) the library renders, so the property is: null,
 * or the library's bytes. It must also take the common case, or it buys nothing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AMBIGUOUS, libraryYaml } from '../../src/board/codec.js';
import { plainYaml } from '../../src/board/plain-yaml.js';
import { parseMarkdown } from '../../src/core/markdown.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir)) {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) out.push(...markdownFiles(p));
    else if (n.endsWith('.md')) out.push(p);
  }
  return out;
}

// Characters chosen to sit on every rule's edge: indicators, quotes, colons and hashes with and
// without spaces, digits and signs that make numbers, dots, escapes, a non-ASCII letter.
const CHARS = [
  'a',
  'b',
  'Z',
  '_',
  '0',
  '1',
  '9',
  '-',
  '+',
  '.',
  ':',
  '#',
  ' ',
  '/',
  '@',
  '"',
  "'",
  '\\',
  '\n',
  '\t',
  '[',
  ']',
  '{',
  '}',
  ',',
  '?',
  '&',
  '*',
  '!',
  '|',
  '>',
  '%',
  '`',
  '=',
  '(',
  ')',
  '~',
  'é',
  'e',
  'E',
  'x',
  'o',
  'T',
  'n',
  'y',
];
const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 12 }).map((cs) => cs.join(''));
// Mostly what plain-yaml.ts writes itself, with the characters whose place decides it (a colon, a space, a dot, a sign).
const NEAR_PLAIN = ['a', 'Z', '0', '9', '_', '-', '.', ':', '/', ' ', '@', '+', '=', '?', '&', '%', 'e', 'x', 'o', '(', ')'];
const nearPlain = fc.array(fc.constantFrom(...NEAR_PLAIN), { minLength: 1, maxLength: 10 }).map((cs) => cs.join(''));
const word = fc.oneof(
  text,
  nearPlain,
  nearPlain,
  fc.constantFrom(
    'yes',
    'No',
    'null',
    'true',
    '~',
    '2026-12-01',
    '2026-12-01T10:00:00Z',
    '12:30',
    '0o17',
    '0x1F',
    '1e3',
    '.5',
    '.inf',
    'https://example.com/r?a=1',
    'mira@example.com',
    'r-01jd0000000000000000000001',
    'Checked. ok',
  ),
);
const scalar = fc.oneof(word, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(-0));
const key = fc.oneof(fc.constantFrom('id', 'status', 'rev', 'claimed_by', 'due-at', 'yes', 'true', '1', 'a b', 'x:y'), fc.constantFrom('state', 'inputs', 'by', 'at'), text);
const plainKey = fc.constantFrom('id', 'state', 'rev', 'inputs', 'claimed_by', 'due-at', 'by', 'at', 'x');
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 3 })),
})).v;

describe('plain front matter', () => {
  /** Documents from `doc`: each written without the library must be the library's bytes; how many were. */
  function sameBytes(doc: fc.Arbitrary<Record<string, unknown>>): number {
    let written = 0;
    fc.assert(
      fc.property(doc, (data) => {
        const plain = plainYaml(data, AMBIGUOUS);
        if (plain === null) return;
        written++;
        expect(plain).toBe(libraryYaml(data));
      }),
      { numRuns: 3000 },
    );
    return written;
  }

  it('is the yaml library’s bytes whenever it writes anything (property, 3000 documents of anything)', () => {
    sameBytes(fc.dictionary(key, value, { maxKeys: 6 }));
  });

  it('is the yaml library’s bytes for documents near its edge, most of which it writes itself (property, 3000)', () => {
    const near = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        nearPlain,
        word,
        fc.integer(),
        fc.double({ noNaN: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(plainKey, tie('v'), { maxKeys: 3 }),
      ),
    })).v;
    const written = sameBytes(fc.dictionary(plainKey, near, { minKeys: 1, maxKeys: 5 }));
    expect(written).toBeGreaterThan(600);
  });

  it('writes a typical run file itself, as the library would', () => {
    const run = {
      id: 'r-01jd0000000000000000000001',
      process: 'expense-approval',
      version: 1,
      status: 'running',
      startedAt: '2026-12-01T10:00:00.000Z',
      startedBy: 'mira@example.com',
      inputs: { claimant: 'mira@example.com', amount: 42.5, receiptUrl: 'https://example.com/r', urgent: false, notes: null },
      tags: [],
      history: [{ step: 'review_claim', at: '2026-12-01T10:01:00.000Z', by: 'bench-1' }],
      rev: 3,
    };
    const plain = plainYaml(run, AMBIGUOUS);
    expect(plain).not.toBeNull();
    expect(plain).toBe(libraryYaml(run));
  });

  it('matches the library on every board file of the byte-identity board, the examples and the fixtures, and writes most run files itself', () => {
    // The byte-identity test's board: every kind of file the service writes, as it wrote them.
    const golden = JSON.parse(readFileSync(path.join(ROOT, 'test/board/golden/byte-identity.json'), 'utf8')) as Record<string, string>;
    const texts = [
      ...Object.entries(golden).filter(([rel]) => rel.endsWith('.md')),
      ...[...markdownFiles(path.join(ROOT, 'examples')), ...markdownFiles(path.join(ROOT, 'fixtures/valid'))].map((f) => [f, readFileSync(f, 'utf8')] as const),
    ];
    // The fast path is for what the service writes on every transition: run and step files. Process
    // files (nested steps, written once at publication) are compared, not counted.
    let taken = 0;
    let compared = 0;
    let runFiles = 0;
    let runTaken = 0;
    for (const [f, t] of texts) {
      const md = parseMarkdown(t);
      if (!md.ok || typeof md.value.data !== 'object' || md.value.data === null || Array.isArray(md.value.data)) continue;
      const data = md.value.data as Record<string, unknown>;
      const isRun = /(^|\/)runs\//.test(f);
      compared++;
      if (isRun) runFiles++;
      const plain = plainYaml(data, AMBIGUOUS);
      if (plain === null) continue;
      taken++;
      if (isRun) runTaken++;
      expect(plain, f).toBe(libraryYaml(data));
    }
    expect(compared).toBeGreaterThan(25);
    expect(runFiles).toBeGreaterThanOrEqual(8);
    expect(runTaken / runFiles).toBeGreaterThan(0.5);
    console.log(`plain front matter: ${taken} of ${compared} files, ${runTaken} of ${runFiles} run and step files`);
  });
});

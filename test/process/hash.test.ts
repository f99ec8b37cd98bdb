/**
 * The content hash of a process (spec §6 rule 5): SHA-256 over the RFC 8785
 * canonical JSON of the parsed frontmatter, one newline, then the body exactly
 * as written. The expected values here are computed independently: the
 * canonical JSON is written out by hand and hashed with node:crypto.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

function load(text: string) {
  const r = loadProcess(text, FULL_OFFER);
  if (!r.ok) throw new Error(`expected the document to load: ${JSON.stringify(r.issues)}`);
  return r;
}

const TINY = [
  '---',
  'name: tiny',
  'description: Café ✓ check',
  'inputs:',
  '  Zone: string',
  '  amount: { type: number, one_of: [1.50, 2e3, 10] }',
  'steps:',
  '  - id: done',
  '    finish: ok',
  '---',
  'Hi there.',
  '',
].join('\n');

// By hand, per RFC 8785: members sorted by UTF-16 code units ("Zone" < "amount"
// because "Z" is U+005A), no insignificant whitespace, numbers in ECMAScript
// form (1.50 → 1.5, 2e3 → 2000), non-ASCII characters as themselves.
const TINY_CANONICAL = '{"description":"Café ✓ check","inputs":{"Zone":"string","amount":{"one_of":[1.5,2000,10],"type":"number"}},' + '"name":"tiny","steps":[{"finish":"ok","id":"done"}]}';
const TINY_BODY = 'Hi there.\n';

describe('content hash', () => {
  it('is SHA-256 of the canonical JSON, a newline, and the body', () => {
    const r = load(TINY);
    expect(r.process.body).toBe(TINY_BODY);
    expect(r.hash).toBe(sha256(`${TINY_CANONICAL}\n${TINY_BODY}`));
    // A fixed value too, so a change in node:crypto or in our reading of UTF-8 would show.
    expect(sha256('{"a":1}\n')).toBe(
      createHash('sha256')
        .update(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 0x0a]))
        .digest('hex'),
    );
  });

  it('does not change with key order, whitespace, comments, flow style or quoting in the YAML', () => {
    const rewritten = [
      '---',
      '# the same frontmatter, written differently',
      'steps: [ { finish: "ok",   id: done } ]   # flow style',
      'inputs:',
      '    amount:',
      '        one_of:',
      '          - 1.5',
      '          - 2000',
      '          - 0xA',
      '        type: "number"',
      "    Zone: 'string'",
      '',
      'description: "Caf\\u00e9 \\u2713 check"',
      'name: tiny',
      '---',
      'Hi there.',
      '',
    ].join('\n');
    expect(load(rewritten).hash).toBe(load(TINY).hash);
  });

  it('changes with any change to the body, byte for byte', () => {
    const base = load(TINY).hash;
    const variants = [
      TINY.replace('Hi there.', 'Hi there!'),
      TINY.replace('Hi there.', 'Hi  there.'),
      TINY.replace('Hi there.\n', 'Hi there.'),
      TINY.replace('Hi there.\n', 'Hi there.\n\n'),
      TINY.replace('Hi there.\n', 'Hi there. \n'),
      TINY.replace('Hi there.\n', 'Hi there.\r\n'),
      TINY.replace('---\nHi', '---\n\nHi'),
      TINY.replace('Hi there.', 'Hi thére.'),
    ];
    const hashes = variants.map((v) => load(v).hash);
    for (const h of hashes) expect(h).not.toBe(base);
    expect(new Set(hashes).size).toBe(variants.length);
  });

  it('changes with a change to the frontmatter', () => {
    expect(load(TINY.replace('Café ✓ check', 'Café check')).hash).not.toBe(load(TINY).hash);
  });

  it('takes the body from after the closing line break, LF or CRLF', () => {
    // parse.ts: the body starts after the line break that ends the closing `---` line.
    const crlfClose = TINY.replace('ok\n---\nHi', 'ok\n---\r\nHi');
    const r = load(crlfClose);
    expect(r.process.body).toBe(TINY_BODY);
    expect(r.hash).toBe(sha256(`${TINY_CANONICAL}\n${TINY_BODY}`));

    // A file with CRLF throughout: the frontmatter parses to the same data, and
    // the body keeps its own CRLFs exactly as written.
    const allCrlf = TINY.replace(/\n/g, '\r\n');
    const c = load(allCrlf);
    expect(c.process.frontmatter).toEqual(load(TINY).process.frontmatter);
    expect(c.process.body).toBe('Hi there.\r\n');
    expect(c.hash).toBe(sha256(`${TINY_CANONICAL}\nHi there.\r\n`));
  });

  it('covers an empty body', () => {
    const noBody = TINY.replace('---\nHi there.\n', '---');
    const r = load(noBody);
    expect(r.process.body).toBe('');
    expect(r.hash).toBe(sha256(`${TINY_CANONICAL}\n`));
  });
});

/**
 * The board file format (docs/architecture.md "The board on disk"): reviewers read these
 * files in git diffs, so the bytes must be predictable.
 *  - top-level keys in the schema's order, whatever order the data came in;
 *  - timestamps and strings a YAML 1.1 reader would take for a boolean, null
 *    or date are double-quoted;
 *  - LF only, exactly one final newline, block style;
 *  - the same data always renders to the same bytes, and a one-field change
 *    is a one-line diff;
 *  - what is written reads back as the same data.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYamlLib } from 'yaml';
import { renderMarkdown } from '../../src/board/codec.js';
import { decodeDoc, encodeDoc } from '../../src/board/document.js';
import { parseMarkdown } from '../../src/core/markdown.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUN = 'r-01jd0000000000000000000001';

/** Where a file of each kind lives; the codec picks the key order by path. */
const REL = {
  work: 'WORK.md',
  version: 'processes/expense-check/v1/VERSION.md',
  run: `runs/${RUN}/RUN.md`,
  step: `runs/${RUN}/review.md`,
} as const;
type Kind = keyof typeof REL;

/** The property order of a kind's JSON Schema, read straight from schemas/board/. */
function schemaOrder(kind: Kind): string[] {
  const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas', 'board', `${kind}.schema.json`), 'utf8')) as { properties: Record<string, unknown> };
  return Object.keys(schema.properties);
}

/** Split a rendered file into its frontmatter lines and body. */
function split(text: string): { fm: string[]; fmText: string; body: string } {
  expect(text.startsWith('---\n')).toBe(true);
  const lines = text.split('\n');
  const close = lines.indexOf('---', 1);
  expect(close).toBeGreaterThan(0);
  const fm = lines.slice(1, close);
  return { fm, fmText: fm.map((l) => `${l}\n`).join(''), body: lines.slice(close + 1).join('\n') };
}

/** The top-level keys of a rendered frontmatter, in file order. */
function topKeys(text: string): string[] {
  return split(text)
    .fm.filter((l) => /^[^\s#-]/.test(l))
    .map((l) => {
      const m = /^("(?:[^"\\]|\\.)*"|[^:]+):/.exec(l);
      expect(m, `top-level line without a key: ${l}`).not.toBeNull();
      const k = m![1]!;
      return k.startsWith('"') ? (JSON.parse(k) as string) : k;
    });
}

/** A step document with nested maps, lists of scalars and lists of objects. */
function sampleStep(): Record<string, unknown> {
  return {
    id: 'review',
    kind: 'approve',
    state: 'done',
    rev: 4,
    readySince: '2026-11-29T09:00:00Z',
    due: '2026-12-01T09:00:00Z',
    overdue: false,
    workItem: null,
    output: {
      amountEur: 12.5,
      approved: true,
      vendor: 'Acme Ltd',
      tags: ['travel', 'hotel', 'q4'],
      address: { city: 'Lyon', postcode: '69001' },
    },
    evidence: [
      { kind: 'file', ref: 'files/ab/receipt.pdf', sha256: 'cd'.repeat(32) },
      { kind: 'link', ref: 'https://example.com/claims/17' },
    ],
    decision: 'approved',
    note: 'Receipt matches the amount.',
    by: 'ann@example.com',
    at: '2026-11-29T10:30:00Z',
    history: [
      { decision: 'rejected', note: 'Receipt missing.', by: 'ann@example.com', at: '2026-11-28T16:00:00Z', output: { approved: false, count: 3 } },
      { summary: 'Resubmitted with the receipt.', by: 'agent:clerk', at: '2026-11-29T08:00:00Z' },
    ],
  };
}

describe('key order', () => {
  for (const kind of Object.keys(REL) as Kind[]) {
    it(`writes ${kind} files with top-level keys in the schema's order, whatever the insertion order`, () => {
      const order = schemaOrder(kind);
      expect(order.length).toBeGreaterThan(3);
      fc.assert(
        fc.property(fc.shuffledSubarray(order, { minLength: 1 }), (keys) => {
          const data: Record<string, unknown> = {};
          for (const k of keys) data[k] = `value of ${k}`;
          const text = encodeDoc(REL[kind], data, '');
          expect(topKeys(text)).toEqual(order.filter((k) => keys.includes(k)));
        }),
        { numRuns: 60 },
      );
    });
  }

  it('keeps every key: the schema order first, nothing dropped or duplicated', () => {
    const data = { ...sampleStep() };
    const reversed = Object.fromEntries(Object.entries(data).reverse());
    const text = encodeDoc(REL.step, reversed, '');
    const keys = topKeys(text);
    expect([...keys].sort()).toEqual(Object.keys(data).sort());
    expect(keys).toEqual(schemaOrder('step').filter((k) => Object.hasOwn(data, k)));
  });
});

describe('quoting', () => {
  const TIMESTAMPS = ['2026-11-29T09:00:00Z', '2026-11-29T09:00:00.123Z', '2026-11-29T10:00:00+01:00', '2026-11-29'];
  // Every spelling YAML 1.1 reads as a boolean or null.
  const BOOLISH = ['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO', 'on', 'On', 'ON', 'off', 'Off', 'OFF', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL', '~'];

  for (const s of [...TIMESTAMPS, ...BOOLISH]) {
    it(`double-quotes the string ${JSON.stringify(s)} at the top level, in nested maps and in lists`, () => {
      const data = { id: 'review', kind: 'agent', state: 'ready', at: s, output: { value: s, list: ['plain', s] } };
      const text = encodeDoc(REL.step, data, '');
      const { fm, fmText } = split(text);
      const quoted = `"${s}"`;
      expect(fm).toContain(`at: ${quoted}`);
      expect(fm.some((l) => /^\s+value: /.test(l) && l.trimStart() === `value: ${quoted}`)).toBe(true);
      expect(fm.some((l) => /^\s+- /.test(l) && l.trimStart() === `- ${quoted}`)).toBe(true);
      // A YAML 1.1 reader (PyYAML, Psych, ...) reads back strings, not dates or booleans.
      expect(parseYamlLib(fmText, { version: '1.1' })).toEqual(data);
    });
  }

  it('reads back timestamps as the same strings in YAML 1.2 too', () => {
    const data = { id: 'review', kind: 'agent', state: 'ready', at: '2026-11-29T09:00:00Z', note: '2026-11-29' };
    const d = decodeDoc(REL.step, Buffer.from(encodeDoc(REL.step, { ...data, rev: 1 }, '')));
    expect(d.ok, d.ok ? '' : JSON.stringify(d.issues)).toBe(true);
    if (d.ok) expect(d.doc.data).toEqual({ ...data, rev: 1 });
  });
});

describe('line ends and the final newline', () => {
  it('writes LF only, even when values and the body contain CR or CRLF', () => {
    const data = { id: 'review', kind: 'agent', state: 'ready', note: 'one\r\ntwo\rthree', output: { text: 'a\r\nb\r\n' } };
    const text = encodeDoc(REL.step, data, 'Line one\r\nLine two\r\n');
    expect(text.includes('\r')).toBe(false);
    // The CRs inside values are data: kept (escaped), not lost.
    const parsed = parseMarkdown(text);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.value.data).toEqual(data);
  });

  for (const body of ['', '\n', '\n\n\n', 'Body.', 'Body.\n', 'Body.\n\n\n\n', '# Title\n\nPara one.\n\nPara two.\n\n', 'x\r\n\r\n']) {
    it(`ends with exactly one newline for body ${JSON.stringify(body)}`, () => {
      const text = renderMarkdown({ rev: 1, title: 't' }, body, ['rev']);
      expect(text.endsWith('\n')).toBe(true);
      expect(text.endsWith('\n\n')).toBe(false);
    });
  }

  it('keeps the body text itself: inner blank lines survive, only the ending is normalised', () => {
    const body = '# Title\n\nPara one.\n\n\nPara two.';
    const text = renderMarkdown({ rev: 1 }, body, ['rev']);
    expect(split(text).body).toBe(`${body}\n`);
  });
});

describe('block style', () => {
  it('writes maps and lists in block style, one list item per line, lists of objects one object per item', () => {
    const text = encodeDoc(REL.step, sampleStep(), '');
    const { fm } = split(text);
    // No flow collections except the empty ones.
    for (const l of fm) {
      expect(l, `flow style in: ${l}`).not.toMatch(/^\s*(-\s+|[^"]*:\s+)[[{](?!\]|\})/);
    }
    // Nested maps: the key alone on its line, children indented below.
    const at = fm.indexOf('output:');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(fm[at + 1]).toMatch(/^\s{2}\S/);
    // A list of scalars: one item per line.
    const tags = fm.findIndex((l) => l.trim() === 'tags:');
    expect(fm.slice(tags + 1, tags + 4).map((l) => l.trim())).toEqual(['- travel', '- hotel', '- q4']);
    // A list of objects: each object starts its own `- key:` line.
    const ev = fm.indexOf('evidence:');
    const items = fm.slice(ev + 1).filter((l) => /^\s*- kind: /.test(l));
    expect(items.map((l) => l.trim())).toEqual(['- kind: file', '- kind: link']);
    // Empty collections stay readable.
    const empty = encodeDoc(REL.work, { schema: 'workboard/v1', name: 'b', title: 't', description: '', rev: 1, people: [], groups: {} }, '');
    expect(split(empty).fm).toEqual(expect.arrayContaining(['people: []', 'groups: {}']));
  });

  it('writes multi-line strings as block scalars that read back exactly', () => {
    const data = { id: 'review', kind: 'agent', state: 'ready', note: 'First line.\nSecond line.\n\nFourth line.' };
    const text = encodeDoc(REL.step, data, '');
    const { fm } = split(text);
    expect(fm.find((l) => l.startsWith('note:'))).toMatch(/^note: \|/);
    const parsed = parseMarkdown(text);
    expect(parsed.ok && parsed.value.data).toEqual(data);
  });
});

describe('the value that ends the frontmatter', () => {
  // The YAML writer keeps trailing line breaks with `|+`; the line break before the closing `---`
  // is the last of them, so a reader that dropped it would lose one.
  for (const note of ['\n', '\n\n', 'x\n\n', 'x\n\n\n', ' \n', 'x\n \n', 'x\n', 'x']) {
    it(`reads back ${JSON.stringify(note)} exactly, with LF and with CRLF line ends`, () => {
      const data = { id: 'review', kind: 'agent', rev: 1, note };
      const text = renderMarkdown(data, 'Body.\n', ['id', 'kind', 'rev', 'note']);
      for (const file of [text, text.replace(/\n/g, '\r\n')]) {
        const parsed = parseMarkdown(file);
        expect(parsed.ok && parsed.value.data).toEqual(data);
        expect(parsed.ok && parsed.value.body).toBe(file.endsWith('\r\n') ? 'Body.\r\n' : 'Body.\n');
      }
    });
  }
});

describe('stable bytes', () => {
  it('renders the same data twice to the same bytes, and insertion order of the top level does not matter', () => {
    const a = sampleStep();
    const b = Object.fromEntries(Object.entries(sampleStep()).reverse());
    const one = encodeDoc(REL.step, a, 'Summary.\n');
    expect(encodeDoc(REL.step, a, 'Summary.\n')).toBe(one);
    expect(encodeDoc(REL.step, b, 'Summary.\n')).toBe(one);
  });

  it('re-rendering what was read back gives the same bytes (so an unchanged rewrite is no change)', () => {
    const text = encodeDoc(REL.step, sampleStep(), '# Review\n\nLooks fine.\n');
    const d = decodeDoc(REL.step, Buffer.from(text));
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.doc.data).toEqual(sampleStep());
    expect(encodeDoc(REL.step, d.doc.data, d.doc.body)).toBe(text);
  });

  it('reads back arbitrary JSON data exactly as it was written', () => {
    const key = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 });
    const str = fc.string({ unit: 'binary', maxLength: 40 });
    const scalar = fc.oneof(
      str,
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })),
    })).v;
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), (extra) => {
        const data = { id: 'review', kind: 'agent', state: 'ready', rev: 1, output: extra };
        const text = renderMarkdown(data, '', schemaOrder('step'));
        const parsed = parseMarkdown(text);
        expect(parsed.ok, parsed.ok ? '' : JSON.stringify(parsed.issues)).toBe(true);
        if (parsed.ok) expect(parsed.value.data).toEqual(data);
        expect(text.includes('\r')).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('one field, one line', () => {
  type Leaf = { path: (string | number)[]; value: unknown };

  function leaves(v: unknown, at: (string | number)[] = []): Leaf[] {
    if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...at, i]));
    if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, [...at, k]));
    return [{ path: at, value: v }];
  }

  function setAt(obj: unknown, p: (string | number)[], value: unknown): void {
    let cur = obj as Record<string | number, unknown>;
    for (const seg of p.slice(0, -1)) cur = cur[seg] as Record<string | number, unknown>;
    cur[p[p.length - 1]!] = value;
  }

  /** A different value of the same kind that still fits on one line. */
  function changed(v: unknown): unknown {
    if (typeof v === 'number') return v + 1;
    if (typeof v === 'boolean') return !v;
    if (v === null) return 'now set';
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    if (/^\d{4}-\d{2}-\d{2}T/.test(s)) return s.replace(/^\d{4}/, '2027');
    return `${s} (edited)`;
  }

  function diffLines(a: string, b: string): number[] {
    const x = a.split('\n');
    const y = b.split('\n');
    expect(y.length).toBe(x.length);
    return x.map((l, i) => (l === y[i] ? -1 : i)).filter((i) => i >= 0);
  }

  const base = sampleStep();
  const all = leaves(base);

  it('has many leaves to try', () => {
    expect(all.length).toBeGreaterThan(30);
  });

  for (const leaf of all) {
    it(`changing ${leaf.path.join('.')} changes exactly one line`, () => {
      const before = encodeDoc(REL.step, base, 'Body.\n');
      const edited = structuredClone(base);
      setAt(edited, leaf.path, changed(leaf.value));
      const after = encodeDoc(REL.step, edited, 'Body.\n');
      expect(diffLines(before, after)).toHaveLength(1);
    });
  }

  it('changing the rev changes exactly the rev line', () => {
    const before = encodeDoc(REL.step, base, 'Body.\n');
    const after = encodeDoc(REL.step, { ...base, rev: 5 }, 'Body.\n');
    const d = diffLines(before, after);
    expect(d).toHaveLength(1);
    expect(after.split('\n')[d[0]!]).toBe('rev: 5');
  });
});

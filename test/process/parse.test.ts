/**
 * Parsing specifics: the YAML 1.2 core schema (spec §2.1: `yes` and `no` are
 * strings), the frontmatter delimiters, and line/column positions on issues.
 */
import { describe, expect, it } from 'vitest';
import type { Issue } from '../../src/core/issues.js';
import { loadProcess } from '../../src/process/load.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

/** A process whose inputs block is `inputs` (already indented by two spaces per line). */
function withInputs(inputs: string[], description = 'A test process.'): string {
  return ['---', 'name: parse-test', `description: ${description}`, 'inputs:', ...inputs.map((l) => `  ${l}`), 'steps:', '  - id: done', '    finish: done', '---', 'Body.', ''].join('\n');
}

function ok(text: string) {
  const r = loadProcess(text, FULL_OFFER);
  if (!r.ok) throw new Error(`expected ok: ${JSON.stringify(r.issues)}`);
  return r.process;
}

function issues(text: string): Issue[] {
  const r = loadProcess(text, FULL_OFFER);
  if (r.ok) throw new Error('expected issues');
  return r.issues;
}

const pm = (list: Issue[]) => list.map(({ path, message }) => ({ path, message }));

describe('YAML 1.2 core schema', () => {
  it.each(['yes', 'no', 'on', 'off', 'y', 'n', 'Yes', 'NO'])('reads %s as a string, so it is a fine description', (word) => {
    const p = ok(withInputs(['flag: boolean'], word));
    expect(p.description).toBe(word);
  });

  it.each(['yes', 'no', 'on', 'off'])('refuses optional: %s as not a boolean', (word) => {
    expect(pm(issues(withInputs([`flag: { type: boolean, optional: ${word} }`])))).toEqual([{ path: 'inputs.flag.optional', message: 'expected true or false' }]);
  });

  it('reads true, True and TRUE as booleans', () => {
    const p = ok(withInputs(['a: { type: string, optional: true }', 'b: { type: string, optional: True }', 'c: { type: string, optional: TRUE }']));
    expect([p.inputs.a?.optional, p.inputs.b?.optional, p.inputs.c?.optional]).toEqual([true, true, true]);
  });

  it('reads 0o17 as the number 15, 0x1F as 31 and 017 as 17', () => {
    const p = ok(withInputs(['n: { type: number, one_of: [0o17, 0x1F, 017, -4.5e1] }']));
    expect(p.inputs.n?.oneOf).toEqual([15, 31, 17, -45]);
  });

  it('reads 1_000 (YAML 1.1 style) as a string, not a number', () => {
    expect(pm(issues(withInputs(['n: { type: number, one_of: [1_000] }'])))).toEqual([{ path: 'inputs.n.one_of[0]', message: "expected number, the field's type" }]);
  });

  it('keeps an unquoted date as a string (no timestamp type)', () => {
    const p = ok(withInputs(['d: { type: date, one_of: [2026-10-06] }']));
    expect(p.inputs.d?.oneOf).toEqual(['2026-10-06']);
  });

  it('reads ~ and null as null, which is not a description', () => {
    for (const v of ['~', 'null', 'Null']) {
      expect(pm(issues(withInputs(['x: string'], v)))).toEqual([{ path: 'description', message: 'expected string' }]);
    }
  });

  it('reads .inf and .nan as numbers that no number field accepts', () => {
    expect(pm(issues(withInputs(['n: { type: number, one_of: [.inf, .nan] }'])))).toEqual([
      { path: 'inputs.n.one_of[0]', message: "expected number, the field's type" },
      { path: 'inputs.n.one_of[1]', message: "expected number, the field's type" },
    ]);
  });

  it('allows yes and no as field names (they are string keys)', () => {
    const p = ok(withInputs(['yes: string', 'no: boolean']));
    expect(Object.keys(p.inputs)).toEqual(['yes', 'no']);
  });

  it('does not merge << keys', () => {
    expect(pm(issues(withInputs(['x: string']).replace('name: parse-test', 'name: parse-test\n<<: { description: merged }')))).toEqual([{ path: '["<<"]', message: 'unknown key' }]);
  });

  it('keeps a __proto__ key as plain data and refuses it as unknown', () => {
    const got = issues(withInputs(['x: string']).replace('name: parse-test', 'name: parse-test\n__proto__: { polluted: true }'));
    expect(pm(got)).toEqual([{ path: '__proto__', message: 'unknown key' }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('frontmatter delimiters', () => {
  it('allows --- lines in the body', () => {
    const p = ok(withInputs(['x: string']).replace('Body.\n', 'Body.\n\n---\n\nMore.\n'));
    expect(p.body).toBe('Body.\n\n---\n\nMore.\n');
  });

  it('refuses a line that starts with --- inside the frontmatter as ambiguous', () => {
    const text = withInputs(['x: string']).replace('description:', '---x: 1\ndescription:');
    expect(issues(text)).toEqual([
      {
        path: '',
        message: 'frontmatter delimiters are ambiguous; use a line that is exactly `---` to open and to close it',
        line: 1,
        col: 1,
      },
    ]);
  });

  it('refuses a byte-order mark before the opening line', () => {
    expect(pm(issues(`\uFEFF${withInputs(['x: string'])}`))).toEqual([{ path: '', message: 'file starts with a byte-order mark; save it as UTF-8 without one so it starts with `---`' }]);
  });

  it('reads a CRLF file like its LF twin', () => {
    const lf = withInputs(['x: { type: string, description: last words }']);
    const crlf = ok(lf.replace(/\n/g, '\r\n'));
    expect(crlf.frontmatter).toEqual(ok(lf).frontmatter);
    expect(crlf.body).toBe('Body.\r\n');
  });
});

describe('positions', () => {
  const text = [
    '---', //                                        1
    'name: positions', //                            2
    'description: Issues point at their line.', //   3
    'inputs:', //                                    4
    '  when: datetime', //                           5
    'steps:', //                                     6
    '  - id: work', //                               7
    '    agent: Do the work.', //                    8
    '    due: 1w', //                                9
    '    next:', //                                  10
    '      - { to: done, when: Finished }', //       11
    '      - { to: nowhere, when: Lost }', //        12
    '  - id: pause', //                              13
    '    wait_until: inputs.whenever', //            14
    '  - id: done', //                               15
    '    finish: done', //                           16
    '---', //                                        17
    'Body.', //                                      18
    '',
  ].join('\n');

  it('gives the line and column of the offending value', () => {
    expect(issues(text)).toEqual(
      expect.arrayContaining([
        { path: 'steps[0].due', message: 'expected a duration: a whole number followed by m, h or d, e.g. 30m, 4h, 3d', line: 9, col: 10 },
        { path: 'steps[0].next[1].to', message: 'no step "nowhere"', line: 12, col: 15 },
        { path: 'steps[1].wait_until', message: '"inputs.whenever" names no declared field', line: 14, col: 17 },
      ]),
    );
  });

  it('points a missing key at the map that should hold it', () => {
    const missing = text.replace('    agent: Do the work.\n', '    task: Do the work.\n');
    const found = issues(missing).find((i) => i.path === 'steps[0].person');
    expect(found).toMatchObject({ message: 'required on a task step', line: 7, col: 5 });
  });

  it('counts the opening --- line for YAML errors', () => {
    const dup = text.replace('    due: 1w\n', '    due: 1w\n    due: 2d\n');
    expect(issues(dup)).toEqual([{ path: '', message: 'duplicate key', line: 10, col: 5 }]);
  });

  it('keeps lines right in a CRLF file', () => {
    const got = issues(text.replace(/\n/g, '\r\n'));
    expect(got.find((i) => i.path === 'steps[1].wait_until')).toMatchObject({ line: 14, col: 17 });
  });

  it('gives line 1 for a file that does not open with ---', () => {
    expect(issues('name: x\n')).toEqual([{ path: '', message: 'file must start with a line `---` that opens the YAML frontmatter', line: 1, col: 1 }]);
  });
});

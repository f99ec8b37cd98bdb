/**
 * The index's fast read of RUN.md (src/service/run-summary-scan.ts): on every
 * file the board writes it gives exactly what a full, strict read gives; on
 * a hand-edited file the full read accepts, it gives the same or gives up
 * (null, so the full read is used). A file the full read refuses may still
 * be summarised from its lines: the index only lists, and every read of the
 * run itself reports the problem.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeDoc, encodeDoc } from '../../src/board/document.js';
import { runDoc, runFromDoc } from '../../src/service/runfiles.js';
import { scanRunSummary } from '../../src/service/run-summary-scan.js';
import type { RunRecord } from '../../src/engine/types.js';

const ID = 'r-01jd0000000000000000000001';
const REL = `runs/${ID}/RUN.md`;

/** What a full read gives for the summary: the strict parser and the schema, through the same decode every board read uses. */
function fullSummary(text: string) {
  const d = decodeDoc(REL, Buffer.from(text));
  if (!d.ok) return null;
  const r = runFromDoc(d.doc);
  return { id: r.id, process: r.process, version: r.version, state: r.state, outcome: r.outcome, mode: r.mode, startedAt: r.startedAt, updatedAt: r.updatedAt, inputs: r.inputs };
}

const str = fc.string({ unit: 'binary', maxLength: 30 });
const key = fc.string({ unit: 'binary', minLength: 1, maxLength: 10 });
const scalar = fc.oneof(
  str,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 3 })),
})).v;
/** Inputs as people type them: plain keys; words, emails, URLs, numbers, booleans, and strings that look like numbers or booleans. */
const typicalValue = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9]{0,8}(@example\.com)?$/),
  fc.stringMatching(/^https:\/\/[a-z]{1,8}\.example\/[a-z0-9?=&%~_-]{0,12}$/),
  fc.constantFrom('123', '1e5', 'true', 'False', '0x1F', '.5', '1.50', 'null', '~', 'a: b', 'x #y', '-', '- a', '@a', 'yes', 'on', '12:30', 'a:b', 'a:'),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
);
const typicalInputs = fc.dictionary(fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_-]{0,8}$/), typicalValue, { maxKeys: 5 });
const iso = fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());

const record = fc.record({
  process: fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}$/),
  version: fc.integer({ min: 1, max: 1000 }),
  state: fc.constantFrom('active', 'waiting', 'ended', 'cancelled'),
  outcome: fc.option(fc.stringMatching(/^[a-z][a-z_]{0,12}$/), { nil: null }),
  mode: fc.constantFrom('live', 'test'),
  startedAt: iso,
  updatedAt: iso,
  inputs: fc.oneof(fc.dictionary(key, value, { maxKeys: 5 }), typicalInputs),
  ended: fc.option(fc.record({ by: fc.constant('server'), at: iso, note: fc.option(str, { nil: null }) }), { nil: null }),
});

function fileOf(r: Record<string, unknown>): string {
  const run = {
    id: ID,
    process: r.process,
    version: r.version,
    hash: 'a'.repeat(64),
    mode: r.mode,
    state: r.state,
    outcome: r.outcome,
    ended: r.ended,
    startedBy: 'mira@example.com',
    initiator: 'mira@example.com',
    startedAt: r.startedAt,
    updatedAt: r.updatedAt,
    rev: 3,
    inputs: r.inputs,
    events: [],
  } as unknown as RunRecord;
  const doc = runDoc(run);
  return encodeDoc(REL, doc.data, doc.body);
}

describe('the index reads a RUN.md as the full read does', () => {
  it('on every file the board writes: the same summary', () => {
    fc.assert(
      fc.property(record, (r) => {
        const text = fileOf(r);
        const full = fullSummary(text);
        expect(full).not.toBeNull();
        expect(scanRunSummary(text)).toEqual(full);
      }),
      { numRuns: 400 },
    );
  });

  it('on values with blank lines, which the board writes as block scalars', () => {
    const base = { process: 'a', version: 1, state: 'active', outcome: null, mode: 'live', startedAt: '2020-01-01T00:00:00.000Z', updatedAt: '2020-01-01T00:00:00.000Z' };
    const cases = [
      { ...base, inputs: {}, ended: { by: 'server', at: '2020-01-01T00:00:00.000Z', note: '\n\n' } },
      { ...base, inputs: { a: 'x\n\ny', b: 2 }, ended: null },
      { ...base, inputs: { a: 'x\n\n', b: 'y' }, ended: null },
      { ...base, inputs: { a: '\n' }, ended: null },
    ];
    for (const r of cases) {
      const text = fileOf(r);
      expect(scanRunSummary(text)).toEqual({ id: ID, ...base, inputs: r.inputs });
    }
  });

  it('on hand edits: the same summary, or none (so the full read decides)', () => {
    const edits: ((text: string) => string)[] = [
      (t) => t.replace('\nstate: ', '\nstate:   '), // extra spaces after the colon
      (t) => t.replace(/\nmode: (\w+)/, '\nmode: "$1"'), // quoted
      (t) => t.replace(/\nmode: (\w+)/, "\nmode: '$1'"), // single-quoted
      (t) => t.replace(/\nversion: (\d+)/, '\nversion: "$1"'), // a string, which the schema refuses
      (t) => t.replace('\nprocess: ', '\nprocess: # a comment\n  '), // value on the next line
      (t) => t.replace(/\nstate: (\w+)/, '\nstate: $1 # edited'), // trailing comment
      (t) => t.replace(/\n/g, '\r\n'), // CRLF
      (t) => t.replace('\nmode: ', '\nmode: live\nmode: '), // duplicate key
      (t) => t.replace(/\ninputs:.*(\n  .*)*/, '\ninputs: {a: 1, b: [x, y]}'), // flow style
      (t) => t.replace(/\noutcome: .*/, '\noutcome: ~'), // null spelled ~
      (t) => t.replace(/\noutcome: .*/, '\noutcome: Null'),
      (t) => t.replace(/\nstate: (\w+)/, '\nstate: True'), // a boolean in YAML's core schema
      (t) => t.replace('\nid: ', '\n"id": '), // a quoted key
      (t) => t.replace(/\nid: .*/, `\nid: &a ${ID}`), // an anchor
      (t) => t.replace('\ninputs:', '\ninputs: !!map'), // a tag
      (t) => t.replace(/\nstartedAt: "(.*)"/, '\nstartedAt: $1'), // an unquoted timestamp: a string in YAML 1.2
    ];
    fc.assert(
      fc.property(record, fc.constantFrom(...edits.keys()), (r, e) => {
        const text = edits[e]!(fileOf(r));
        const full = fullSummary(text);
        const scanned = scanRunSummary(text);
        if (full !== null && scanned !== null) expect(scanned).toEqual(full);
      }),
      { numRuns: 600 },
    );
  });

  it('gives up on what is not a board file', () => {
    for (const text of ['', 'id: x\n', '---\nid: x\n', '---\n---\n', '\uFEFF---\nid: x\n---\n']) expect(scanRunSummary(text)).toBeNull();
  });
});

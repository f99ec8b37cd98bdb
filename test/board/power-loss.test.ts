/**
 * The pure rules replay uses to read what a power loss left (src/board/power-loss.ts):
 * which bytes are a torn copy of a version, where a chain's whole lines end,
 * which lines the records carry from a seq on, and one scope's commit order.
 */
import { describe, expect, it } from 'vitest';
import type { CommitRecord } from '../../src/board/journal.js';
import { commitOrder, isTornCopyOf, lastWrites, linesFrom, wholeLinesEnd } from '../../src/board/power-loss.js';

const b = (s: string) => Buffer.from(s, 'utf8');
const zeros = (n: number) => Buffer.alloc(n);

function record(over: Partial<CommitRecord>): CommitRecord {
  return { v: 2, id: 'x', scope: 'run r-1', chain: 'runs/r-1/audit.jsonl', files: [], lines: [], firstSeq: 0, pos: 0, at: 0, ...over };
}

describe('a torn copy', () => {
  const version = b('---\nrev: 3\nstate: active\n---\n');
  it('is the empty file, a prefix, or the version with some bytes read back as zeros', () => {
    expect(isTornCopyOf(b(''), version)).toBe(true);
    expect(isTornCopyOf(version.subarray(0, 10), version)).toBe(true);
    expect(isTornCopyOf(Buffer.concat([version.subarray(0, 8), zeros(version.length - 8)]), version)).toBe(true);
    expect(isTornCopyOf(zeros(version.length), version)).toBe(true);
  });
  it('is never the whole version, anything longer, or other bytes (a later write, a hand edit)', () => {
    expect(isTornCopyOf(version, version)).toBe(false);
    expect(isTornCopyOf(Buffer.concat([version, zeros(1)]), version)).toBe(false);
    expect(isTornCopyOf(b('---\nrev: 4\n'), version)).toBe(false);
    expect(isTornCopyOf(Buffer.concat([b('---\nrev: 4'), zeros(3)]), version)).toBe(false);
  });
});

describe("a chain's whole lines", () => {
  it('end at the last line break before the first zero byte, or before a torn last line', () => {
    expect(wholeLinesEnd(b('a\nb\n'))).toBe(4);
    expect(wholeLinesEnd(b('a\nb\nc'))).toBe(4);
    expect(wholeLinesEnd(Buffer.concat([b('a\nb'), zeros(5)]))).toBe(2);
    expect(wholeLinesEnd(Buffer.concat([b('a\n'), zeros(3), b('c\n')]))).toBe(2);
    expect(wholeLinesEnd(zeros(4))).toBe(0);
    expect(wholeLinesEnd(b(''))).toBe(0);
  });
});

describe("the records' lines", () => {
  const records = [record({ firstSeq: 0, lines: ['l0\n', 'l1\n'] }), record({ firstSeq: 3, lines: ['l3\n'] }), record({ firstSeq: 2, lines: ['l2\n'] })];
  it('run from a seq for as long as they follow one another, from whichever record holds each', () => {
    expect(linesFrom(records, 1)).toBe('l1\nl2\nl3\n');
    expect(linesFrom(records, 4)).toBe('');
    expect(linesFrom([records[0]!, records[1]!], 0)).toBe('l0\nl1\n');
  });
});

describe("one scope's commit order", () => {
  it('is chain position, an audited commit before an unaudited one there, then time', () => {
    const unaudited = record({ id: 'u', pos: 2, at: 1 });
    const audited = record({ id: 'a', pos: 2, at: 9, lines: ['l\n'] });
    const earlier = record({ id: 'e', pos: 1, at: 50, lines: ['l\n'] });
    const later = record({ id: 'l', pos: 2, at: 5 });
    expect([later, unaudited, audited, earlier].sort(commitOrder).map((r) => r.id)).toEqual(['e', 'a', 'u', 'l']);
  });
  it('gives each file the last write among the records, a removal included', () => {
    const f = (rel: string, sha256: string | null) => ({ rel, prev: null, sha256 });
    const last = lastWrites([record({ files: [f('RUN.md', 'a'), f('lease', 'b')] }), record({ files: [f('RUN.md', 'c'), f('lease', null)] })]);
    expect(last.get('RUN.md')?.sha256).toBe('c');
    expect(last.get('lease')?.sha256).toBeNull();
  });
});

/**
 * Audit chain files on disk: what a chain records of each file (its lines
 * verified once per store and cached), and appending a commit's lines to it.
 */
import { closeSync, fstatSync, openSync, readSync, truncateSync } from 'node:fs';
import { BoundedMap } from '../core/bounded-map.js';
import { GENESIS, recordedFiles, verifyChain, type AuditEvent, type ChainBreak, type ChainHead } from './audit.js';
import { BoardError } from './errors.js';
import { appendNow, isCode, readIfExists } from './fsutil.js';
import type { SafeFiles } from './safe-files.js';

/** The rev and sha256 of each file as the board's own writers last wrote it. */
export type RecordedFiles = ReadonlyMap<string, { rev: number; sha256: string }>;

export interface ChainState {
  size: number;
  lines: number;
  head: ChainHead | null;
  recorded: Map<string, { rev: number; sha256: string }>;
  /** The last whole line's bytes: a chain whose bytes there differ was replaced (a merge), not extended. */
  tail: Buffer;
}

const emptyChain = (): ChainState => ({ size: 0, lines: 0, head: null, recorded: new Map(), tail: Buffer.alloc(0) });

/**
 * A copy of the last whole line of `bytes` (with its line end), which end at a line break.
 * The copy has memory of its own: `Buffer.from` would take a small one from Node's shared
 * 8 KiB pool and keep the whole pool alive, 8 KiB per cached chain for a line of about one.
 */
function lastLine(bytes: Buffer): Buffer {
  const end = bytes.length - 1;
  const line = bytes.subarray(bytes.lastIndexOf(0x0a, end - 1) + 1);
  const own = Buffer.allocUnsafeSlow(line.length);
  line.copy(own);
  return own;
}

function brokenChain(rel: string, breaks: readonly ChainBreak[]): BoardError {
  return new BoardError(
    'corrupt',
    `the audit chain ${rel} is broken; run workboard audit verify`,
    breaks.map((b) => ({ path: `${rel}:${b.line}`, message: b.reason })),
  );
}

/** A file the chain records is gone. */
export function deletedOutside(rel: string, rev: number): BoardError {
  return new BoardError('invalid', `${rel} was deleted outside workboard; restore it from git`, [{ path: rel, message: `missing; the audit chain records rev ${rev}` }]);
}

/**
 * The end of an audit chain: its size, a torn last line (text after the last
 * line break, usually empty) and the last whole line, or null when there is none.
 * Reads backwards from the end in growing windows until a whole line is found.
 */
async function readChainEnd(file: string): Promise<{ size: number; torn: string; last: string | null }> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if (isCode(e, 'ENOENT')) return { size: 0, torn: '', last: null };
    throw e;
  }
  try {
    const { size } = fstatSync(fd);
    for (let window = 64 * 1024; ; window *= 4) {
      const start = Math.max(0, size - window);
      const buf = Buffer.alloc(size - start);
      readSync(fd, buf, 0, buf.length, start);
      const text = buf.toString('utf8');
      const end = text.lastIndexOf('\n');
      const torn = text.slice(end + 1);
      if (end < 0 && start === 0) return { size, torn, last: null };
      const before = end < 0 ? -1 : text.lastIndexOf('\n', end - 1);
      // A whole last line needs the line break before it in the window, or the file's start.
      if (end >= 0 && (before >= 0 || start === 0)) return { size, torn, last: text.slice(before + 1, end) };
    }
  } finally {
    closeSync(fd);
  }
}

export class ChainFiles {
  /** Chains verified so far (bounded: one forgotten is read whole again). */
  private readonly chains = new BoundedMap<string, ChainState>(2000);

  constructor(private readonly files: SafeFiles) {}

  /**
   * The chain's head and the file states it records. Lines this process has
   * verified before are not verified again: only what was appended since is
   * read. A chain that shrank is read whole. Call under the scope's lock.
   */
  async state(rel: string): Promise<ChainState> {
    await this.files.assertNoLinks(rel);
    const file = this.files.abs(rel);
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (e) {
      if (!isCode(e, 'ENOENT')) throw e;
      this.chains.delete(rel);
      return emptyChain();
    }
    try {
      const { size } = fstatSync(fd);
      let base = this.chains.get(rel);
      if (!base || size < base.size) base = emptyChain();
      // Read from the start of the last line verified: if those bytes changed, the chain was replaced.
      const from = base.size - base.tail.length;
      const buf = Buffer.alloc(size - from);
      readSync(fd, buf, 0, buf.length, from);
      if (!buf.subarray(0, base.tail.length).equals(base.tail)) {
        this.chains.delete(rel);
        return this.state(rel);
      }
      if (size === base.size) return base;
      const report = verifyChain(buf.subarray(base.tail.length).toString('utf8'), base.head, base.lines + 1);
      if (report.breaks.length > 0) {
        this.chains.delete(rel);
        throw brokenChain(rel, report.breaks);
      }
      // Extended in place: transactions only read it, and one scope's transactions never overlap.
      const next: ChainState = { size, lines: base.lines + report.events.length, head: report.head, recorded: recordedFiles(report.events, base.recorded), tail: lastLine(buf) };
      this.chains.set(rel, next);
      return next;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * What a chain records now, read without the lock: only its whole lines
   * (an append may be under way), continuing from what this process verified
   * before. The shared state is copied, never extended in place, since a
   * transaction of this process may be using it.
   */
  async recordedNow(rel: string): Promise<RecordedFiles> {
    await this.files.assertNoLinks(rel);
    const bytes = await readIfExists(this.files.abs(rel));
    if (bytes === null) return new Map();
    let base = this.chains.get(rel);
    if (!base || bytes.length < base.size || !bytes.subarray(base.size - base.tail.length, base.size).equals(base.tail)) base = emptyChain();
    const whole = bytes.lastIndexOf(0x0a) + 1;
    if (whole <= base.size) return base.recorded;
    const report = verifyChain(bytes.subarray(base.size, whole).toString('utf8'), base.head, base.lines + 1);
    if (report.breaks.length > 0) throw brokenChain(rel, report.breaks);
    const next: ChainState = {
      size: whole,
      lines: base.lines + report.events.length,
      head: report.head,
      recorded: recordedFiles(report.events, new Map(base.recorded)),
      tail: lastLine(bytes.subarray(0, whole)),
    };
    this.chains.set(rel, next);
    return next.recorded;
  }

  /** Forget what was verified of a chain that was replaced whole (a merge), so it is read afresh. */
  forget(rel: string): void {
    this.chains.delete(rel);
  }

  /** Append a journal's audit lines that are not in the chain yet, repairing our own torn append. */
  async appendMissing(chainRel: string, lines: readonly string[], firstSeq: number): Promise<void> {
    await this.files.assertNoLinks(chainRel);
    const file = this.files.abs(chainRel);
    // Only the chain's end is read: its last whole line's seq says how many lines there are
    // (seq counts from 0), so a commit costs the same on a chain of ten lines or a million.
    const end = await readChainEnd(file);
    const missing = missingLines(chainRel, end, lines, firstSeq);
    // A torn last line can only be an interrupted append of this very journal (appends happen under the lock).
    if (end.torn !== '') truncateSync(file, end.size - Buffer.byteLength(end.torn));
    // No fsync: the commit log holds these lines until a checkpoint makes the chain durable.
    if (missing.length === 0) return;
    const text = missing.join('');
    appendNow(file, text);
    if (end.torn === '') this.extended(chainRel, end, text);
  }

  /**
   * The chain as this process verified it, extended by lines it has just appended itself
   * under the scope's lock (sealed here, so not hashed again): the next transaction then
   * reads nothing of the chain but its size. Only when the verified state ends exactly where
   * the append began, with the same last line (a chain replaced meanwhile is read afresh), and
   * the lines continue its head; else the next read verifies them.
   */
  private extended(rel: string, end: { size: number; last: string | null }, text: string): void {
    const at = end.size;
    const base = this.chains.get(rel) ?? (at === 0 ? emptyChain() : undefined);
    if (!base || base.size !== at || base.tail.toString('utf8') !== (end.last === null ? '' : `${end.last}\n`)) return;
    const events = text
      .slice(0, -1)
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEvent);
    let head = base.head;
    for (const ev of events) {
      if (ev.seq !== (head ? head.seq + 1 : 0) || ev.prevHash !== (head ? head.hash : GENESIS)) return void this.chains.delete(rel);
      head = { seq: ev.seq, hash: ev.hash, ts: ev.ts };
    }
    const written = Buffer.from(text, 'utf8');
    this.chains.set(rel, { size: at + written.length, lines: base.lines + events.length, head, recorded: recordedFiles(events, base.recorded), tail: lastLine(written) });
  }
}

/**
 * The lines of a pending commit that a chain ending so (a torn last line, its
 * last whole line) still lacks. The torn text must be the start of one of them.
 */
function missingLines(chainRel: string, end: { torn: string; last: string | null }, lines: readonly string[], firstSeq: number): string[] {
  if (end.torn !== '' && !lines.some((l) => l.startsWith(end.torn))) {
    throw new BoardError('corrupt', `${chainRel} ends with a torn line that no pending commit explains`, [{ path: chainRel, message: 'torn last line' }]);
  }
  let have = 0;
  if (end.last !== null) {
    const seq = (() => {
      try {
        return (JSON.parse(end.last) as { seq?: unknown }).seq;
      } catch {
        return undefined;
      }
    })();
    if (typeof seq !== 'number')
      throw new BoardError('corrupt', `${chainRel} ends with a line that is not an audit event; run workboard audit verify`, [{ path: chainRel, message: 'last line unreadable' }]);
    have = seq + 1;
  }
  if (have < firstSeq) {
    throw new BoardError('corrupt', `${chainRel} has ${have} lines but a pending commit continues it at seq ${firstSeq}`, [{ path: chainRel, message: 'lines are missing' }]);
  }
  return lines.slice(have - firstSeq);
}

/** A chain's text as a pending commit leaves it once finished: a torn append of it replaced, its missing lines appended. */
export function chainWithPending(chainRel: string, text: string, lines: readonly string[], firstSeq: number): string {
  const wholeEnd = text.lastIndexOf('\n') + 1;
  const whole = text.slice(0, wholeEnd);
  const last = wholeEnd === 0 ? null : whole.slice(whole.lastIndexOf('\n', wholeEnd - 2) + 1, -1);
  return whole + missingLines(chainRel, { torn: text.slice(wholeEnd), last }, lines, firstSeq).join('');
}

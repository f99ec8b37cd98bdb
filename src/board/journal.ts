/**
 * The redo journal that makes a commit all-or-nothing, carrying the commit's
 * content: every file's new bytes (or its removal) with the sha256 it had
 * before and will have, and the sealed audit lines. The same record goes to
 * the commit log (commit-log.ts), whose flush is the commit point.
 *
 *   temps + journal (no fsync) → log flush (the commit point) → renames → audit append (no fsync) → journal removed
 *
 * The journal is for this boot of the machine: lock-free readers see the new
 * state through it (snapshot.ts), and the next holder of the scope's lock
 * rolls forward the commit of a writer killed mid-way (its page cache
 * survives it). After a power loss it may be gone, torn, or older than the
 * log's records (its removal lost, or a recycled file's old bytes): the log
 * is what counts then, and replay judges the journal with its records
 * (`replayScope`, recovery.ts).
 */
import { appendFileSync, promises as fs, truncateSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../core/hash.js';
import { randomHex } from '../core/ids.js';
import { eventLine, type AuditEvent } from './audit.js';
import type { ChainFiles } from './chain-file.js';
import type { CommitLog } from './commit-log.js';
import { BoardError, faultOf } from './errors.js';
import { createExclusive, isCode, lstatIfExists, readIfExists, removeIfEmpty, removeIfExists, renameNow, statIfExists, TEMP_MARK, tempPathFor } from './fsutil.js';
import { CHANGES_FILE, isStatePath, scopeFiles, type Scope } from './layout.js';
import type { SafeFiles } from './safe-files.js';
import { commitOrder, isTornCopyOf, lastWrites, linesFrom, wholeLinesEnd } from './power-loss.js';
import type { Spares } from './spares.js';

export type { CommitRecord, RecordFile } from './commit-record.js';
import { isWhole, parseJournal, recordBytes, shaOf, type CommitRecord, type RecordFile } from './commit-record.js';

/** A journal on disk as a lock-free reader sees it (see snapshot.ts): what its commit leaves once finished. */
export interface PendingCommit {
  /** `whole`: it parses and its content matches its hashes (it rolls forward); `unstarted`: torn, its commit never reached its flush (discarded); `broken`: neither. */
  state: 'whole' | 'unstarted' | 'broken';
  journal: string;
  /** When whole: where each file it writes has its new bytes now (its temp, or itself once renamed). */
  sources: Map<string, string>;
  lines: string[];
  firstSeq: number;
}

export const BROKEN_JOURNAL = 'an interrupted commit left a journal whose content does not match its hashes; restore its files from git, then remove the journal';

/** The change log's size past which it is started afresh. */
const CHANGES_ROTATE_BYTES = 4 * 1024 * 1024;

/** What settling a record did: files written, files already new, files found at neither (a later commit or a hand edit: left alone). */
export interface Settled {
  written: string[];
  already: string[];
  left: string[];
}

/** Remove a scope's temp files. Call only under its lock, when no live writer can own one. */
export async function cleanTemps(files: SafeFiles, scope: Scope): Promise<void> {
  for (const dir of scopeFiles(scope).dirs) {
    let names: string[];
    try {
      names = await fs.readdir(files.abs(dir));
    } catch (e) {
      if (isCode(e, 'ENOENT', 'ENOTDIR')) continue;
      throw e;
    }
    for (const n of names) if (n.includes(TEMP_MARK)) await removeIfExists(files.abs(path.join(dir, n)));
  }
}

/** How many whole lines an audit chain holds (its last whole line's seq + 1); a torn last line is not counted. */
export function chainLength(bytes: Buffer): number {
  const end = bytes.lastIndexOf(0x0a);
  if (end < 0) return 0;
  const last = bytes.subarray(bytes.lastIndexOf(0x0a, end - 1) + 1, end).toString('utf8');
  try {
    const seq = (JSON.parse(last) as { seq?: unknown }).seq;
    return typeof seq === 'number' ? seq + 1 : 0;
  } catch {
    return 0;
  }
}

export class Journals {
  constructor(
    private readonly files: SafeFiles,
    private readonly chains: ChainFiles,
    private readonly log: CommitLog,
    /** Journals are taken from and given back to this process's spares (spares.ts). */
    private readonly spares: Spares,
  ) {}

  /**
   * Commit files, removals and sealed audit lines all or nothing. Call under the
   * scope's lock, with each file still as the transaction read it. `pos` is the
   * chain's length once committed. `pending` when the commit point was passed but
   * finishing it failed for want of a resource: the journal completes it at the next write or recovery.
   * `before` holds the sha256 (null: absent) of files the caller has just read under the same lock
   * (the store's compare-and-swap): each is what that file has now, so it is not read again.
   */
  async commit(
    scope: Scope,
    writes: readonly { rel: string; bytes: string | Buffer }[],
    removes: readonly string[],
    sealed: readonly AuditEvent[],
    pos: number,
    before: ReadonlyMap<string, string | null> = new Map(),
  ): Promise<{ pending: boolean }> {
    const sf = scopeFiles(scope);
    // Each file is put in place by rename, which replaces a link rather than following it: folders are what matter.
    for (const w of writes) await this.files.assertNoLinks(w.rel, false, false);
    const files: RecordFile[] = [];
    for (const w of writes) {
      const bytes = typeof w.bytes === 'string' ? Buffer.from(w.bytes, 'utf8') : w.bytes;
      const text = bytes.toString('utf8');
      const content = Buffer.byteLength(text) === bytes.length && Buffer.from(text, 'utf8').equals(bytes) ? { text } : { base64: bytes.toString('base64') };
      const prev = before.has(w.rel) ? (before.get(w.rel) ?? null) : shaOf(await readIfExists(this.files.abs(w.rel)));
      files.push({ rel: w.rel, prev, sha256: sha256Hex(bytes), tmp: path.relative(this.files.root, tempPathFor(this.files.abs(w.rel))), ...content });
    }
    for (const rel of removes) files.push({ rel, prev: before.has(rel) ? (before.get(rel) ?? null) : shaOf(await readIfExists(this.files.abs(rel))), sha256: null });
    const record: CommitRecord = { v: 2, id: randomHex(8), scope: sf.name, chain: sf.chain, files, lines: sealed.map(eventLine), firstSeq: sealed[0]?.seq ?? 0, pos, at: Date.now() };
    // 1. temps and the journal, without fsync: they serve this boot (readers, a writer killed mid-way).
    try {
      for (const f of files) {
        if (f.tmp !== undefined && !(await createExclusive(this.files.abs(f.tmp), recordBytes(f)!))) throw new Error(`temp file ${f.tmp} already exists`);
      }
      const json = JSON.stringify(record);
      await this.write(sf.journal, json);
      // 2. the commit point: the log's flush (shared with the commits ready at the same moment).
      await this.log.append(record, json);
    } catch (e) {
      await this.abandon(scope, record);
      throw e;
    }
    // 3-5. renames, audit append, journal removal
    try {
      await this.apply(record, sf.journal);
    } catch (e) {
      // Past the commit point the transition has happened: its journal finishes it at the next
      // write or recovery, and readers already see it through the journal. A full disk here
      // must not make the caller retry something that is done (it would be done twice).
      if (faultOf(e).kind === 'internal') throw e;
      return { pending: true };
    } finally {
      this.log.applied(this.touched(record));
    }
    return { pending: false };
  }

  /** Where a journal's commit stands (see PendingCommit.state). */
  state(raw: Buffer): { state: PendingCommit['state']; record: CommitRecord | null } {
    const record = parseJournal(raw);
    if (record === null) return { state: 'unstarted', record: null };
    return isWhole(record) ? { state: 'whole', record } : { state: 'broken', record: null };
  }

  /** The scope's pending commit, read without the lock, or null when it has no journal. */
  async pending(scope: Scope): Promise<PendingCommit | null> {
    const sf = scopeFiles(scope);
    const raw = await readIfExists(this.files.abs(sf.journal));
    if (raw === null) return null;
    const { state, record } = this.state(raw);
    if (record === null) return { state, journal: sf.journal, sources: new Map(), lines: [], firstSeq: 0 };
    const sources = new Map<string, string>();
    for (const f of record.files) {
      if (f.sha256 === null) continue;
      const renamed = shaOf(await readIfExists(this.files.abs(f.rel))) === f.sha256;
      sources.set(f.rel, renamed || f.tmp === undefined || !statIfExists(this.files.abs(f.tmp)) ? f.rel : f.tmp);
    }
    return { state, journal: sf.journal, sources, lines: record.lines, firstSeq: record.firstSeq };
  }

  /**
   * Roll forward a journal left by a writer that died mid-commit. Call only
   * under the scope's lock. The commit goes into this process's log first: the
   * dead writer's flush may not have happened, and what this process commits
   * next on the scope stands on it. Returns the paths of the commit it
   * finished (none when there was no whole journal).
   */
  async rollForward(scope: Scope): Promise<string[]> {
    const sf = scopeFiles(scope);
    const raw = await readIfExists(this.files.abs(sf.journal));
    if (raw === null) return [];
    const { state, record } = this.state(raw);
    if (state === 'broken') {
      throw new BoardError('corrupt', `${sf.journal}: ${BROKEN_JOURNAL}`, [{ path: sf.journal, message: 'content does not match its hashes' }]);
    }
    if (record !== null) {
      await this.log.append(record);
      try {
        await this.settle(record);
        await this.finish(record, sf.journal);
      } finally {
        this.log.applied(this.touched(record));
      }
    } else {
      // Torn: it was being written when its writer died, before its flush. Drop it.
      await removeIfExists(this.files.abs(sf.journal));
    }
    await cleanTemps(this.files, scope);
    return record === null ? [] : record.files.map((f) => f.rel);
  }

  /**
   * Bring a record's files to their new bytes where they still have their old
   * ones: a file already new is skipped; one at neither (a later commit, a hand
   * edit) is left alone and reported. Call under the scope's lock. Idempotent.
   */
  async settle(record: CommitRecord, only?: (f: RecordFile) => boolean, repaired?: (f: RecordFile, now: Buffer | null) => boolean): Promise<Settled> {
    const done: Settled = { written: [], already: [], left: [] };
    for (const f of record.files) {
      if (only && !only(f)) continue;
      const abs = this.files.abs(f.rel);
      const nowBytes = await readIfExists(abs);
      const now = shaOf(nowBytes);
      // The writer's own temp, when it is still there whole, is renamed as it would have been.
      const tmp = f.tmp !== undefined ? this.files.abs(f.tmp) : null;
      const tmpWhole = tmp !== null && shaOf(await readIfExists(tmp)) === f.sha256;
      if (now === f.sha256 || now !== f.prev) {
        // A replay's torn file is brought to its last logged bytes afterwards (see replayScope): not left.
        (now === f.sha256 || repaired?.(f, nowBytes) ? done.already : done.left).push(f.rel);
        if (tmp !== null) await removeIfExists(tmp);
        continue;
      }
      await this.put(f, tmpWhole ? tmp : null);
      done.written.push(f.rel);
    }
    return done;
  }

  /** Give a record's file its new bytes (or remove it), from the writer's whole temp when there is one. */
  private async put(f: RecordFile, wholeTemp: string | null): Promise<void> {
    const abs = this.files.abs(f.rel);
    const bytes = recordBytes(f);
    if (bytes === null) return void (await removeIfExists(abs));
    await this.files.assertNoLinks(f.rel, false, false);
    let from = wholeTemp;
    if (from === null) {
      if (f.tmp !== undefined) await removeIfExists(this.files.abs(f.tmp));
      from = tempPathFor(abs);
      if (!(await createExclusive(from, bytes))) throw new Error(`temp file ${from} already exists`);
    }
    renameNow(from, abs);
  }

  /**
   * Replay one scope's commits found in the logs of an earlier boot (in commit
   * order, see power-loss.ts), with whatever its journal holds, after a power
   * loss. Call under the scope's lock, before anything is committed in this boot.
   *
   * - The journal is judged with the records, never rolled forward ahead of
   *   them: a whole one of this scope joins them in its place (one the logs
   *   already hold is that record again); any other (torn, or a recycled file
   *   whose new bytes never reached the disk) held a commit that never
   *   reached its flush. It and the scope's temps are removed at the end.
   * - The chain's tail that is a torn copy of the records' lines (an append
   *   whose data never reached the disk: cut short or zeros) is cut, so the
   *   lines are appended again whole.
   * - Each record is replayed exactly once (see `replayOne`).
   * - A file left torn (empty, cut short, zeros) by a power loss is a copy of
   *   some record's bytes: it gets the last bytes the records give it.
   */
  async replayScope(scope: Scope, logged: readonly CommitRecord[]): Promise<Settled> {
    const sf = scopeFiles(scope);
    let records = [...logged];
    const raw = await readIfExists(this.files.abs(sf.journal));
    if (raw !== null) {
      const { state, record } = this.state(raw);
      if (state === 'whole' && record!.scope === sf.name && !records.some((r) => r.id === record!.id)) records.push(record!);
    }
    records = records.sort(commitOrder);
    const versions = new Map<string, Buffer[]>();
    for (const r of records) for (const f of r.files) if (f.sha256 !== null) versions.set(f.rel, [...(versions.get(f.rel) ?? []), recordBytes(f)!]);
    const torn = (f: RecordFile, now: Buffer | null) => now !== null && (versions.get(f.rel) ?? []).some((v) => isTornCopyOf(now, v));
    await this.cutTornTail(sf.chain, records);
    const done: Settled = { written: [], already: [], left: [] };
    for (const r of records) {
      const one = await this.replayOne(r, torn);
      done.written.push(...one.written);
      done.already.push(...one.already);
      done.left.push(...one.left);
    }
    for (const [rel, last] of lastWrites(records)) {
      const now = await readIfExists(this.files.abs(rel));
      if (shaOf(now) === last.sha256 || !torn(last, now)) continue;
      await this.put(last, null);
      done.written.push(rel);
      done.already = done.already.filter((a) => a !== rel);
    }
    await removeIfExists(this.files.abs(sf.journal));
    await cleanTemps(this.files, scope);
    this.log.wroteOutside(records.flatMap((r) => this.touched(r)));
    return { written: [...new Set(done.written)], already: [...new Set(done.already)], left: [...new Set(done.left)] };
  }

  /**
   * Replay a commit exactly once: it was applied if its audit lines are all in
   * the chain and none of its committed files still has its old bytes (a
   * record with neither is judged by its files alone). Applied: nothing is
   * written (its `.work/` records may have moved on since, a lease ended, a
   * notification sent). Else each file with its old bytes gets its new ones,
   * and the missing audit lines are appended.
   */
  private async replayOne(record: CommitRecord, torn: (f: RecordFile, now: Buffer | null) => boolean): Promise<Settled> {
    const have = chainLength((await readIfExists(this.files.abs(record.chain))) ?? Buffer.alloc(0));
    const linesThere = have >= record.firstSeq + record.lines.length;
    const committed = record.files.filter((f) => !isStatePath(f.rel));
    let atPrev = false;
    for (const f of committed) if (shaOf(await readIfExists(this.files.abs(f.rel))) === f.prev) atPrev = true;
    if ((record.lines.length > 0 || committed.length > 0) && linesThere && !atPrev) return { written: [], already: record.files.map((f) => f.rel), left: [] };
    const done = await this.settle(record, undefined, torn);
    if (!linesThere) await this.chains.appendMissing(record.chain, record.lines, record.firstSeq);
    return done;
  }

  /** Cut a chain's tail that is a torn copy of the lines the records carry from there (see replayScope). */
  private async cutTornTail(chainRel: string, records: readonly CommitRecord[]): Promise<void> {
    const file = this.files.abs(chainRel);
    const bytes = await readIfExists(file);
    if (bytes === null) return;
    const keep = wholeLinesEnd(bytes);
    if (keep === bytes.length) return;
    const due = Buffer.from(linesFrom(records, chainLength(bytes.subarray(0, keep))), 'utf8');
    // A tail the records do not explain stays, for appendMissing to refuse as corrupt.
    if (!isTornCopyOf(bytes.subarray(keep), due)) return;
    truncateSync(file, keep);
    this.chains.forget(chainRel);
  }

  /** The journal is created whole in place, without fsync (see the top of this file). */
  private async write(rel: string, json: string): Promise<void> {
    const file = this.files.abs(rel);
    // Under the lock a journal is gone once rolled forward; looked for first, as a failed unlink costs an exception.
    if (lstatIfExists(file) !== null) await removeIfExists(file);
    if (!(await this.spares.create(file, `${json}\n`))) throw new Error(`journal ${rel} appeared while we held the lock`);
  }

  /** Apply a flushed commit whose files are as it found them: rename each temp into place, remove, append, finish. */
  private async apply(record: CommitRecord, journalRel: string): Promise<void> {
    for (const f of record.files) {
      if (f.tmp !== undefined) renameNow(this.files.abs(f.tmp), this.files.abs(f.rel));
      else await removeIfExists(this.files.abs(f.rel));
    }
    await this.finish(record, journalRel);
  }

  /** The audit append (idempotent by seq), the journal's removal and the change hint. */
  private async finish(record: CommitRecord, journalRel: string): Promise<void> {
    if (record.lines.length > 0) await this.chains.appendMissing(record.chain, record.lines, record.firstSeq);
    await this.spares.remove(this.files.abs(journalRel));
    this.noteChange(record.scope);
  }

  /** Every path a record writes, as absolute paths, for the checkpoint's fallback. */
  private touched(record: CommitRecord): string[] {
    return [...record.files.map((f) => this.files.abs(f.rel)), ...(record.lines.length > 0 ? [this.files.abs(record.chain)] : [])];
  }

  /** Tell other coordinators' indexes which scope changed (a hint, not durable; see CHANGES_FILE). */
  private noteChange(scopeName: string): void {
    const file = this.files.abs(CHANGES_FILE);
    try {
      appendFileSync(file, `${scopeName}\n`);
      // Now and then, start a new log; readers see the new file and rescan once.
      if (Math.random() < 1 / 512 && (statIfExists(file)?.size ?? 0) > CHANGES_ROTATE_BYTES) {
        renameNow(file, this.files.abs(`${CHANGES_FILE}.old`));
      }
    } catch {
      // indexes fall back to a full scan; nothing depends on the hint
    }
  }

  /** Undo a commit that failed before its commit point: no journal, no temps, no folder it made. */
  private async abandon(scope: Scope, record: CommitRecord): Promise<void> {
    const sf = scopeFiles(scope);
    await this.spares.remove(this.files.abs(sf.journal)).catch(() => undefined);
    await Promise.all(record.files.flatMap((f) => (f.tmp !== undefined ? [removeIfExists(this.files.abs(f.tmp)).catch(() => undefined)] : [])));
    if (scope.kind === 'run') for (const d of sf.dirs) await removeIfEmpty(this.files.abs(d)).catch(() => undefined);
  }
}

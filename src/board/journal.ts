/**
 * The redo journal that makes a commit all-or-nothing: the commit itself
 * (temp files and journal, the commit point, renames, audit append), and
 * finishing or discarding the journal a writer that died mid-commit left.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../core/hash.js';
import { eventLine, type AuditEvent } from './audit.js';
import type { ChainFiles } from './chain-file.js';
import { BoardError, faultOf } from './errors.js';
import { createExclusive, fsyncDir, isCode, readIfExists, removeIfEmpty, removeIfExists, renameNow, statIfExists, tempPathFor } from './fsutil.js';
import { CHANGES_FILE, scopeFiles, type Scope } from './layout.js';
import { cleanTemps } from './recovery.js';
import type { SafeFiles } from './safe-files.js';

interface Journal {
  id: string;
  scope: string;
  /** Each temp file, where it goes, and the sha256 of its bytes (how recovery knows it reached the disk whole). */
  renames: { tmp: string; to: string; sha256: string }[];
  removes: string[];
  chain: string;
  lines: string[];
  firstSeq: number;
}

/** A journal on disk as a lock-free reader sees it (see snapshot.ts): what its commit leaves once finished. */
export interface PendingCommit {
  /** See `Journals.state`; a journal that does not parse is `unstarted`. */
  state: 'whole' | 'unstarted' | 'broken';
  journal: string;
  /** When whole: where each file it writes has its new bytes now (its temp, or itself once renamed). */
  sources: Map<string, string>;
  lines: string[];
  firstSeq: number;
}

export const BROKEN_JOURNAL = 'an interrupted commit renamed some files but lost others; restore them from git, then remove the journal';

/** The change log's size past which it is started afresh. */
const CHANGES_ROTATE_BYTES = 4 * 1024 * 1024;

export function parseJournal(raw: Buffer): Journal | null {
  try {
    const j = JSON.parse(raw.toString('utf8')) as Journal;
    return Array.isArray(j.renames) ? j : null;
  } catch {
    return null;
  }
}

export class Journals {
  constructor(
    private readonly files: SafeFiles,
    private readonly chains: ChainFiles,
  ) {}

  /**
   * Commit files, removals and sealed audit lines all or nothing. Call under the
   * scope's lock. `pending` when the commit point was passed but finishing it
   * failed for want of a resource: the journal completes it at the next write or recovery.
   */
  async commit(scope: Scope, writes: readonly { rel: string; bytes: string | Buffer }[], removes: string[], sealed: readonly AuditEvent[]): Promise<{ pending: boolean }> {
    const sf = scopeFiles(scope);
    // 1. temp files and the journal, written and fsynced side by side (with the journal's folder). The journal names
    // each temp's hash, so a journal whose temps did not all reach the disk whole is known,
    // at recovery, as a commit that never started renaming (see `state`).
    // Each file is put in place by rename, which replaces a link rather than following it: folders are what matter.
    for (const w of writes) await this.files.assertNoLinks(w.rel, false, false);
    const renames = writes.map((w) => ({ tmp: path.relative(this.files.root, tempPathFor(this.files.abs(w.rel))), to: w.rel, sha256: sha256Hex(w.bytes) }));
    const journal: Journal = {
      id: randomBytes(8).toString('hex'),
      scope: sf.name,
      renames,
      removes,
      chain: sf.chain,
      lines: sealed.map(eventLine),
      firstSeq: sealed[0]?.seq ?? 0,
    };
    const started = await Promise.allSettled([
      ...renames.map(async (r, i) => {
        if (!(await createExclusive(this.files.abs(r.tmp), writes[i]!.bytes, { sync: true }))) throw new Error(`temp file ${r.tmp} already exists`);
      }),
      this.write(sf.journal, journal),
    ]);
    const failed = started.find((t): t is PromiseRejectedResult => t.status === 'rejected');
    if (failed) {
      await this.abandon(scope, journal);
      throw failed.reason;
    }
    // 2. every temp, the journal and the journal's folder entry are durable: from here on
    // the commit completes, now or at roll-forward.
    // 3-5. renames, folder fsyncs with the audit append, journal removal
    try {
      await this.apply(journal, sf.journal);
    } catch (e) {
      // Past the commit point the transition has happened: its journal finishes it at the next
      // write or recovery, and readers already see it through the journal. A full disk here
      // must not make the caller retry something that is done (it would be done twice).
      if (faultOf(e).kind === 'internal') throw e;
      return { pending: true };
    }
    return { pending: false };
  }

  /**
   * Where a journal's commit stands: `whole` when every temp is on disk with its
   * hash or already renamed into place (roll forward); `unstarted` when some temp
   * never reached the disk whole and nothing was renamed yet (discard: renaming
   * starts only after every temp is written); `broken` when neither holds.
   */
  async state(j: Journal): Promise<'whole' | 'unstarted' | 'broken'> {
    let missing = false;
    let renamed = false;
    for (const r of j.renames) {
      const tmp = await readIfExists(this.files.abs(r.tmp));
      if (tmp !== null && sha256Hex(tmp) === r.sha256) continue;
      const target = tmp === null ? await readIfExists(this.files.abs(r.to)) : null;
      if (target !== null && sha256Hex(target) === r.sha256) renamed = true;
      else missing = true;
    }
    return !missing ? 'whole' : renamed ? 'broken' : 'unstarted';
  }

  /** The scope's pending commit, read without the lock, or null when it has no journal. */
  async pending(scope: Scope): Promise<PendingCommit | null> {
    const sf = scopeFiles(scope);
    const raw = await readIfExists(this.files.abs(sf.journal));
    if (raw === null) return null;
    const j = parseJournal(raw);
    const state = j ? await this.state(j) : 'unstarted';
    if (state !== 'whole') return { state, journal: sf.journal, sources: new Map(), lines: [], firstSeq: 0 };
    const sources = new Map(j!.renames.map((r) => [r.to, statIfExists(this.files.abs(r.tmp)) ? r.tmp : r.to]));
    return { state, journal: sf.journal, sources, lines: j!.lines, firstSeq: j!.firstSeq };
  }

  /** Roll forward a journal left by a writer that died mid-commit. Call only under the scope's lock. */
  async rollForward(scope: Scope): Promise<void> {
    const sf = scopeFiles(scope);
    const raw = await readIfExists(this.files.abs(sf.journal));
    if (raw === null) return;
    const j = parseJournal(raw);
    const state = j ? await this.state(j) : 'unstarted';
    if (state === 'broken') {
      throw new BoardError('corrupt', `${sf.journal}: ${BROKEN_JOURNAL}`, [
        { path: sf.journal, message: 'temp files missing after renaming began' },
      ]);
    }
    if (state === 'whole') {
      await this.apply(j!, sf.journal);
      return;
    }
    // Torn, or its temps never all reached the disk: the commit never started renaming. Drop it.
    await removeIfExists(this.files.abs(sf.journal));
    await cleanTemps(this.files, scope);
  }

  /**
   * The journal is written in place and fsynced, with its directory, before any
   * rename. A journal that does not parse was torn by a crash while being
   * written, so no rename of its commit had happened: it is discarded.
   * The two fsyncs run at once, in the same round as the temps': their order
   * does not matter, since recovery trusts a journal only when it parses and
   * every temp it names is whole, and nothing is renamed until all are done.
   */
  private async write(rel: string, journal: Journal): Promise<void> {
    const file = this.files.abs(rel);
    await removeIfExists(file);
    // createExclusive creates and writes the file before it first awaits, so the folder's fsync below sees the new entry.
    const created = createExclusive(file, `${JSON.stringify(journal)}\n`, { sync: true });
    const [made] = await Promise.all([created, fsyncDir(path.dirname(file))]);
    if (!made) throw new Error(`journal ${rel} appeared while we held the lock`);
  }

  /** Idempotent: apply a journal's renames, removals and audit lines, then delete it. */
  private async apply(j: Journal, journalRel: string): Promise<void> {
    const dirs = new Set<string>();
    for (const r of j.renames) {
      try {
        renameNow(this.files.abs(r.tmp), this.files.abs(r.to));
      } catch (e) {
        if (!isCode(e, 'ENOENT')) throw e; // already renamed by an earlier attempt
      }
      dirs.add(path.dirname(this.files.abs(r.to)));
    }
    for (const rel of j.removes) {
      await removeIfExists(this.files.abs(rel));
      dirs.add(path.dirname(this.files.abs(rel)));
    }
    // The audit append need not wait for the folder fsyncs: until the journal is gone,
    // a crash rolls the renames forward again and the append skips lines already there.
    await Promise.all([...[...dirs].map((d) => fsyncDir(d)), j.lines.length > 0 ? this.chains.appendMissing(j.chain, j.lines, j.firstSeq) : null]);
    await removeIfExists(this.files.abs(journalRel));
    await this.noteChange(j.scope);
  }

  /** Tell other coordinators' indexes which scope changed (a hint, not durable; see CHANGES_FILE). */
  private async noteChange(scopeName: string): Promise<void> {
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
  private async abandon(scope: Scope, journal: Journal): Promise<void> {
    const sf = scopeFiles(scope);
    await removeIfExists(this.files.abs(sf.journal)).catch(() => undefined);
    await Promise.all(journal.renames.map((r) => removeIfExists(this.files.abs(r.tmp)).catch(() => undefined)));
    if (scope.kind === 'run') for (const d of sf.dirs) await removeIfEmpty(this.files.abs(d)).catch(() => undefined);
  }
}

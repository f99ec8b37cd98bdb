/**
 * The board store: plain files as the only truth, safe under many writer
 * processes and crashes (docs/architecture.md "The write path"). It holds
 * the locks and composes the parts each transaction goes through.
 *
 * A transaction holds one scope's lock file, rolls forward any journal a dead
 * writer left (journal.ts), reads files (tx.ts: checking each against the audit
 * chain's record of what the board's writers last wrote, chain-file.ts: anything
 * else is an external edit), stages writes, and commits them all-or-nothing
 * (planned in commit-plan.ts, made durable by one flush of the process's
 * commit log, commit-log.ts, shared with the commits ready at the same moment):
 *
 *   temps + journal (no fsync) → log flush (the commit point) → renames → audit append → journal removed
 *
 * A crash before the flush leaves the old state (or, if the journal is whole,
 * the new one: the next writer rolls it forward); a crash after leaves a
 * journal that the next writer, or start-up, rolls forward to the whole new
 * state; a power loss leaves the log, replayed before the next commit
 * (recovery.ts). Checkpoints make the data files durable and cut the log.
 *
 * Readers never lock: `read` sees whole files (rename is atomic), and
 * `snapshot` sees one consistent state of a scope across several files.
 * Every commit, whichever way it is made or finished, is published to the
 * caches that subscribe (`onCommit`, commit-feed.ts).
 */
import { sha256Hex } from '../core/hash.js';
import type { AuditEvent, ChainHead } from './audit.js';
import { ChainFiles } from './chain-file.js';
import { CommitFeed, type CommitListener } from './commit-feed.js';
import type { Commit, CommitReads } from './commit.js';
import { planCommit, sealEvents } from './commit-plan.js';
import { decodeDoc, rememberDecoded, type BoardDoc } from './document.js';
import { BoardError } from './errors.js';
import { readIfExists } from './fsutil.js';
import { CommitLog } from './commit-log.js';
import { cleanTemps, Journals, type PendingCommit } from './journal.js';
import { scopeFiles, type Scope } from './layout.js';
import { acquireLock, LockTimeout, type HeldLock } from './lock.js';
import { Spares } from './spares.js';
import { recover, replayEarlierBoots, type RecoveryReport, type ReplayReport } from './recovery.js';
import { SafeFiles } from './safe-files.js';
import { SigningKey } from './signing-key.js';
import type { KeyRecord } from './signing.js';
import { snapshot } from './snapshot.js';
import type { Distrusted } from './state.js';
import { Tx } from './tx.js';
import { buildStamp, KeptDecodes } from './kept-decodes.js';

export interface StoreOptions {
  lockStaleMs: number;
  lockTimeoutMs: number;
  now?: () => Date;
}

/** One scope's files as a merge leaves them: each with the sha256 it must still have, and its new bytes (null: removed). */
export interface ScopeReplacement {
  scope: Scope;
  files: { rel: string; from: string | null; to: Buffer | null }[];
  /** Uncommitted state of the scope that the new state ends (the leases of superseded claims). */
  removeState?: string[];
  /** Uncommitted state the new state brings (the notifications that tell of superseded work). */
  writeState?: { rel: string; bytes: string }[];
}

export interface CommitReport {
  /** Committed files written (relative paths), with their new revs. */
  written: Record<string, number>;
  events: AuditEvent[];
  /** Committed, but finishing it (renames, audit append) failed for want of a resource; its journal completes it later. */
  pending?: boolean;
}

export class BoardStore {
  readonly root: string;
  private readonly now: () => Date;
  private readonly files: SafeFiles;
  private readonly chains: ChainFiles;
  private readonly journals: Journals;
  private readonly log: CommitLog;
  private readonly spares: Spares;
  private readonly key: SigningKey;
  private readonly feed = new CommitFeed();

  private distrusted: Distrusted = () => false;
  private kept: KeptDecodes | null = null;

  constructor(
    root: string,
    readonly options: StoreOptions,
  ) {
    this.files = new SafeFiles(root);
    this.root = this.files.root;
    this.now = options.now ?? (() => new Date());
    this.chains = new ChainFiles(this.files);
    this.log = CommitLog.of(this.root);
    this.spares = Spares.of(this.root);
    this.journals = new Journals(this.files, this.chains, this.log, this.spares);
    this.key = new SigningKey(this.files, this.now);
  }

  /**
   * Be told of every commit this store makes or finishes, once it is made
   * (docs/architecture.md "How caches follow commits"); call what it returns to stop.
   */
  onCommit(listener: CommitListener): () => void {
    return this.feed.subscribe(listener);
  }

  /**
   * How every writer enters a scope: take its lock, drop what is cached of its
   * folders (another process may have written them), and roll forward a
   * journal a dead writer left, telling the subscribers what that finished. A
   * replay of an earlier boot's logs (`journal: 'replay'`) takes the journal
   * up with the logged records instead. On failure the lock is let go.
   */
  private async enter(scope: Scope, journal: 'roll-forward' | 'replay' = 'roll-forward'): Promise<HeldLock> {
    const sf = scopeFiles(scope);
    const held = await this.lock(sf.lock, sf.name);
    try {
      this.files.forgetDirs(scope);
      if (journal === 'roll-forward') this.feed.publish({ scope, source: 'roll-forward', files: await this.journals.rollForward(scope), events: [] });
      // Temp files are orphaned only by a writer that died holding this lock, and then its lock was broken.
      if (held.broken.length > 0) await cleanTemps(this.files, scope);
      return held;
    } catch (e) {
      await held.release();
      throw e;
    }
  }

  // Private: outside the store a board path is never a file-system path (board.state, board.listing and the store's reads are the ways in).
  private abs(rel: string): string {
    return this.files.abs(rel);
  }

  /**
   * A file's bytes, or null when absent. Refuses a path that leaves the board
   * or passes through a symbolic link (git can commit links; none is followed).
   */
  readBytes(rel: string, opts: { fresh?: boolean } = {}): Promise<Buffer | null> {
    return this.files.readBytes(rel, opts);
  }

  /** Read one committed markdown file without locking. Never sees a torn file. */
  async read(rel: string): Promise<BoardDoc | null> {
    const bytes = await this.readBytes(rel);
    if (bytes === null) return null;
    const d = this.kept ? await this.kept.decode(rel, bytes) : decodeDoc(rel, bytes);
    if (!d.ok)
      throw new BoardError(
        'invalid',
        `${rel} is not a valid board file`,
        d.issues.map((i) => ({ ...i, path: i.path ? `${rel}: ${i.path}` : rel })),
      );
    return d.doc;
  }

  /**
   * Read several files of one scope as one consistent state, without locking
   * (see snapshot.ts).
   */
  snapshot<T>(scope: Scope, fn: (read: (rel: string) => Promise<BoardDoc | null>) => Promise<T>): Promise<T> {
    return snapshot({ files: this.files, chains: this.chains, journals: this.journals, read: (rel) => this.read(rel) }, scope, fn);
  }

  /**
   * Run `fn` under the scope's lock and commit what it staged, all or nothing.
   * If `fn` throws, nothing is written and nothing is audited.
   */
  async transact<T>(scope: Scope, fn: (tx: Tx) => Promise<T> | T): Promise<{ value: T; commit: CommitReport }> {
    await this.replayLogs();
    const sf = scopeFiles(scope);
    const held = await this.enter(scope);
    try {
      const chain = await this.chains.state(sf.chain);
      const tx = new Tx(this.files, scope, chain.recorded, this.now(), held.broken, this.distrusted);
      const value = await fn(tx);
      const commit = await this.commit(scope, tx, chain.head);
      if (scope.kind === 'run' && commit.events.length > 0) this.log.observer?.committed(commit.events.map((e) => e.action));
      return { value, commit };
    } finally {
      await held.release();
    }
  }

  /**
   * One transition as one value: under the scope's lock, `build` reads what it
   * needs and returns its answer with the commit that carries every write it
   * causes (null: nothing to write); the store checks each file's rev, plans,
   * journals, renames and appends it, all or nothing. If `build` throws,
   * nothing is written and nothing is audited.
   */
  async apply<T>(scope: Scope, build: (reads: CommitReads) => Promise<{ value: T; commit: Commit | null }>): Promise<{ value: T; commit: CommitReport }> {
    return this.transact(scope, async (tx) => {
      const built = await build({ now: tx.now, read: (rel) => tx.read(rel), readState: (rel) => tx.readState(rel), recordedAs: (rel) => tx.recordedAs(rel) });
      if (built.commit) await tx.take(built.commit);
      return built.value;
    });
  }

  /**
   * Hold a lock that guards no files of its own (a start_run's requestId), so
   * concurrent repeats of one call run one after another. `intent` is what this
   * holder is about to create; `fn` is given the intent of a holder that died
   * holding the lock, when there was one, so its half-done work is finished
   * rather than done a second time. `waitMs` bounds the wait for a live
   * holder (0: try once) before it fails `busy`; a dead holder's lock is broken either way.
   */
  async exclusive<T>(lockRel: string, intent: string, fn: (intent: string) => Promise<T>, opts: { waitMs?: number } = {}): Promise<T> {
    const held = await this.lock(lockRel, lockRel, intent, opts.waitMs);
    try {
      return await fn(held.info.intent ?? intent);
    } finally {
      await held.release();
    }
  }

  /**
   * Put the committed files of several scopes in a given state at once, audit
   * chains included: what a merge of two histories does (git/sync.ts). Every
   * lock is held before anything is checked; every file must still have the
   * bytes `from` names (null: absent), else nothing is written and the answer
   * is `busy`. Each scope then commits through its journal, so a scope is never
   * half replaced; the caller's own intent record covers a crash between scopes.
   */
  async replace(changes: readonly ScopeReplacement[]): Promise<void> {
    await this.replayLogs();
    const ordered = [...changes].sort((a, b) => (scopeFiles(a.scope).lock < scopeFiles(b.scope).lock ? -1 : 1));
    const held: HeldLock[] = [];
    try {
      for (const c of ordered) held.push(await this.enter(c.scope));
      for (const c of ordered) {
        for (const f of c.files) {
          const bytes = await this.readBytes(f.rel, { fresh: true });
          if ((bytes === null ? null : sha256Hex(bytes)) !== f.from) {
            throw new BoardError('busy', `${f.rel} changed while the merge was being made; nothing was written: sync again`, [{ path: f.rel, message: 'changed since it was read' }]);
          }
        }
      }
      for (const c of ordered) {
        const writes = [...c.files.flatMap((f) => (f.to === null ? [] : [{ rel: f.rel, bytes: f.to }])), ...(c.writeState ?? [])];
        const removes = [...c.files.filter((f) => f.to === null).map((f) => f.rel), ...(c.removeState ?? [])];
        if (writes.length === 0 && removes.length === 0) continue;
        // Unaudited: it stands at the chain's length before it (only an order for replay).
        const pos = await this.chains.state(scopeFiles(c.scope).chain).then(
          (st) => st.lines,
          () => 0,
        );
        await this.journals.commit(c.scope, writes, removes, [], pos);
        this.chains.forget(scopeFiles(c.scope).chain);
        this.feed.publish({ scope: c.scope, source: 'merge', files: [...writes.map((w) => w.rel), ...removes], events: [] });
      }
    } finally {
      for (const h of held.reverse()) await h.release();
    }
  }

  /** A scope's commit that a writer left pending (its journal), read without the lock, or null. */
  pendingCommit(scope: Scope): Promise<PendingCommit | null> {
    return this.journals.pending(scope);
  }

  /**
   * State records a transaction reads as absent (see WorkState.distrust). Once
   * it is known which records to distrust, the decodes of WORK.md and the
   * published processes are kept across processes by a built coordinator
   * (kept-decodes.ts); `readOnly`: read, never written.
   */
  distrust(distrusted: Distrusted, readOnly = false): void {
    this.distrusted = distrusted;
    const build = buildStamp();
    this.kept = build === null ? null : new KeptDecodes(this.files, distrusted, build, !readOnly);
  }

  /** What `compute` makes of these bytes of `rel`: kept across processes by a built CLI (kept-decodes.ts `answer`), else computed now. */
  keptAnswer<T extends object>(rel: string, bytes: Buffer, variant: string, whole: (v: unknown) => v is T, compute: () => T | null): Promise<T | null> {
    return this.kept ? this.kept.answer(rel, sha256Hex(bytes), variant, whole, compute) : Promise.resolve(compute());
  }

  /** Bring the board to a whole state after crashes (see recovery.ts). */
  recover(): Promise<RecoveryReport> {
    return recover({
      files: this.files,
      replayLogs: () => this.replayLogs(),
      ownLog: () => this.log.file,
      checkpoint: () => this.log.checkpoint(),
      lockStaleMs: this.options.lockStaleMs,
      now: this.now,
      settleScope: async (scope) => {
        await this.transact(scope, () => undefined);
      },
      settleLock: (rel) => this.exclusive(rel, '', async () => undefined),
    });
  }

  /** Make every commit so far durable in the data files themselves and cut this process's commit log (see commit-log.ts). */
  checkpoint(): Promise<void> {
    return this.log.checkpoint();
  }

  /** Commit a key's public record once, beside the others; an existing record is never rewritten. */
  publishKey(rec: KeyRecord): Promise<void> {
    return this.key.publish(rec);
  }

  /** Replace this board's signing key (see SigningKey.rotate). */
  rotateKey(): Promise<{ from: string; to: string }> {
    return this.key.rotate();
  }

  /** The fingerprint of the key this coordinator signs with (made if there is none yet). */
  signingFingerprint(): Promise<string> {
    return this.key.fingerprint();
  }

  private async lock(rel: string, what: string, intent?: string, timeoutMs = this.options.lockTimeoutMs) {
    try {
      return await acquireLock(this.abs(rel), { staleMs: this.options.lockStaleMs, timeoutMs, now: () => this.now().getTime(), spares: this.spares, ...(intent !== undefined ? { intent } : {}) });
    } catch (e) {
      if (e instanceof LockTimeout) throw new BoardError('busy', `${what} is busy: ${e.message}; retry`, []);
      throw e;
    }
  }

  /** Gather what the planner needs from the disk, plan, check the compare-and-swap, seal, and commit. */
  private async commit(scope: Scope, tx: Tx, chainHead: ChainHead | null): Promise<CommitReport> {
    const sf = scopeFiles(scope);
    await tx.readUnreadWrites();
    const { staged, readAs, adopted, drafts, brokenLocks } = tx.staging();
    // A transaction that staged, audited and broke nothing commits nothing: no more reads.
    if (staged.size === 0 && drafts.length === 0 && brokenLocks.length === 0) return { written: {}, events: [] };
    const stateNow = new Map<string, Buffer | null>();
    for (const [rel, st] of staged) if (st.kind === 'raw' || st.kind === 'remove') stateNow.set(rel, await readIfExists(this.abs(rel)));
    const headNow = sf.head !== null && !readAs.get(sf.head) ? await this.readIfValid(sf.head) : null;
    const planned = planCommit({ scope: sf, staged, readAs, adopted, drafts, brokenLocks, stateNow, headNow, chainHead });
    if (!planned.ok) throw planned.refusal;
    const { plan } = planned;
    if (plan === null) return { written: {}, events: [] };
    // Compare-and-swap: every committed file is still what this transaction read (or still
    // absent), checked under the lock just before anything is written. An edit that landed
    // meanwhile is never overwritten: nothing is written, and the call again adopts it.
    const before = new Map<string, string | null>();
    for (const rel of [...plan.writes.map((w) => w.rel), ...plan.removes]) {
      const bytes = stateNow.get(rel);
      if (bytes !== undefined) before.set(rel, bytes === null ? null : sha256Hex(bytes));
    }
    for (const { rel, sha256 } of plan.expected) {
      const bytes = await this.readBytes(rel);
      before.set(rel, sha256);
      if ((bytes === null ? null : sha256Hex(bytes)) !== sha256) {
        throw new BoardError('busy', `${rel} changed on disk while this write was being made; nothing was written: call again`, [{ path: rel, message: 'changed since it was read' }]);
      }
    }
    const events = sealEvents(plan.events, chainHead, tx.now.toISOString(), await this.key.signer());
    const last = events.at(-1);
    const pos = last ? last.seq + 1 : chainHead ? chainHead.seq + 1 : 0;
    const { pending } = await this.journals.commit(scope, plan.writes, plan.removes, events, pos, before);
    for (const d of plan.docs) rememberDecoded(d);
    this.feed.publish({ scope, source: 'transaction', files: [...plan.writes.map((w) => w.rel), ...plan.removes], events });
    return { written: plan.written, events, ...(pending ? { pending: true } : {}) };
  }

  /** Replay the commit logs of an earlier boot, once per process, before its first commit (see recovery.ts). */
  private async replayLogs(): Promise<ReplayReport> {
    let report: ReplayReport = { logs: [], commits: 0, written: [], left: [] };
    await this.log.beforeFirstCommit(async () => {
      report = await replayEarlierBoots({
        files: this.files,
        ownLog: this.log.file,
        exclusive: (rel, fn) => this.exclusive(rel, '', fn),
        underLock: async (scope, fn) => {
          const held = await this.enter(scope, 'replay');
          try {
            return await fn();
          } finally {
            await held.release();
            this.chains.forget(scopeFiles(scope).chain);
          }
        },
        replay: async (scope, records) => {
          const done = await this.journals.replayScope(scope, records);
          this.feed.publish({ scope, source: 'replay', files: done.written, events: [] });
          return done;
        },
        checkpoint: () => this.log.checkpoint(),
      });
    });
    return report;
  }

  /** A committed file as on disk now, or null when it is absent or does not decode. */
  private async readIfValid(rel: string): Promise<BoardDoc | null> {
    const bytes = await this.readBytes(rel);
    if (bytes === null) return null;
    const d = decodeDoc(rel, bytes);
    return d.ok ? d.doc : null;
  }
}

/**
 * The board store: plain files as the only truth, safe under many writer
 * processes and crashes (AIP-20 §4, DESIGN.md "The write path").
 *
 * A transaction holds one scope's lock file, rolls forward any journal a dead
 * writer left, reads files (checking each against the audit chain's record of
 * what the board's writers last wrote: anything else is an external edit),
 * stages writes, and commits them all-or-nothing:
 *
 *   temp files + fsync → journal + fsync → renames → dir fsync → audit append + fsync → journal removed
 *
 * A crash before the journal exists leaves the old state (orphan temps are
 * cleaned by the next writer); a crash after leaves a journal that the next
 * writer, or start-up, rolls forward to the whole new state.
 *
 * Readers never lock: `read` sees whole files (rename is atomic), and
 * `snapshot` sees one consistent state of a scope across several files.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { BoundedMap } from '../core/bounded-map.js';
import type { Issue } from '../core/issues.js';
import { sha256Hex } from '../process/hash.js';
import { parseMarkdown } from '../process/parse.js';
import { eventLine, recordedFiles, sealEvent, verifyChain, type AuditDraft, type AuditEvent, type ChainHead } from './audit.js';
import { renderMarkdown } from './codec.js';
import { BoardError, faultOf } from './errors.js';
import { appendDurable, createExclusive, fsyncDir, HOST, isCode, isDeadTemp, readIfExists, removeIfEmpty, removeIfExists, sleep, statIfExists, TEMP_MARK, tempPathFor, writeFileAtomic } from './fsutil.js';
import { KEY_DIR, newPrivateKeyPem, signerFrom, type KeyRecord, type Signer } from './signing.js';
import { CHANGES_FILE, fileKind, isRunId, isStatePath, normalizeRel, paths, scopeFiles, scopeOwns, SIGNING_KEY_FILE, STATE_DIR, type Scope } from './layout.js';
import { acquireLock, lockIsStale, LockTimeout, pidAlive, type LockInfo } from './lock.js';
import { keyOrder, schemaIssues } from './schemas.js';

export interface BoardDoc {
  rel: string;
  data: Record<string, unknown>;
  body: string;
  rev: number;
  sha256: string;
}

export interface StoreOptions {
  lockStaleMs: number;
  lockTimeoutMs: number;
  now?: () => Date;
}

/** A parsed and schema-checked committed markdown file, or every problem with it. */
export function decodeDoc(rel: string, bytes: Buffer): { ok: true; doc: BoardDoc } | { ok: false; issues: Issue[] } {
  const text = bytes.toString('utf8');
  const parsed = parseMarkdown(text);
  if (!parsed.ok) return parsed;
  const data = parsed.value.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { ok: false, issues: [{ path: '', message: 'frontmatter must be a map' }] };
  const kind = fileKind(rel);
  if (kind) {
    const issues = schemaIssues(kind, data).map((i) => ({ ...i, ...(parsed.value.locate(i.path.split(/\.|\[|\]/).filter(Boolean)) ?? {}) }));
    if (issues.length > 0) return { ok: false, issues };
  }
  const rev = (data as Record<string, unknown>).rev;
  if (typeof rev !== 'number' || !Number.isInteger(rev) || rev < 1) return { ok: false, issues: [{ path: 'rev', message: 'required: a whole number from 1' }] };
  return { ok: true, doc: { rel, data: data as Record<string, unknown>, body: parsed.value.body, rev, sha256: sha256Hex(bytes) } };
}

export function encodeDoc(rel: string, data: Record<string, unknown>, body: string): string {
  const kind = fileKind(rel);
  return renderMarkdown(data, body, kind ? keyOrder(kind) : ['rev']);
}

/** Replace the single top-level `rev:` line of a file's frontmatter, or undefined when there is not exactly one. */
export function withRev(text: string, rev: number): string | undefined {
  const lines = text.split('\n');
  const close = lines.findIndex((l, i) => i > 0 && l.replace(/\r$/, '') === '---');
  if (close < 0) return undefined;
  const hits = lines.slice(1, close).map((l, i) => (/^rev:\s*\d+\s*(#.*)?\r?$/.test(l) ? i + 1 : -1)).filter((i) => i > 0);
  if (hits.length !== 1) return undefined;
  const at = hits[0]!;
  lines[at] = lines[at]!.replace(/^rev:\s*\d+/, `rev: ${rev}`);
  return lines.join('\n');
}

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

type Staged =
  | { kind: 'doc'; data: Record<string, unknown>; body: string }
  | { kind: 'raw'; bytes: string }
  | { kind: 'create'; bytes: string | Buffer }
  | { kind: 'adopt'; text: string; data: Record<string, unknown>; body: string }
  | { kind: 'remove' };

/**
 * The end of an audit chain: its size, a torn last line (text after the last
 * line break, usually empty) and the last whole line, or null when there is none.
 * Reads backwards from the end in growing windows until a whole line is found.
 */
async function readChainEnd(file: string): Promise<{ size: number; torn: string; last: string | null }> {
  let fh;
  try {
    fh = await fs.open(file, 'r');
  } catch (e) {
    if (isCode(e, 'ENOENT')) return { size: 0, torn: '', last: null };
    throw e;
  }
  try {
    const { size } = await fh.stat();
    for (let window = 64 * 1024; ; window *= 4) {
      const start = Math.max(0, size - window);
      const buf = Buffer.alloc(size - start);
      await fh.read(buf, 0, buf.length, start);
      const text = buf.toString('utf8');
      const end = text.lastIndexOf('\n');
      const torn = text.slice(end + 1);
      if (end < 0 && start === 0) return { size, torn, last: null };
      const before = end < 0 ? -1 : text.lastIndexOf('\n', end - 1);
      // A whole last line needs the line break before it in the window, or the file's start.
      if (end >= 0 && (before >= 0 || start === 0)) return { size, torn, last: text.slice(before + 1, end) };
    }
  } finally {
    await fh.close();
  }
}

/** The change log's size past which it is started afresh. */
const CHANGES_ROTATE_BYTES = 4 * 1024 * 1024;

function parseJournal(raw: Buffer): Journal | null {
  try {
    const j = JSON.parse(raw.toString('utf8')) as Journal;
    return Array.isArray(j.renames) ? j : null;
  } catch {
    return null;
  }
}

/** One transaction on one scope, under its lock. */
export class Tx {
  private readonly staged = new Map<string, Staged>();
  private readonly drafts: AuditDraft[] = [];
  private readonly seen = new Map<string, BoardDoc | null>();
  private readonly adopted: { rel: string; fileRev: number; knownRev: number; sha256: string }[] = [];

  constructor(
    private readonly store: BoardStore,
    readonly scope: Scope,
    private readonly recorded: ReadonlyMap<string, { rev: number; sha256: string }>,
    readonly now: Date,
    readonly brokenLocks: LockInfo[],
  ) {}

  /**
   * Read a committed markdown file of this scope. A file whose bytes differ
   * from what the audit chain records is an external edit: adopted when it
   * is valid and not older than the recorded rev, refused otherwise.
   */
  async read(path: string): Promise<BoardDoc | null> {
    const rel = this.checkPath(path);
    const cached = this.seen.get(rel);
    if (cached !== undefined) return cached;
    const bytes = await this.store.readBytes(rel);
    const known = this.recorded.get(rel);
    if (bytes === null) {
      if (known) throw deletedOutside(rel, known.rev);
      this.seen.set(rel, null);
      return null;
    }
    const decoded = decodeDoc(rel, bytes);
    if (!decoded.ok) {
      throw new BoardError('invalid', `${rel} is not a valid board file; fix it or restore it from git`, decoded.issues.map((i) => ({ ...i, path: i.path ? `${rel}: ${i.path}` : rel })));
    }
    const doc = decoded.doc;
    if (!known || known.sha256 !== doc.sha256) {
      const knownRev = known?.rev ?? 0;
      if (doc.rev < knownRev) {
        throw new BoardError('invalid', `${rel} was edited outside workboard from an older version`, [
          { path: `${rel}: rev`, message: `${doc.rev} is below the last recorded rev ${knownRev}; redo the edit on the current file` },
        ]);
      }
      this.adopted.push({ rel, fileRev: doc.rev, knownRev, sha256: doc.sha256 });
      // Adoption rewrites the file with rev max(known, file) + 1 when this transaction commits.
      const rev = Math.max(knownRev, doc.rev);
      doc.rev = rev;
      doc.data = { ...doc.data, rev };
      if (!this.staged.has(rel)) this.staged.set(rel, { kind: 'adopt', text: bytes.toString('utf8'), data: doc.data, body: doc.body });
    }
    this.seen.set(rel, doc);
    return doc;
  }

  /** Compare-and-swap: refuse with `conflict` (carrying the current file) when its rev is not the one expected. */
  async expectRev(rel: string, rev: number): Promise<BoardDoc | null> {
    const doc = await this.read(rel);
    const current = doc?.rev ?? 0;
    if (current !== rev) throw new BoardError('conflict', `${rel} changed: rev ${current}, expected ${rev}`, [{ path: rel, message: `rev is ${current}, not ${rev}` }], doc);
    return doc;
  }

  /** Stage a committed markdown file. Its rev is set at commit: unchanged content is not written at all. */
  write(path: string, data: Record<string, unknown>, body = ''): void {
    const rel = this.checkWrite(path, false);
    this.staged.set(rel, { kind: 'doc', data, body });
  }

  /**
   * Stage a committed file written once and never rewritten (a published
   * PROCESS.md, byte for byte). Refused if the file already exists.
   */
  async create(path: string, bytes: string | Buffer): Promise<void> {
    const rel = this.checkWrite(path, false);
    if ((await this.store.readBytes(rel)) !== null) {
      throw new BoardError('conflict', `${rel} already exists and is never rewritten`, [{ path: rel, message: 'already exists' }]);
    }
    this.staged.set(rel, { kind: 'create', bytes });
  }

  /** Stage a file of coordinator state under `.work/` (leases, replay records). */
  writeState(path: string, bytes: string): void {
    const rel = this.checkWrite(path, true);
    this.staged.set(rel, { kind: 'raw', bytes });
  }

  removeState(path: string): void {
    const rel = this.checkWrite(path, true);
    this.staged.set(rel, { kind: 'remove' });
  }

  async readState(path: string): Promise<string | null> {
    const rel = this.checkPath(path);
    const st = this.staged.get(rel);
    if (st?.kind === 'raw') return st.bytes;
    if (st?.kind === 'remove') return null;
    return (await this.store.readBytes(rel))?.toString('utf8') ?? null;
  }

  audit(draft: Omit<AuditDraft, 'input'> & { changes?: Record<string, unknown>; input?: Record<string, unknown> }): void {
    this.drafts.push({ actor: draft.actor, action: draft.action, entity: draft.entity, input: { fromRev: 0, toRev: 0, ...(draft.input ?? {}), ...(draft.changes ? { changes: draft.changes } : {}) } });
  }

  private checkPath(path: string): string {
    const rel = normalizeRel(path);
    if (rel === null) throw new BoardError('invalid', `not a path inside the board: ${JSON.stringify(path)}`, [{ path: '', message: `not a path inside the board: ${JSON.stringify(path)}` }]);
    return rel;
  }

  /** A write must stay inside this transaction's scope, and state files apart from committed ones. */
  private checkWrite(path: string, state: boolean): string {
    const rel = this.checkPath(path);
    if (isStatePath(rel) !== state) throw new Error(state ? `not a state path: ${rel}` : `${rel} is coordinator state; use writeState`);
    if (!scopeOwns(this.scope, rel)) {
      throw new BoardError('invalid', `${rel} does not belong to ${scopeFiles(this.scope).name}`, [{ path: rel, message: `outside the scope of ${scopeFiles(this.scope).name}` }]);
    }
    return rel;
  }

  /** @internal */
  plan(): { staged: Map<string, Staged>; drafts: AuditDraft[]; adopted: Tx['adopted']; seen: Map<string, BoardDoc | null> } {
    return { staged: this.staged, drafts: this.drafts, adopted: this.adopted, seen: this.seen };
  }
}

export interface RecoveryReport {
  rolledForward: string[];
  brokenLocks: string[];
  removed: string[];
}

function deletedOutside(rel: string, rev: number): BoardError {
  return new BoardError('invalid', `${rel} was deleted outside workboard; restore it from git`, [{ path: rel, message: `missing; the audit chain records rev ${rev}` }]);
}

/** The scope a journal or lock file's name stands for (`board.json`, `run-r-….lock`), or null. */
function scopeOfName(name: string, ext: string): Scope | null {
  if (name === `board${ext}`) return { kind: 'board' };
  const m = new RegExp(`^run-(r-[0-9a-z]{26})\\${ext}$`).exec(name);
  return m ? { kind: 'run', id: m[1]! } : null;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).sort();
  } catch (e) {
    if (isCode(e, 'ENOENT', 'ENOTDIR')) return [];
    throw e;
  }
}

export interface CommitReport {
  /** Committed files written (relative paths), with their new revs. */
  written: Record<string, number>;
  events: AuditEvent[];
  /** Committed, but finishing it (renames, audit append) failed for want of a resource; its journal completes it later. */
  pending?: boolean;
}

interface ChainState {
  size: number;
  lines: number;
  head: ChainHead | null;
  recorded: Map<string, { rev: number; sha256: string }>;
}

export class BoardStore {
  readonly root: string;
  private readonly now: () => Date;
  /** Chains verified so far (bounded: one forgotten is read whole again). */
  private readonly chains = new BoundedMap<string, ChainState>(2000);

  constructor(root: string, readonly options: StoreOptions) {
    this.root = path.resolve(root);
    this.now = options.now ?? (() => new Date());
  }

  abs(rel: string): string {
    return path.join(this.root, rel);
  }

  /**
   * A file's bytes, or null when absent. Refuses a path that leaves the board
   * or passes through a symbolic link (git can commit links; none is followed).
   */
  async readBytes(rel: string, opts: { fresh?: boolean } = {}): Promise<Buffer | null> {
    const norm = normalizeRel(rel);
    if (norm === null) throw new BoardError('invalid', `not a path inside the board: ${JSON.stringify(rel)}`);
    await this.assertNoLinks(norm, opts.fresh);
    try {
      return await readIfExists(this.abs(norm));
    } catch (e) {
      // Something other than a file where a board file belongs is a bad edit, never a transient fault.
      if (isCode(e, 'EISDIR')) throw new BoardError('invalid', `${norm} is a folder where a file belongs; remove it or restore the file from git`, [{ path: norm, message: 'is a folder, not a file' }]);
      if (isCode(e, 'ENOTDIR')) return null;
      throw e;
    }
  }

  /** Folders already seen to be real folders (not links), so each is checked once per store. */
  private readonly realDirs = new Set<string>();

  /** A scope's folders are checked afresh by each transaction and read: one could have been swapped for a link since. */
  private forgetDirs(scope: Scope): void {
    for (const d of scopeFiles(scope).dirs) this.realDirs.delete(this.abs(d));
  }

  /** No component of the path below the root may be a symbolic link; `fresh` checks folders already seen again. */
  async assertNoLinks(rel: string, fresh = false): Promise<void> {
    let cur = this.root;
    const parts = rel.split('/');
    for (const [i, part] of parts.entries()) {
      cur = path.join(cur, part);
      const dir = i < parts.length - 1;
      if (dir && !fresh && this.realDirs.has(cur)) continue;
      let st;
      try {
        st = await fs.lstat(cur);
      } catch (e) {
        if (isCode(e, 'ENOENT', 'ENOTDIR')) return;
        throw e;
      }
      if (st.isSymbolicLink()) {
        throw new BoardError('invalid', `${rel} passes through a symbolic link; workboard never follows links inside a board`, [
          { path: path.relative(this.root, cur), message: 'is a symbolic link' },
        ]);
      }
      if (dir && st.isDirectory()) this.realDirs.add(cur);
    }
  }

  /** Read one committed markdown file without locking. Never sees a torn file. */
  async read(rel: string): Promise<BoardDoc | null> {
    const bytes = await this.readBytes(rel);
    if (bytes === null) return null;
    const d = decodeDoc(rel, bytes);
    if (!d.ok) throw new BoardError('invalid', `${rel} is not a valid board file`, d.issues.map((i) => ({ ...i, path: i.path ? `${rel}: ${i.path}` : rel })));
    return d.doc;
  }

  /**
   * Run `fn` under the scope's lock and commit what it staged, all or nothing.
   * If `fn` throws, nothing is written and nothing is audited.
   */
  async transact<T>(scope: Scope, fn: (tx: Tx) => Promise<T> | T): Promise<{ value: T; commit: CommitReport }> {
    const sf = scopeFiles(scope);
    const held = await this.lock(sf.lock, sf.name);
    try {
      this.forgetDirs(scope);
      await this.rollForward(scope);
      // Temp files are orphaned only by a writer that died holding this lock, and then its lock was broken.
      if (held.broken.length > 0) await this.cleanTemps(scope);
      const chain = await this.chainState(sf.chain);
      const tx = new Tx(this, scope, chain.recorded, this.now(), held.broken);
      const value = await fn(tx);
      const commit = await this.commit(scope, tx, chain.head);
      return { value, commit };
    } finally {
      await held.release();
    }
  }

  /** This coordinator's signing key as loaded, with the key file's identity to notice a rotation by another process. */
  private signing: { stamp: string; signer: Signer } | null = null;

  /**
   * The key that signs what this coordinator appends: `.work/audit-key.pem`,
   * made on first use (O_EXCL, so concurrent coordinators agree on one), its
   * public record committed under `audit/keys/`. Re-read when the file changes.
   */
  private async signer(): Promise<Signer> {
    const file = this.abs(SIGNING_KEY_FILE);
    for (let attempt = 0; ; attempt++) {
      const st = statIfExists(file);
      const stamp = st ? `${st.ino}:${st.mtimeMs}:${st.size}` : '';
      if (this.signing && this.signing.stamp === stamp) return this.signing.signer;
      if (!st) {
        await createExclusive(file, newPrivateKeyPem(), { mode: 0o600, sync: true });
        continue;
      }
      let loaded;
      try {
        loaded = signerFrom((await fs.readFile(file)).toString('utf8'));
      } catch (e) {
        // Another coordinator is still writing it (it was just created), or it is damaged.
        if (attempt < 50) {
          await sleep(5);
          continue;
        }
        throw new BoardError('corrupt', `${SIGNING_KEY_FILE} is not an Ed25519 private key; restore it or remove it to start a new key (workboard audit key)`, [{ path: SIGNING_KEY_FILE, message: e instanceof Error ? e.message : String(e) }]);
      }
      await this.publishKey(loaded.record(HOST, this.now().toISOString()));
      this.signing = { stamp, signer: loaded };
      return loaded;
    }
  }

  /** Commit a key's public record once, beside the others; an existing record is never rewritten. */
  async publishKey(rec: KeyRecord): Promise<void> {
    const rel = `${KEY_DIR}/${rec.fingerprint}.json`;
    if (existsSync(this.abs(rel))) return;
    await this.assertNoLinks(rel);
    const tmp = tempPathFor(this.abs(rel));
    await createExclusive(tmp, `${JSON.stringify(rec, null, 2)}\n`, { sync: true });
    try {
      await fs.link(tmp, this.abs(rel));
      await fsyncDir(path.dirname(this.abs(rel)));
    } catch (e) {
      if (!isCode(e, 'EEXIST')) throw e;
    } finally {
      await removeIfExists(tmp);
    }
  }

  /**
   * Replace this board's signing key: the new key's record carries the old
   * key's signature over it, so an auditor who pinned the old key trusts the
   * new one, and lines signed by the old key after this moment are refused.
   */
  async rotateKey(): Promise<{ from: string; to: string }> {
    const old = await this.signer();
    const pem = newPrivateKeyPem();
    const next = signerFrom(pem);
    await this.publishKey(next.record(HOST, this.now().toISOString(), { from: old }));
    await writeFileAtomic(this.abs(SIGNING_KEY_FILE), pem, { mode: 0o600 });
    return { from: old.fingerprint, to: next.fingerprint };
  }

  /** The fingerprint of the key this coordinator signs with (made if there is none yet). */
  async signingFingerprint(): Promise<string> {
    return (await this.signer()).fingerprint;
  }

  /**
   * Hold a lock that guards no files of its own (a start_run's requestId), so
   * concurrent repeats of one call run one after another. `intent` is what this
   * holder is about to create; `fn` is given the intent of a holder that died
   * holding the lock, when there was one, so its half-done work is finished
   * rather than done a second time.
   */
  async exclusive<T>(lockRel: string, intent: string, fn: (intent: string) => Promise<T>): Promise<T> {
    const held = await this.lock(lockRel, lockRel, intent);
    try {
      return await fn(held.info.intent ?? intent);
    } finally {
      await held.release();
    }
  }

  private async lock(rel: string, what: string, intent?: string) {
    try {
      return await acquireLock(this.abs(rel), { staleMs: this.options.lockStaleMs, timeoutMs: this.options.lockTimeoutMs, now: () => this.now().getTime(), ...(intent !== undefined ? { intent } : {}) });
    } catch (e) {
      if (e instanceof LockTimeout) throw new BoardError('busy', `${what} is busy: ${e.message}; retry`, []);
      throw e;
    }
  }

  private async commit(scope: Scope, tx: Tx, head: ChainHead | null): Promise<CommitReport> {
    const sf = scopeFiles(scope);
    const { staged, drafts, adopted, seen } = tx.plan();
    const now = tx.now.toISOString();
    // A file written without being read is still checked for an external edit first.
    for (const [rel, st] of [...staged]) if (st.kind === 'doc' && !seen.has(rel)) await tx.read(rel);

    // Final bytes for every staged file; unchanged content is dropped.
    const writes: { rel: string; bytes: string | Buffer }[] = [];
    const removes: string[] = [];
    const written: Record<string, { rev: number; sha256: string; fromRev: number }> = {};
    const adoptedRels = new Set(adopted.map((a) => a.rel));
    for (const [rel, st] of staged) {
      if (st.kind === 'remove') {
        if ((await readIfExists(this.abs(rel))) !== null) removes.push(rel);
        continue;
      }
      if (st.kind === 'create') {
        writes.push({ rel, bytes: st.bytes });
        written[rel] = { rev: 1, sha256: sha256Hex(st.bytes), fromRev: 0 };
        continue;
      }
      if (st.kind === 'raw') {
        const cur = await readIfExists(this.abs(rel));
        if (cur === null || cur.toString('utf8') !== st.bytes) writes.push({ rel, bytes: st.bytes });
        continue;
      }
      const current = seen.get(rel) ?? null;
      const currentRev = current?.rev ?? 0;
      if (st.kind === 'adopt') {
        // Keep the editor's bytes (comments, layout); only the rev line moves on.
        const rev = currentRev + 1;
        const bytes = withRev(st.text, rev) ?? encodeDoc(rel, { ...st.data, rev }, st.body);
        writes.push({ rel, bytes });
        written[rel] = { rev, sha256: sha256Hex(bytes), fromRev: currentRev };
        continue;
      }
      const same = current !== null && !adoptedRels.has(rel) && encodeDoc(rel, { ...st.data, rev: currentRev }, st.body) === encodeDoc(rel, current.data, current.body);
      if (same) continue;
      const rev = currentRev + 1;
      // Checked on the way out as on the way in: a write that would make the file unreadable is a bug, never committed.
      const kind = fileKind(rel);
      const broken = kind ? schemaIssues(kind, { ...st.data, rev }) : [];
      if (broken.length > 0) throw new Error(`a write would break the schema of ${rel}: ${broken.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
      const bytes = encodeDoc(rel, { ...st.data, rev }, st.body);
      writes.push({ rel, bytes });
      written[rel] = { rev, sha256: sha256Hex(bytes), fromRev: currentRev };
    }
    const committedWrites = Object.keys(written);
    // Compare-and-swap: every committed file is still what this transaction read (or still
    // absent), checked under the lock just before anything is written. An edit that landed
    // meanwhile is never overwritten: nothing is written, and the call again adopts it.
    for (const rel of committedWrites) {
      const bytes = await this.readBytes(rel);
      const read = seen.get(rel);
      if ((bytes === null ? null : sha256Hex(bytes)) !== (read ? read.sha256 : null)) {
        throw new BoardError('busy', `${rel} changed on disk while this write was being made; nothing was written: call again`, [{ path: rel, message: 'changed since it was read' }]);
      }
    }
    // A broken lock is audited on the chain of what it guarded; a lock over a run that was
    // never created (its starter died before committing) guarded nothing and starts no chain.
    const brokenLocks = head === null ? [] : tx.brokenLocks;
    if (writes.length === 0 && removes.length === 0 && drafts.length === 0 && brokenLocks.length === 0) return { written: {}, events: [] };

    // Audit: adoptions first, then the caller's events; the last event records every file written.
    const events: AuditDraft[] = adopted.map((a) => ({
      actor: 'external',
      action: `${fileKind(a.rel) ?? 'file'}.external-edit`,
      entity: a.rel,
      input: { fromRev: a.knownRev, toRev: written[a.rel]?.rev ?? a.fileRev, changes: { fileRev: a.fileRev, sha256: a.sha256 } },
    }));
    for (const info of brokenLocks) {
      events.push({ actor: 'coordinator', action: 'lock.broken', entity: sf.lock, input: { fromRev: 0, toRev: 0, holder: { ...info } } });
    }
    events.push(...drafts);
    if (committedWrites.length > 0 && drafts.length === 0 && adopted.length === 0) {
      throw new Error(`a transaction on ${sf.name} changed committed files without an audit event`);
    }
    const headRel = sf.head ?? committedWrites[0];
    const headRev = headRel && written[headRel] ? written[headRel] : undefined;
    const headBefore = headRel ? ((seen.get(headRel) ?? (await this.readCurrent(headRel)))?.rev ?? 0) : 0;
    for (const ev of events) {
      if (ev.input.fromRev === 0 && ev.input.toRev === 0) {
        ev.input.fromRev = headBefore;
        ev.input.toRev = headRev?.rev ?? headBefore;
      }
    }
    const last = events[events.length - 1];
    if (last && committedWrites.length > 0) {
      last.input.files = Object.fromEntries(committedWrites.sort().map((rel) => [rel, { rev: written[rel]!.rev, sha256: written[rel]!.sha256 }]));
    }
    const sealed: AuditEvent[] = [];
    let h = head;
    const signer = await this.signer();
    for (const ev of events) {
      const s = sealEvent(ev, h, now, signer);
      sealed.push(s);
      h = { seq: s.seq, hash: s.hash, ts: s.ts };
    }

    // 1. temp files and the journal, written and fsynced side by side. The journal names
    // each temp's hash, so a journal whose temps did not all reach the disk whole is known,
    // at recovery, as a commit that never started renaming (see `journalState`).
    for (const w of writes) await this.assertNoLinks(w.rel);
    const renames = writes.map((w) => ({ tmp: path.relative(this.root, tempPathFor(this.abs(w.rel))), to: w.rel, sha256: sha256Hex(w.bytes) }));
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
        if (!(await createExclusive(this.abs(r.tmp), writes[i]!.bytes, { sync: true }))) throw new Error(`temp file ${r.tmp} already exists`);
      }),
      this.writeJournal(sf.journal, journal),
    ]);
    const failed = started.find((t): t is PromiseRejectedResult => t.status === 'rejected');
    if (failed) {
      await this.abandon(scope, journal);
      throw failed.reason;
    }
    // 2. the journal's folder entry made durable: from here on the commit completes, now or at roll-forward
    try {
      await fsyncDir(path.dirname(this.abs(sf.journal)));
    } catch (e) {
      await this.abandon(scope, journal);
      throw e;
    }
    const report = { written: Object.fromEntries(committedWrites.map((r) => [r, written[r]!.rev])), events: sealed };
    // 3-5. renames, folder fsyncs with the audit append, journal removal
    try {
      await this.applyJournal(journal, sf.journal);
    } catch (e) {
      // Past the commit point the transition has happened: its journal finishes it at the next
      // write or recovery, and readers already see it through the journal. A full disk here
      // must not make the caller retry something that is done (it would be done twice).
      if (faultOf(e).kind === 'internal') throw e;
      return { ...report, pending: true };
    }
    return report;
  }

  /** Undo a commit that failed before its commit point: no journal, no temps, no folder it made. */
  private async abandon(scope: Scope, journal: Journal): Promise<void> {
    const sf = scopeFiles(scope);
    await removeIfExists(this.abs(sf.journal)).catch(() => undefined);
    await Promise.all(journal.renames.map((r) => removeIfExists(this.abs(r.tmp)).catch(() => undefined)));
    if (scope.kind === 'run') for (const d of sf.dirs) await removeIfEmpty(this.abs(d)).catch(() => undefined);
  }

  /**
   * The chain's head and the file states it records. Lines this process has
   * verified before are not verified again: only what was appended since is
   * read. A chain that shrank is read whole. Call under the scope's lock.
   */
  private async chainState(rel: string): Promise<ChainState> {
    await this.assertNoLinks(rel);
    const file = this.abs(rel);
    let fh;
    try {
      fh = await fs.open(file, 'r');
    } catch (e) {
      if (!isCode(e, 'ENOENT')) throw e;
      this.chains.delete(rel);
      return { size: 0, lines: 0, head: null, recorded: new Map() };
    }
    try {
      const { size } = await fh.stat();
      let base = this.chains.get(rel);
      if (!base || size < base.size) base = { size: 0, lines: 0, head: null, recorded: new Map() };
      if (size === base.size) return base;
      const buf = Buffer.alloc(size - base.size);
      await fh.read(buf, 0, buf.length, base.size);
      const report = verifyChain(buf.toString('utf8'), base.head, base.lines + 1);
      if (report.breaks.length > 0) {
        this.chains.delete(rel);
        throw new BoardError('corrupt', `the audit chain ${rel} is broken; run workboard audit verify`, report.breaks.map((b) => ({ path: `${rel}:${b.line}`, message: b.reason })));
      }
      // Extended in place: transactions only read it, and one scope's transactions never overlap.
      const next: ChainState = { size, lines: base.lines + report.events.length, head: report.head, recorded: recordedFiles(report.events, base.recorded) };
      this.chains.set(rel, next);
      return next;
    } finally {
      await fh.close();
    }
  }

  /**
   * What a chain records now, read without the lock: only its whole lines
   * (an append may be under way), continuing from what this process verified
   * before. The shared state is copied, never extended in place, since a
   * transaction of this process may be using it.
   */
  private async recordedNow(rel: string): Promise<ReadonlyMap<string, { rev: number; sha256: string }>> {
    await this.assertNoLinks(rel);
    const bytes = await readIfExists(this.abs(rel));
    if (bytes === null) return new Map();
    let base = this.chains.get(rel);
    if (!base || bytes.length < base.size) base = { size: 0, lines: 0, head: null, recorded: new Map() };
    const whole = bytes.lastIndexOf(0x0a) + 1;
    if (whole <= base.size) return base.recorded;
    const report = verifyChain(bytes.subarray(base.size, whole).toString('utf8'), base.head, base.lines + 1);
    if (report.breaks.length > 0) {
      throw new BoardError('corrupt', `the audit chain ${rel} is broken; run workboard audit verify`, report.breaks.map((b) => ({ path: `${rel}:${b.line}`, message: b.reason })));
    }
    const next: ChainState = { size: whole, lines: base.lines + report.events.length, head: report.head, recorded: recordedFiles(report.events, new Map(base.recorded)) };
    this.chains.set(rel, next);
    return next.recorded;
  }

  private async readCurrent(rel: string): Promise<BoardDoc | null> {
    const bytes = await this.readBytes(rel);
    if (bytes === null) return null;
    const d = decodeDoc(rel, bytes);
    return d.ok ? d.doc : null;
  }

  /**
   * The journal is written in place and fsynced, with its directory, before any
   * rename. A journal that does not parse was torn by a crash while being
   * written, so no rename of its commit had happened: it is discarded.
   */
  private async writeJournal(rel: string, journal: Journal): Promise<void> {
    const file = this.abs(rel);
    await removeIfExists(file);
    if (!(await createExclusive(file, `${JSON.stringify(journal)}\n`, { sync: true }))) throw new Error(`journal ${rel} appeared while we held the lock`);
  }

  /**
   * Where a journal's commit stands: `whole` when every temp is on disk with its
   * hash or already renamed into place (roll forward); `unstarted` when some temp
   * never reached the disk whole and nothing was renamed yet (discard: renaming
   * starts only after every temp is written); `broken` when neither holds.
   */
  private async journalState(j: Journal): Promise<'whole' | 'unstarted' | 'broken'> {
    let missing = false;
    let renamed = false;
    for (const r of j.renames) {
      const tmp = await readIfExists(this.abs(r.tmp));
      if (tmp !== null && sha256Hex(tmp) === r.sha256) continue;
      const target = tmp === null ? await readIfExists(this.abs(r.to)) : null;
      if (target !== null && sha256Hex(target) === r.sha256) renamed = true;
      else missing = true;
    }
    return !missing ? 'whole' : renamed ? 'broken' : 'unstarted';
  }

  /** Idempotent: apply a journal's renames, removals and audit lines, then delete it. */
  private async applyJournal(j: Journal, journalRel: string): Promise<void> {
    const dirs = new Set<string>();
    await Promise.all(
      j.renames.map(async (r) => {
        try {
          await fs.rename(this.abs(r.tmp), this.abs(r.to));
        } catch (e) {
          if (!isCode(e, 'ENOENT')) throw e; // already renamed by an earlier attempt
        }
        dirs.add(path.dirname(this.abs(r.to)));
      }),
    );
    for (const rel of j.removes) {
      await removeIfExists(this.abs(rel));
      dirs.add(path.dirname(this.abs(rel)));
    }
    // The audit append need not wait for the folder fsyncs: until the journal is gone,
    // a crash rolls the renames forward again and the append skips lines already there.
    await Promise.all([...[...dirs].map((d) => fsyncDir(d)), j.lines.length > 0 ? this.appendMissing(j.chain, j.lines, j.firstSeq) : null]);
    await removeIfExists(this.abs(journalRel));
    await this.noteChange(j.scope);
  }

  /** Tell other coordinators' indexes which scope changed (a hint, not durable; see CHANGES_FILE). */
  private async noteChange(scopeName: string): Promise<void> {
    try {
      await fs.appendFile(this.abs(CHANGES_FILE), `${scopeName}\n`);
      // Now and then, start a new log; readers see the new file and rescan once.
      if (Math.random() < 1 / 512 && (await fs.stat(this.abs(CHANGES_FILE))).size > CHANGES_ROTATE_BYTES) {
        await fs.rename(this.abs(CHANGES_FILE), this.abs(`${CHANGES_FILE}.old`));
      }
    } catch {
      // indexes fall back to a full scan; nothing depends on the hint
    }
  }

  /** Append the journal's audit lines that are not in the chain yet, repairing our own torn append. */
  private async appendMissing(chainRel: string, lines: string[], firstSeq: number): Promise<void> {
    await this.assertNoLinks(chainRel);
    const file = this.abs(chainRel);
    // Only the chain's end is read: its last whole line's seq says how many lines there are
    // (seq counts from 0), so a commit costs the same on a chain of ten lines or a million.
    const { size, torn, last } = await readChainEnd(file);
    if (torn !== '') {
      // A torn last line can only be an interrupted append of this very journal (appends happen under the lock).
      if (!lines.some((l) => l.startsWith(torn))) {
        throw new BoardError('corrupt', `${chainRel} ends with a torn line that no pending commit explains`, [{ path: chainRel, message: 'torn last line' }]);
      }
      await fs.truncate(file, size - Buffer.byteLength(torn));
    }
    let have = 0;
    if (last !== null) {
      const seq = (() => {
        try {
          return (JSON.parse(last) as { seq?: unknown }).seq;
        } catch {
          return undefined;
        }
      })();
      if (typeof seq !== 'number') throw new BoardError('corrupt', `${chainRel} ends with a line that is not an audit event; run workboard audit verify`, [{ path: chainRel, message: 'last line unreadable' }]);
      have = seq + 1;
    }
    if (have < firstSeq) {
      throw new BoardError('corrupt', `${chainRel} has ${have} lines but a pending commit continues it at seq ${firstSeq}`, [{ path: chainRel, message: 'lines are missing' }]);
    }
    const missing = lines.slice(have - firstSeq);
    if (missing.length > 0) await appendDurable(file, missing.join(''));
  }

  /** Roll forward a journal left by a writer that died mid-commit. Call only under the scope's lock. */
  private async rollForward(scope: Scope): Promise<void> {
    const sf = scopeFiles(scope);
    const raw = await readIfExists(this.abs(sf.journal));
    if (raw === null) return;
    const j = parseJournal(raw);
    const state = j ? await this.journalState(j) : 'unstarted';
    if (state === 'broken') {
      throw new BoardError('corrupt', `${sf.journal}: an interrupted commit renamed some files but lost others; restore them from git, then remove the journal`, [
        { path: sf.journal, message: 'temp files missing after renaming began' },
      ]);
    }
    if (state === 'whole') {
      await this.applyJournal(j!, sf.journal);
      return;
    }
    // Torn, or its temps never all reached the disk: the commit never started renaming. Drop it.
    await removeIfExists(this.abs(sf.journal));
    await this.cleanTemps(scope);
  }

  private async cleanTemps(scope: Scope): Promise<void> {
    for (const dir of scopeFiles(scope).dirs) {
      let names: string[];
      try {
        names = await fs.readdir(this.abs(dir));
      } catch (e) {
        if (isCode(e, 'ENOENT', 'ENOTDIR')) continue;
        throw e;
      }
      for (const n of names) if (n.includes(TEMP_MARK)) await removeIfExists(this.abs(path.join(dir, n)));
    }
  }

  /**
   * Bring the board to a whole state after crashes (start-up, `doctor`): roll
   * forward every pending journal; break the locks of dead holders (audited on
   * the chain of what they guarded); remove what dead writers left behind:
   * temp files, lock-break guards, and run folders of starts that never
   * committed. Nothing a live writer holds is touched.
   */
  async recover(): Promise<RecoveryReport> {
    const report: RecoveryReport = { rolledForward: [], brokenLocks: [], removed: [] };
    for (const n of await listDir(this.abs(`${STATE_DIR}/journal`))) {
      const scope = scopeOfName(n, '.json');
      if (!scope) continue;
      await this.transact(scope, () => undefined);
      report.rolledForward.push(scopeFiles(scope).name);
    }
    const lockDir = `${STATE_DIR}/locks`;
    for (const n of await listDir(this.abs(lockDir))) {
      const rel = `${lockDir}/${n}`;
      if (!(await lockIsStale(this.abs(rel), this.options.lockStaleMs, this.now().getTime()))) continue;
      const scope = scopeOfName(n, '.lock');
      if (scope) await this.transact(scope, () => undefined);
      // Taking a stale guard or request lock breaks it; letting go of it removes it.
      else if (n.endsWith('.break') || n.startsWith('request-')) await this.exclusive(rel, '', async () => undefined);
      else continue;
      report.brokenLocks.push(n);
    }
    for (const dir of [STATE_DIR, `${STATE_DIR}/requests`]) {
      for (const n of await listDir(this.abs(dir))) {
        if (isDeadTemp(n, pidAlive) && (await removeIfExists(this.abs(`${dir}/${n}`)))) report.removed.push(`${dir}/${n}`);
      }
    }
    for (const id of await listDir(this.abs('runs'))) {
      if (isRunId(id) && (await this.removeUnstartedRun(id))) report.removed.push(paths.runDir(id));
    }
    return report;
  }

  /**
   * A run folder without RUN.md, no pending journal and no live lock holds
   * nothing but what a start that died before committing left: temps, an empty
   * leases folder, or a chain of nothing but `lock.broken` (written by earlier
   * versions). Such a folder is removed; anything else is left for `audit verify`.
   */
  private async removeUnstartedRun(id: string): Promise<boolean> {
    const sf = scopeFiles({ kind: 'run', id });
    if (existsSync(this.abs(paths.runFile(id))) || existsSync(this.abs(sf.journal)) || existsSync(this.abs(sf.lock))) return false;
    const dir = paths.runDir(id);
    const names = await listDir(this.abs(dir));
    for (const n of names) {
      if (n.includes(TEMP_MARK)) continue;
      if (n !== 'audit.jsonl') return false;
      const report = verifyChain((await this.readBytes(`${dir}/${n}`))?.toString('utf8') ?? '');
      if (report.breaks.length > 0 || report.events.some((e) => e.action !== 'lock.broken')) return false;
    }
    for (const n of names) await removeIfExists(this.abs(`${dir}/${n}`));
    await removeIfEmpty(this.abs(paths.leaseDir(id)));
    return removeIfEmpty(this.abs(dir));
  }

  /**
   * Read several files of one scope as one consistent state, without locking:
   * retried while a commit is in flight (its journal exists or the chain grew
   * during the read). A journal that stays (a dead writer) is read through:
   * its temp files are the new state it was committing.
   */
  async snapshot<T>(scope: Scope, fn: (read: (rel: string) => Promise<BoardDoc | null>) => Promise<T>): Promise<T> {
    const sf = scopeFiles(scope);
    const chainSize = async () => {
      try {
        return (await fs.stat(this.abs(sf.chain))).size;
      } catch (e) {
        if (isCode(e, 'ENOENT')) return -1;
        throw e;
      }
    };
    this.forgetDirs(scope);
    for (let attempt = 0; ; attempt++) {
      const s1 = await chainSize();
      const j1 = await readIfExists(this.abs(sf.journal));
      if (j1 === null) {
        const recorded = await this.recordedNow(sf.chain);
        // A file the chain records that is gone was deleted by hand: the run is not what it shows.
        const value = await fn(async (rel) => {
          const doc = await this.read(rel);
          const known = recorded.get(rel);
          if (doc === null && known) throw deletedOutside(rel, known.rev);
          return doc;
        });
        const j2 = await readIfExists(this.abs(sf.journal));
        if (j2 === null && (await chainSize()) === s1) return value;
      } else if (attempt >= 20) {
        // The writer is slow or dead mid-commit. A whole journal gives the new state (each
        // file from its temp, else already renamed); any other gives the old state, kept only
        // if the commit still has not started renaming once the read is done.
        const j = parseJournal(j1);
        const whole = j !== null && (await this.journalState(j)) === 'whole';
        const overlay = new Map((whole ? j!.renames : []).map((r) => [r.to, r]));
        const value = await fn(async (rel) => {
          const r = overlay.get(rel);
          const bytes = r ? await readIfExists(this.abs(r.tmp)) : null;
          if (r && bytes !== null && sha256Hex(bytes) === r.sha256) {
            const d = decodeDoc(rel, bytes);
            if (d.ok) return d.doc;
          }
          return this.read(rel);
        });
        if (whole) return value;
        const j2 = await readIfExists(this.abs(sf.journal));
        if (j2 !== null && j2.equals(j1) && (j === null || (await this.journalState(j)) === 'unstarted')) return value;
      }
      await sleep(Math.min(1 + attempt, 10));
    }
  }
}

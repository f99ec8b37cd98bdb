/**
 * One transaction on one scope, under its lock: reads checked against the
 * audit chain's record (an external edit is adopted or refused), writes and
 * audit events staged for the commit, nothing on disk changed until then.
 */
import type { Distrusted } from './state.js';
import type { AuditDraft } from './audit.js';
import { deletedOutside, type RecordedFiles } from './chain-file.js';
import type { Commit } from './commit.js';
import type { Adoption, StagedFile } from './commit-plan.js';
import { decodeDoc, type BoardDoc } from './document.js';
import { BoardError } from './errors.js';
import { isStatePath, normalizeRel, scopeFiles, scopeOwns, type Scope } from './layout.js';
import type { LockInfo } from './lock.js';
import type { SafeFiles } from './safe-files.js';

export class Tx {
  private readonly staged = new Map<string, StagedFile>();
  private readonly drafts: AuditDraft[] = [];
  private readonly seen = new Map<string, BoardDoc | null>();
  private readonly adopted: Adoption[] = [];

  constructor(
    private readonly files: SafeFiles,
    readonly scope: Scope,
    private readonly recorded: RecordedFiles,
    readonly now: Date,
    readonly brokenLocks: LockInfo[],
    /** State records read as absent (see WorkState.distrust). */
    private readonly distrusted: Distrusted = () => false,
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
    const bytes = await this.files.readBytes(rel);
    const known = this.recorded.get(rel);
    if (bytes === null) {
      if (known) throw deletedOutside(rel, known.rev);
      this.seen.set(rel, null);
      return null;
    }
    const decoded = decodeDoc(rel, bytes);
    if (!decoded.ok) {
      throw new BoardError(
        'invalid',
        `${rel} is not a valid board file; fix it or restore it from git`,
        decoded.issues.map((i) => ({ ...i, path: i.path ? `${rel}: ${i.path}` : rel })),
      );
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

  /** What the scope's audit chain records of a file: its rev and sha256 as the board's writers last wrote it. */
  recordedAs(path: string): { rev: number; sha256: string } | undefined {
    return this.recorded.get(this.checkPath(path));
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
    if ((await this.files.readBytes(rel)) !== null) {
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
    const bytes = await this.files.readBytes(rel);
    return bytes === null || this.distrusted(rel, () => bytes) ? null : bytes.toString('utf8');
  }

  audit(draft: Omit<AuditDraft, 'input'> & { changes?: Record<string, unknown>; input?: Record<string, unknown> }): void {
    this.drafts.push({ actor: draft.actor, action: draft.action, entity: draft.entity, input: { fromRev: 0, toRev: 0, ...(draft.input ?? {}), ...(draft.changes ? { changes: draft.changes } : {}) } });
  }

  /**
   * @internal Stage a commit value built from this transaction's reads (see BoardStore.apply).
   * Each file must still be at the rev its builder read it at; a file it never read is read now
   * (an external edit is adopted or refused as for any read), and must be at the rev it names.
   */
  async take(commit: Commit): Promise<void> {
    const stale: { path: string; message: string }[] = [];
    for (const f of commit.files) {
      const rev = (await this.read(f.rel))?.rev ?? 0;
      if (rev !== f.readRev) stale.push({ path: f.rel, message: `rev is ${rev}, not ${f.readRev}` });
    }
    if (stale.length > 0) throw new BoardError('conflict', `${stale.map((s) => s.path).join(', ')} changed since read`, stale);
    for (const f of commit.files) this.write(f.rel, f.data, f.body);
    for (const c of commit.creates ?? []) await this.create(c.rel, c.bytes);
    for (const r of commit.state) {
      if (r.bytes === null) this.removeState(r.rel);
      else this.writeState(r.rel, r.bytes);
    }
    for (const ev of commit.events) this.audit(ev);
  }

  /** @internal A file written without being read is still checked for an external edit first. */
  async readUnreadWrites(): Promise<void> {
    for (const [rel, st] of [...this.staged]) if (st.kind === 'doc' && !this.seen.has(rel)) await this.read(rel);
  }

  /** @internal What the commit planner is given of this transaction. */
  staging(): { staged: ReadonlyMap<string, StagedFile>; readAs: ReadonlyMap<string, BoardDoc | null>; adopted: readonly Adoption[]; drafts: readonly AuditDraft[]; brokenLocks: readonly LockInfo[] } {
    return { staged: this.staged, readAs: this.seen, adopted: this.adopted, drafts: this.drafts, brokenLocks: this.brokenLocks };
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
}

/**
 * Commit planning, pure: from what a transaction staged and read, the files
 * to write (final bytes, each committed one at rev + 1, unchanged ones not at
 * all), the state files to remove and the audit events to append, or the
 * refusal. The store reads what a plan needs beforehand, and checks the plan's
 * compare-and-swap against the disk just before writing.
 */
import { sha256Hex } from '../core/hash.js';
import { sealEvent, type AuditDraft, type AuditEvent, type ChainHead } from './audit.js';
import { encodeDoc, withRev, type BoardDoc } from './document.js';
import { fileKind } from './layout.js';
import type { LockInfo } from './lock.js';
import { schemaIssues } from './schemas.js';
import type { Signer } from './signing.js';

/** A file a transaction staged, by path. */
export type StagedFile =
  | { kind: 'doc'; data: Record<string, unknown>; body: string }
  | { kind: 'raw'; bytes: string }
  | { kind: 'create'; bytes: string | Buffer }
  | { kind: 'adopt'; text: string; data: Record<string, unknown>; body: string }
  | { kind: 'remove' };

/** A committed file whose bytes the chain does not record (an external edit), taken on by the transaction that read it. */
export interface Adoption {
  rel: string;
  fileRev: number;
  knownRev: number;
  sha256: string;
}

export interface CommitInput {
  /** The scope's name, lock file and head file (see `scopeFiles`). */
  scope: { name: string; lock: string; head: string | null };
  staged: ReadonlyMap<string, StagedFile>;
  /** Each committed file as the transaction read it (null: absent); adopted ones at their adopted rev. Every staged doc was read. */
  readAs: ReadonlyMap<string, BoardDoc | null>;
  adopted: readonly Adoption[];
  drafts: readonly AuditDraft[];
  brokenLocks: readonly LockInfo[];
  /** The bytes on disk now of each staged state file (written or removed); null when absent. */
  stateNow: ReadonlyMap<string, Buffer | null>;
  /** The scope's head file (a run's RUN.md) as on disk now, when the transaction did not read it; else null. */
  headNow: BoardDoc | null;
  /** The chain's last line, or null when the scope has no chain yet. */
  chainHead: ChainHead | null;
}

export interface CommitPlan {
  writes: { rel: string; bytes: string | Buffer }[];
  removes: string[];
  /** The new rev of each committed file written, by path in sorted order. */
  written: Record<string, number>;
  /**
   * The compare-and-swap: the sha256 each committed file written had when it
   * was read (null: absent). It must still have it on disk when the write lands.
   */
  expected: { rel: string; sha256: string | null }[];
  /** Adoptions first, then broken locks, then the caller's events; the last records every file written. */
  events: AuditDraft[];
  /** What each committed document written decodes to, so reading it back need not parse it again. */
  docs: BoardDoc[];
}

/** A plan, null when there is nothing to commit, or why the commit is refused (nothing is written). */
export type PlanResult = { ok: true; plan: CommitPlan | null } | { ok: false; refusal: Error };

export function planCommit(input: CommitInput): PlanResult {
  const { scope, staged, readAs, adopted, drafts } = input;
  // Final bytes for every staged file; unchanged content is dropped.
  const writes: CommitPlan['writes'] = [];
  const removes: string[] = [];
  const written: Record<string, { rev: number; sha256: string }> = {};
  const docs: BoardDoc[] = [];
  const adoptedRels = new Set(adopted.map((a) => a.rel));
  for (const [rel, st] of staged) {
    if (st.kind === 'remove') {
      if ((input.stateNow.get(rel) ?? null) !== null) removes.push(rel);
      continue;
    }
    if (st.kind === 'create') {
      writes.push({ rel, bytes: st.bytes });
      written[rel] = { rev: 1, sha256: sha256Hex(st.bytes) };
      continue;
    }
    if (st.kind === 'raw') {
      const cur = input.stateNow.get(rel) ?? null;
      if (cur === null || cur.toString('utf8') !== st.bytes) writes.push({ rel, bytes: st.bytes });
      continue;
    }
    const current = readAs.get(rel) ?? null;
    const currentRev = current?.rev ?? 0;
    if (st.kind === 'adopt') {
      // Keep the editor's bytes (comments, layout); only the rev line moves on.
      const rev = currentRev + 1;
      const bytes = withRev(st.text, rev) ?? encodeDoc(rel, { ...st.data, rev }, st.body);
      writes.push({ rel, bytes });
      written[rel] = { rev, sha256: sha256Hex(bytes) };
      continue;
    }
    // Unchanged when it renders to the file's own bytes (the usual case: the board wrote it), or
    // to what the file's data renders to (a file laid out by hand keeps its layout).
    const asIs = encodeDoc(rel, { ...st.data, rev: currentRev }, st.body);
    const same = current !== null && !adoptedRels.has(rel) && (sha256Hex(asIs) === current.sha256 || asIs === encodeDoc(rel, current.data, current.body));
    if (same) continue;
    const rev = currentRev + 1;
    // Checked on the way out as on the way in: a write that would make the file unreadable is a bug, never committed.
    const kind = fileKind(rel);
    const broken = kind ? schemaIssues(kind, { ...st.data, rev }) : [];
    if (broken.length > 0) return { ok: false, refusal: new Error(`a write would break the schema of ${rel}: ${broken.map((i) => `${i.path}: ${i.message}`).join('; ')}`) };
    const bytes = withRev(asIs, rev) ?? encodeDoc(rel, { ...st.data, rev }, st.body);
    writes.push({ rel, bytes });
    written[rel] = { rev, sha256: sha256Hex(bytes) };
    docs.push({ rel, data: { ...st.data, rev }, body: st.body, rev, sha256: written[rel].sha256 });
  }
  const committedWrites = Object.keys(written);
  // The store checks these on disk under the lock just before writing (see CommitPlan.expected).
  const expected = committedWrites.map((rel) => ({ rel, sha256: readAs.get(rel)?.sha256 ?? null }));
  // A broken lock is audited on the chain of what it guarded; a lock over a run that was
  // never created (its starter died before committing) guarded nothing and starts no chain.
  const brokenLocks = input.chainHead === null ? [] : input.brokenLocks;
  if (writes.length === 0 && removes.length === 0 && drafts.length === 0 && brokenLocks.length === 0) return { ok: true, plan: null };
  if (committedWrites.length > 0 && drafts.length === 0 && adopted.length === 0) {
    return { ok: false, refusal: new Error(`a transaction on ${scope.name} changed committed files without an audit event`) };
  }

  // Audit: adoptions first, then broken locks, then the caller's events; the last event records every file written.
  const events: AuditDraft[] = adopted.map((a) => ({
    actor: 'external',
    action: `${fileKind(a.rel) ?? 'file'}.external-edit`,
    entity: a.rel,
    input: { fromRev: a.knownRev, toRev: written[a.rel]?.rev ?? a.fileRev, changes: { fileRev: a.fileRev, sha256: a.sha256 } },
  }));
  for (const info of brokenLocks) {
    events.push({ actor: 'coordinator', action: 'lock.broken', entity: scope.lock, input: { fromRev: 0, toRev: 0, holder: { ...info } } });
  }
  events.push(...drafts);
  // Events that name no revs take the scope's head file's: a run's RUN.md, else the board's first file written.
  const headRel = scope.head ?? committedWrites[0];
  const headRev = headRel ? written[headRel]?.rev : undefined;
  const headBefore = headRel ? ((readAs.get(headRel) ?? input.headNow)?.rev ?? 0) : 0;
  const sorted = [...committedWrites].sort();
  const withRevs = events.map((ev, i): AuditDraft => {
    const revs = ev.input.fromRev === 0 && ev.input.toRev === 0 ? { fromRev: headBefore, toRev: headRev ?? headBefore } : {};
    const files = i === events.length - 1 && sorted.length > 0 ? { files: Object.fromEntries(sorted.map((rel) => [rel, written[rel]!])) } : {};
    return { ...ev, input: { ...ev.input, ...revs, ...files } };
  });
  return { ok: true, plan: { writes, removes, written: Object.fromEntries(sorted.map((rel) => [rel, written[rel]!.rev])), expected, events: withRevs, docs } };
}

/** Seal planned events onto the chain's head, in order, each signed. */
export function sealEvents(events: readonly AuditDraft[], head: ChainHead | null, now: string, signer: Signer): AuditEvent[] {
  const sealed: AuditEvent[] = [];
  let h = head;
  for (const ev of events) {
    const s = sealEvent(ev, h, now, signer);
    sealed.push(s);
    h = { seq: s.seq, hash: s.hash, ts: s.ts };
  }
  return sealed;
}

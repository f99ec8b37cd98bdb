/**
 * One transition's writes as one plain value: the committed files it
 * rewrites (with the rev each was read at), the coordinator records under
 * `.work/` it writes or removes (leases, notifications, the replay record),
 * and the audit events that explain it. Whoever builds it only reads the
 * board; the store applies it in one call (see BoardStore.apply).
 */
import type { BoardDoc } from './document.js';

/** A committed markdown file's new content; the store sets its rev (rev + 1, or unchanged content not written at all). */
export interface CommitFile {
  rel: string;
  data: Record<string, unknown>;
  body: string;
  /** The rev the file had when the builder read it (0: absent). The store refuses the commit if it no longer has it. */
  readRev: number;
}

/** A committed file written once, byte for byte, and never rewritten (a published PROCESS.md, an upload); refused if it exists. */
export interface CommitCreate {
  rel: string;
  bytes: string | Buffer;
}

/** A record under `.work/`: its new bytes, or null to remove it. */
export interface StateRecord {
  rel: string;
  bytes: string | null;
}

/** An audit event as its builder states it; the store seals it onto the chain with the revs and hashes. */
export interface CommitEvent {
  actor: string;
  action: string;
  entity: string;
  changes?: Record<string, unknown>;
  /** More of what the line records beside the changes (the OS user behind a command, an adopted version's files). */
  input?: Record<string, unknown>;
}

export interface Commit {
  files: CommitFile[];
  creates?: CommitCreate[];
  state: StateRecord[];
  events: CommitEvent[];
}

/** What a builder may do with the board while it builds a commit: read, never write. */
export interface CommitReads {
  /** The transaction's time: what its audit lines are sealed with. */
  readonly now: Date;
  read: (rel: string) => Promise<BoardDoc | null>;
  readState: (rel: string) => Promise<string | null>;
  /** What the scope's audit chain records of a committed file: its rev and sha256 as the board's writers last wrote it. */
  recordedAs: (rel: string) => { rev: number; sha256: string } | undefined;
}

/**
 * Reads that remember the rev each committed file was read at, so a commit
 * built from them can say it (see CommitFile.readRev).
 */
export function revRecording(reads: CommitReads): CommitReads & { revOf: (rel: string) => number } {
  const revs = new Map<string, number>();
  return {
    now: reads.now,
    async read(rel) {
      const doc = await reads.read(rel);
      revs.set(rel, doc?.rev ?? 0);
      return doc;
    },
    readState: (rel) => reads.readState(rel),
    recordedAs: (rel) => reads.recordedAs(rel),
    revOf: (rel) => revs.get(rel) ?? 0,
  };
}

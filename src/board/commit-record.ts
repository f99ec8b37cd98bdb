/**
 * A commit as its journal and its log frame hold it: the one value recovery
 * reads from both (docs/architecture.md "Recovery"), and the pure rules for
 * reading one back: parsed, and whole when every file's bytes match their
 * hash. Here so that the pure power-loss rules and the journal that applies
 * them share it without importing each other.
 */
import { sha256Hex } from '../core/hash.js';

/** One file of a commit: where it goes, its sha256 before (null: absent) and after (null: removed), and its new bytes. */
export interface RecordFile {
  rel: string;
  prev: string | null;
  sha256: string | null;
  /** The temp file its bytes are renamed from (absent for a removal). */
  tmp?: string;
  /** The new bytes, as UTF-8 text when they are that, else base64. */
  text?: string;
  base64?: string;
}

/** A commit as its journal and its log frame hold it. */
export interface CommitRecord {
  v: 2;
  id: string;
  /** The scope's name (`board`, `run r-…`). */
  scope: string;
  chain: string;
  files: RecordFile[];
  lines: string[];
  firstSeq: number;
  /** The chain's length once this commit is applied: with `at`, orders one scope's commits found in several logs. */
  pos: number;
  at: number;
}

/** A file's new bytes as a record holds them. */
export function recordBytes(f: RecordFile): Buffer | null {
  if (f.sha256 === null) return null;
  return f.text !== undefined ? Buffer.from(f.text, 'utf8') : Buffer.from(f.base64 ?? '', 'base64');
}

export function shaOf(bytes: Buffer | null): string | null {
  return bytes === null ? null : sha256Hex(bytes);
}

/** A journal's record, or null when it does not parse (torn). */
export function parseJournal(raw: Buffer): CommitRecord | null {
  try {
    const j = JSON.parse(raw.toString('utf8')) as CommitRecord;
    // Any object that parses was written whole; one not in this format (an earlier version's) is judged by `isWhole`.
    return typeof j === 'object' && j !== null && !Array.isArray(j) ? j : null;
  } catch {
    return null;
  }
}

/** Is this a record this version wrote, every file's bytes matching its hash? */
export function isWhole(r: CommitRecord): boolean {
  return r.v === 2 && Array.isArray(r.lines) && typeof r.chain === 'string' && Array.isArray(r.files) && r.files.every((f) => typeof f.rel === 'string' && shaOf(recordBytes(f)) === f.sha256);
}

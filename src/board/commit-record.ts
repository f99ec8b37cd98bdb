/**
 * A commit as its journal and its log frame hold it: the one value recovery
 * reads from both (docs/architecture.md "Recovery"). Types only, so that the
 * pure power-loss rules and the journal that applies them share it without
 * importing each other.
 */

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

/**
 * A cold build's ended entries (run-index-file.ts), written to a new `ended`
 * file as the scan reads them instead of held in memory: at 100k runs they
 * are most of a cold start's heap. The save puts the file in place; they are
 * read back into memory only when one of them is wanted first, or that save
 * could not be made.
 */
import { ENDED_FILE, type IndexEntry } from './run-index-ended.js';
import { line, records } from './run-index-lines.js';
import type { PiecesFile, WorkState } from '../board/state.js';
import type { RunSummary } from './run-summary-scan.js';

export class EndedSpill {
  private readonly file: PiecesFile;
  readonly ids = new Set<string>();

  constructor(state: WorkState) {
    this.file = state.openPieces(ENDED_FILE);
  }

  write(id: string, e: IndexEntry): void {
    this.file.write(line([id, e.stamp, e.summary]));
    this.ids.add(id);
  }

  /** The file put in place as `ended`; its length. */
  finish(): number {
    return this.file.finish();
  }

  abort(): void {
    this.file.abort();
  }

  /** The entries read back into `into` and the file dropped; whether every one written was read. */
  readBack(into: Map<string, IndexEntry>): boolean {
    let n = 0;
    try {
      for (const { value } of records(this.file.readBack())) {
        const [id, stamp, summary] = value as [string, string, RunSummary];
        into.set(id, { stamp, summary });
        n++;
      }
    } finally {
      this.file.abort();
    }
    return n === this.ids.size;
  }
}

/**
 * Lock-free consistent reads: several files of one scope as one state, read
 * while writers commit, through the journal of a writer that died mid-commit.
 */
import { deletedOutside, type ChainFiles } from './chain-file.js';
import { decodeDoc, type BoardDoc } from './document.js';
import { readIfExists, sleep, statIfExists } from './fsutil.js';
import { recordBytes } from './commit-record.js';
import type { Journals } from './journal.js';
import { scopeFiles, type Scope } from './layout.js';
import type { SafeFiles } from './safe-files.js';

/** What a snapshot reads through: the board's files, its chains and journals, and a whole-file read. */
export interface SnapshotSources {
  files: SafeFiles;
  chains: ChainFiles;
  journals: Journals;
  read(rel: string): Promise<BoardDoc | null>;
}

/**
 * Read several files of one scope as one consistent state, without locking:
 * retried while a commit is in flight (its journal exists or the chain grew
 * during the read). A journal that stays (a dead writer) is read through:
 * it carries the new state it was committing.
 */
export async function snapshot<T>(from: SnapshotSources, scope: Scope, fn: (read: (rel: string) => Promise<BoardDoc | null>) => Promise<T>): Promise<T> {
  const { files } = from;
  const sf = scopeFiles(scope);
  const chainSize = () => statIfExists(files.abs(sf.chain))?.size ?? -1;
  files.forgetDirs(scope);
  for (let attempt = 0; ; attempt++) {
    const s1 = chainSize();
    const j1 = await readIfExists(files.abs(sf.journal));
    if (j1 === null) {
      const recorded = await from.chains.recordedNow(sf.chain);
      // A file the chain records that is gone was deleted by hand: the run is not what it shows.
      const value = await fn(async (rel) => {
        const doc = await from.read(rel);
        const known = recorded.get(rel);
        if (doc === null && known) throw deletedOutside(rel, known.rev);
        return doc;
      });
      const j2 = await readIfExists(files.abs(sf.journal));
      if (j2 === null && chainSize() === s1) return value;
    } else if (attempt >= 20) {
      // The writer is slow or dead mid-commit. A whole journal gives the new state (it carries
      // every file's new bytes); any other gives the old state, kept if the journal still stands
      // unchanged once the read is done (its commit never reached its flush).
      const { state, record } = from.journals.state(j1);
      // A journal is a recycled file (spares.ts): one read just as it was reused holds another scope's commit.
      const ours = record !== null && record.scope === sf.name;
      const overlay = new Map((ours ? record.files : []).map((f) => [f.rel, f]));
      const value = await fn(async (rel) => {
        const f = overlay.get(rel);
        if (f) {
          const bytes = recordBytes(f);
          if (bytes === null) return null;
          const d = decodeDoc(rel, bytes);
          if (d.ok) return d.doc;
        }
        return from.read(rel);
      });
      if (state === 'whole' && ours) return value;
      const j2 = await readIfExists(files.abs(sf.journal));
      if (j2 !== null && j2.equals(j1)) return value;
    }
    await sleep(Math.min(1 + attempt, 10));
  }
}

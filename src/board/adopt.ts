/**
 * Board files that arrived from outside the board's writers (a hand edit of
 * WORK.md, a pull request merged, a version published on another clone that
 * a merge brought in) are adopted while they are valid: recorded on the
 * board's audit chain, so `audit verify` accounts for them, never reported
 * as broken. An invalid one is refused with the file named, and stays
 * unrecorded until it is fixed.
 */
import { sha256Hex } from '../core/hash.js';
import { parseMarkdown } from '../core/markdown.js';
import { processHash } from '../process/hash.js';
import type { Board } from './board.js';
import type { CommitEvent } from './commit.js';
import { decodeDoc } from './document.js';
import { BoardError } from './errors.js';
import { paths, WORK_FILE } from './layout.js';
import { listProcessNames, listVersions } from './processes.js';

export interface Adopted {
  /** Files recorded anew on the board's chain. */
  adopted: string[];
}

/** Record every valid board file that differs from what the board's chain records; refuse, naming them, those that are not valid. */
export async function adoptBoardFiles(board: Board, actor: string): Promise<Adopted> {
  const adopted: string[] = [];
  // WORK.md first: reading it in a transaction adopts a valid edit (a rev bump, a `work.external-edit` line) and refuses an invalid one.
  const work = await board.store.apply({ kind: 'board' }, async (reads) => {
    const before = reads.recordedAs(WORK_FILE);
    const doc = await reads.read(WORK_FILE);
    return { value: doc !== null && doc.sha256 !== before?.sha256, commit: null };
  });
  if (work.value) adopted.push(WORK_FILE);
  // Then published versions: each whole (its PROCESS.md must hash to what its VERSION.md says), in one line per version.
  const refused: { path: string; message: string }[] = [];
  await board.store.apply({ kind: 'board' }, async (reads) => {
    const events: CommitEvent[] = [];
    for (const name of await listProcessNames(board)) {
      for (const v of await listVersions(board, name)) {
        const dir = paths.versionDir(name, v);
        const whole = await wholeVersion(board, dir);
        if (whole === 'absent') continue;
        if (
          whole !== 'damaged' &&
          reads.recordedAs(`${dir}/VERSION.md`)?.sha256 === whole.files[`${dir}/VERSION.md`]!.sha256 &&
          reads.recordedAs(`${dir}/PROCESS.md`)?.sha256 === whole.files[`${dir}/PROCESS.md`]!.sha256
        )
          continue;
        if (whole === 'damaged') {
          // Recorded and damaged since is verify's to report; unrecorded and damaged cannot be adopted.
          if (!reads.recordedAs(`${dir}/VERSION.md`)) refused.push({ path: dir, message: 'a published version whose PROCESS.md does not hash to its VERSION.md, or is not readable' });
          continue;
        }
        const { files, hash } = whole;
        events.push({ actor, action: 'process.adopted', entity: `${name}@v${v}`, input: { version: v, hash, files } });
        adopted.push(dir);
      }
    }
    return { value: undefined, commit: events.length > 0 ? { files: [], state: [], events } : null };
  });
  if (refused.length > 0) throw new BoardError('invalid', `published versions that arrived are not valid: ${refused.map((r) => r.path).join(', ')}`, refused);
  return { adopted };
}

/**
 * A published version's two files as they stand, when whole: VERSION.md reads
 * and checks, and PROCESS.md hashes to the hash it records.
 */
export async function wholeVersion(board: Board, dir: string): Promise<{ hash: string; files: Record<string, { rev: number; sha256: string }> } | 'absent' | 'damaged'> {
  const meta = await board.store.readBytes(`${dir}/VERSION.md`, { fresh: true });
  const text = await board.store.readBytes(`${dir}/PROCESS.md`, { fresh: true });
  if (meta === null && text === null) return 'absent';
  if (meta === null || text === null) return 'damaged';
  const decoded = decodeDoc(`${dir}/VERSION.md`, meta);
  const parsed = parseMarkdown(text.toString('utf8'));
  const hash = decoded.ok ? decoded.doc.data.hash : undefined;
  if (!decoded.ok || !parsed.ok || typeof hash !== 'string' || processHash(parsed.value.data, parsed.value.body) !== hash) return 'damaged';
  return { hash, files: { [`${dir}/VERSION.md`]: { rev: decoded.doc.rev, sha256: sha256Hex(meta) }, [`${dir}/PROCESS.md`]: { rev: 1, sha256: sha256Hex(text) } } };
}

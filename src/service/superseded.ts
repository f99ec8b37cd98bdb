/**
 * What merges set aside on a run (runs/<id>/superseded.jsonl), read for the
 * people's views (log, show, the run page, doctor): never part of a tool's
 * answer, so the protocol's results stay exactly as the spec says.
 */
import type { Board } from '../board/board.js';
import { paths } from '../board/layout.js';
import { parseSuperseded, SUPERSEDED_FILE, type SupersededBranch } from '../board/superseded.js';

export async function supersededOf(board: Board, runId: string): Promise<SupersededBranch[]> {
  const bytes = await board.store.readBytes(`${paths.runDir(runId)}/${SUPERSEDED_FILE}`);
  return bytes === null ? [] : parseSuperseded(bytes.toString('utf8')).branches;
}

/**
 * `workboard upgrade`: bring a board of an older format to the one this
 * workboard writes (docs/operations.md, Board format versions), as one
 * audited commit of WORK.md (`board.upgraded`, from and to). Format 1 is
 * every board written so far, so today an upgrade records the format in
 * WORK.md and changes nothing else; a later format adds its own changes to
 * this same commit, so a board is never left half upgraded.
 */
import type { Author } from './author.js';
import type { Board } from './board.js';
import { BOARD_FORMAT, boardFormat } from './manifest.js';
import { editManifest } from './people.js';

export interface Upgrade {
  from: number;
  to: number;
  /** WORK.md said no format before (it was written before boards recorded theirs). */
  unrecorded: boolean;
}

/** Upgrade the board; null when WORK.md already records this workboard's format. */
export async function upgradeBoard(board: Board, by: Author | string): Promise<Upgrade | null> {
  let done: Upgrade | null = null;
  await editManifest(
    board,
    by,
    'board.upgraded',
    (data) => {
      const unrecorded = data.format === undefined;
      const from = boardFormat(data);
      if (!unrecorded && from >= BOARD_FORMAT) return null;
      data.format = BOARD_FORMAT;
      done = { from, to: BOARD_FORMAT, unrecorded };
      return `format ${BOARD_FORMAT}`;
    },
    async () => ({ state: [], changes: { from: done!.from, to: done!.to } }),
  );
  return done;
}

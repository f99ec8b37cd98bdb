/**
 * What the web is handed of the board it serves (`Service.board`), named in
 * one place so that the web imports nothing from board/: the board's and
 * WORK.md's types, the record its sign-in sessions are kept in, who may
 * have a web session, and a watch on the board's commits for live pages.
 */
import { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { CHANGES_FILE, SESSIONS_FILE } from '../board/layout.js';
import { RunWatch } from '../board/run-watch.js';
import { resolveActor } from './identity.js';

export type { Board as ServedBoard } from '../board/board.js';
export { servedAt } from '../board/served-at.js';
export type { ChangeCursor } from '../board/changes.js';
export type { Manifest } from '../board/manifest.js';

/** The board at `root`, opened afresh (for a thread of the web's own: signin-worker.ts). */
export function openServedBoard(root: string): Promise<Board> {
  return Board.open(root);
}

/** The web's sign-in links and sessions, hashed (never committed). */
export { SESSIONS_FILE };

/** The person a web session may be opened for: declared in WORK.md as it is now, and a person, never an agent. */
export async function sessionPerson(board: Board, email: string): Promise<string> {
  await board.refresh();
  const who = resolveActor(board.manifest, email);
  if (!who.ok) throw new BoardError('invalid', who.message);
  if (who.actor.kind !== 'person') throw new BoardError('invalid', `"${email}" is an agent; agents never get a web session (they use MCP)`);
  return who.actor.email.toLowerCase();
}

/** Call `onCommit` whenever a commit by any coordinator may have grown the change log (or the runs folder changed), until closed. */
export function watchCommits(board: Board, onCommit: () => void): { close(): void } {
  const watch = new RunWatch(board.root, CHANGES_FILE, (e) => {
    if (e.kind !== 'run') onCommit();
  });
  watch.start();
  return watch;
}

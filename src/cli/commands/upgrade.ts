/** `workboard upgrade`: bring the board to the format this workboard writes (board/upgrade.ts), as one audited commit. */
import type { Command } from 'commander';
import { BOARD_FORMAT } from '../../board/manifest.js';
import { upgradeBoard } from '../../board/upgrade.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

export function register(program: Command, cli: Cli): void {
  program
    .command('upgrade')
    .description(`bring a board written by an older workboard to format ${BOARD_FORMAT}, as one audited commit of WORK.md (a board of a newer format is refused, unchanged)`)
    .addHelpText('after', '\nExample:\n  workboard upgrade && git commit -am "Board format upgraded"')
    .action(async () => {
      const board = await cli.board();
      // An interrupted commit of the old format is finished first, so the upgrade commits on top of it.
      await board.store.recover();
      const u = await upgradeBoard(board, cli.author());
      if (cli.json()) printJson({ ok: true, data: { changed: u !== null, format: BOARD_FORMAT, ...(u ? { from: u.from, unrecorded: u.unrecorded } : {}) } });
      else if (!u) process.stdout.write(`board ${board.manifest.name} is format ${BOARD_FORMAT}, the newest this workboard writes; nothing changed\n`);
      else
        process.stdout.write(
          `${color.green('upgraded')} board ${board.manifest.name} from format ${u.from}${u.unrecorded ? ' (not recorded: written before boards recorded their format)' : ''} to format ${u.to}; WORK.md records it (audited as board.upgraded)\n`,
        );
      cli.exit(EXIT.ok);
    });
}

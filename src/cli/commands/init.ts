import type { Command } from 'commander';
import { Board } from '../../board/board.js';
import { setUpGit } from './git.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

export function register(program: Command, cli: Cli): void {
  program
    .command('init')
    .description('create a board: WORK.md, .gitignore (with .work/) and the folders')
    .argument('[dir]', 'where to create it', '.')
    .option('--name <name>', 'board name (lowercase words joined by hyphens); default: the folder name')
    .option('--title <title>', 'a human title')
    .option('--description <text>', 'one paragraph: what this board is for')
    .option('--git', 'also register the board merge driver in the git repository holding it')
    .addHelpText('after', '\nExample:\n  workboard init work --name acme-ops --title "Acme operations"')
    .action(async (dir: string, opts: { name?: string; title?: string; description?: string; git?: boolean }) => {
      const board = await Board.init(dir, { ...opts, actor: cli.actor() });
      if (opts.git) setUpGit(board.root);
      if (cli.json()) printJson({ ok: true, data: { root: board.root, name: board.manifest.name } });
      else process.stdout.write(`${color.green('created')} board ${board.manifest.name} in ${board.root}\n`);
      cli.exit(EXIT.ok);
    });
}

/** `workboard init`: a new board where asked (the argument, else --board, else here), with git set up on request. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Command } from 'commander';
import { Board } from '../../board/board.js';
import { BoardError } from '../../board/errors.js';
import { gitAvailable, insideGitWorkTree, setUpGit } from './git.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';
import { STATE_DIR } from '../../board/layout.js';

export function register(program: Command, cli: Cli): void {
  program
    .command('init')
    .description(`create a board: WORK.md, .gitignore (with ${STATE_DIR}/) and the folders`)
    .argument('[dir]', 'where to create it (default: --board, else the current folder)')
    .option('--name <name>', 'board name (lowercase words joined by hyphens); default: the folder name')
    .option('--title <title>', 'a human title')
    .option('--description <text>', 'one paragraph: what this board is for')
    .option('--git', 'also register the board merge driver and audit textconv; runs git init first when the folder is in no git repository')
    .addHelpText('after', '\nExamples:\n  workboard init work --name acme-ops --title "Acme operations"\n  workboard --board /srv/boards/ops init --git')
    .action(async (dir: string | undefined, opts: { name?: string; title?: string; description?: string; git?: boolean }) => {
      const flag = cli.boardOption();
      if (dir !== undefined && flag !== undefined && path.resolve(dir) !== path.resolve(flag)) cli.usage(`init got two places: ${dir} and --board ${flag}; give one`);
      const target = path.resolve(dir ?? flag ?? '.');
      // Everything --git needs is checked before anything is created.
      if (opts.git && !gitAvailable()) throw new BoardError('invalid', 'init --git needs git, which is not on PATH; nothing was created (install git, or leave out --git)');
      const board = await Board.init(target, { name: opts.name, title: opts.title, description: opts.description, actor: cli.author() });
      if (opts.git) {
        if (!insideGitWorkTree(board.root)) {
          execFileSync('git', ['init', '--quiet', board.root], { stdio: ['ignore', 'ignore', 'pipe'] });
          process.stderr.write(`${board.root} was in no git repository: ran git init there\n`);
        }
        setUpGit(board.root);
      }
      if (cli.json()) printJson({ ok: true, data: { root: board.root, name: board.manifest.name } });
      else process.stdout.write(`${color.green('created')} board ${board.manifest.name} in ${board.root}\n`);
      cli.exit(EXIT.ok);
    });
}

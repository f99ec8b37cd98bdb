/** `workboard new <name>`: a commented PROCESS.md to start from, in the board's processes/ folder. */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import { NAME_PATTERN } from '../../process/model.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';
import { processTemplate } from '../templates/process-md.js';

export function register(program: Command, cli: Cli): void {
  program
    .command('new')
    .description('write processes/<name>/PROCESS.md: a commented process to edit, which validates and publishes as written; prints its path')
    .argument('<name>', 'the process name (lowercase words joined by hyphens)')
    .addHelpText('after', '\nExample:\n  workboard new hello && workboard validate processes/hello')
    .action(async (name: string) => {
      if (!NAME_PATTERN.test(name) || name.length > 64) throw new BoardError('invalid', `process name "${name}" must be lowercase words joined by hyphens (at most 64 characters)`);
      const board = await cli.board();
      const file = path.join(board.root, 'processes', name, 'PROCESS.md');
      if (existsSync(file)) throw new BoardError('conflict', `${file} exists already; nothing was written`);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, processTemplate(name), { flag: 'wx' });
      const rel = path.relative(process.cwd(), file) || file;
      if (cli.json()) printJson({ ok: true, data: { file } });
      else {
        process.stdout.write(`${rel}\n`);
        process.stderr.write(`${color.green('wrote')} a process to edit; then: workboard validate ${path.dirname(rel)} && workboard publish ${path.dirname(rel)} --role approver=<group>\n`);
      }
      cli.exit(EXIT.ok);
    });
}

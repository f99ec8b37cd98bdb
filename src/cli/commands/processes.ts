import type { Command } from 'commander';
import { listProcessNames, listVersions, loadVersion } from '../../board/processes.js';
import { SERVER_OFFER } from '../../service/service.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

export function register(program: Command, cli: Cli): void {
  program
    .command('processes')
    .description('list published processes: name, latest version, description, inputs and the systems they need')
    .addHelpText('after', '\nExample:\n  workboard processes --json')
    .action(async () => {
      const board = await cli.board();
      const items = [];
      for (const name of await listProcessNames(board)) {
        const versions = await listVersions(board, name);
        const v = await loadVersion(board, name, versions[versions.length - 1]!, SERVER_OFFER);
        items.push({
          name,
          description: v.process.description,
          version: v.version,
          inputs: v.process.frontmatter.inputs ?? {},
          ...(v.process.requires ? { requires: v.process.requires } : {}),
        });
      }
      if (cli.json()) printJson({ ok: true, data: { items, nextCursor: null } });
      else if (items.length === 0) process.stdout.write('no published processes (workboard publish <folder>)\n');
      else
        for (const p of items) {
          process.stdout.write(`${color.bold(p.name)} v${p.version}  ${p.description}\n`);
          const inputs = Object.keys(p.inputs as object);
          if (inputs.length) process.stdout.write(`  inputs   ${inputs.join(', ')}\n`);
          if (p.requires) process.stdout.write(`  requires ${p.requires.systems.join(', ')}\n`);
        }
      cli.exit(EXIT.ok);
    });
}

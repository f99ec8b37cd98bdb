import type { Command } from 'commander';
import { color } from '../output.js';
import type { Cli } from '../cli.js';
import { call } from '../tools/call.js';

export function register(program: Command, cli: Cli): void {
  program
    .command('processes')
    .description('list published processes: name, latest version, description, inputs and the systems they need')
    .addHelpText('after', '\nExample:\n  workboard processes --json')
    .action(async () =>
      call(
        cli,
        'list_processes',
        {},
        (d) => {
          const items = d.items as { name: string; version: number; description: string; inputs: object; requires?: { systems: string[] } }[];
          if (items.length === 0) process.stdout.write('no published processes (workboard publish <folder>)\n');
          for (const p of items) {
            process.stdout.write(`${color.bold(p.name)} v${p.version}  ${p.description}\n`);
            const inputs = Object.keys(p.inputs);
            if (inputs.length) process.stdout.write(`  inputs   ${inputs.join(', ')}\n`);
            if (p.requires) process.stdout.write(`  requires ${p.requires.systems.join(', ')}\n`);
          }
        },
        true,
      ),
    );
}

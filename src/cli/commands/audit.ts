import type { Command } from 'commander';
import { verifyBoard } from '../../board/verify.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

export function register(program: Command, cli: Cli): void {
  const audit = program.command('audit').description('the hash-linked audit chains');
  audit
    .command('verify')
    .description('check every audit chain and that every audited file still has its recorded bytes')
    .addHelpText('after', '\nExample:\n  workboard audit verify --json')
    .action(async () => {
      const board = await cli.board();
      const report = await verifyBoard(board);
      if (cli.json()) printJson({ ok: report.ok, data: report });
      else {
        for (const c of report.chains) {
          if (c.breaks.length === 0) process.stdout.write(`${color.green('ok')}      ${c.file} ${color.dim(`(${c.events} events)`)}\n`);
          for (const b of c.breaks) process.stdout.write(`${color.red('BROKEN')}  ${b.file}${b.line !== null ? `:${b.line}` : ''}: ${b.reason}\n`);
        }
        const broken = report.chains.reduce((a, c) => a + c.breaks.length, 0);
        process.stdout.write(report.ok ? `${report.chains.length} chain(s) verified\n` : `${broken} break(s) found\n`);
      }
      cli.exit(report.ok ? EXIT.ok : EXIT.refused);
    });
}

import type { Command } from 'commander';
import { recoveryLines } from '../../board/recovery.js';
import { doctorFindings, syncStatus } from '../../service/doctor.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

export function register(program: Command, cli: Cli): void {
  program
    .command('doctor')
    .description('what needs an operator: stale locks, interrupted commits, refused files, audit breaks, overdue work, work assigned to nobody')
    .addHelpText('after', '\nExample:\n  workboard doctor --json')
    .action(async () => {
      const board = await cli.board();
      // What crashes left behind is mended first; what remains needs a person.
      const recovered = await board.store.recover();
      const { Service } = await import('../../service/service.js');
      const findings = await doctorFindings(board, await Service.open(board));
      const sync = await syncStatus(board);
      const mended = recoveryLines(recovered);
      if (cli.json()) printJson({ ok: findings.length === 0, data: { findings, ...(mended.length > 0 ? { recovered } : {}), ...(sync ? { sync: { ...sync.state, running: sync.running } } : {}) } });
      else if (findings.length === 0) process.stdout.write(`${color.green('healthy')}: nothing needs an operator\n`);
      else for (const f of findings) process.stdout.write(`${color.yellow(f.kind.padEnd(15))} ${f.where}: ${f.detail}\n`);
      if (!cli.json()) for (const m of mended) process.stdout.write(`${color.dim(`recovered: ${m}`)}\n`);
      // serve --git-sync's state, failing or not: the last good sync, the last failure in its words, the next try.
      if (!cli.json() && sync && !findings.some((f) => f.kind === 'git-sync'))
        process.stdout.write(`${'git sync'.padEnd(15)} ${[sync.words.good, sync.words.failure, sync.words.next].filter((x) => x !== null).join('; ')}\n`);
      // A lock held now, or work a merge set aside, is worth seeing but is no fault.
      cli.exit(findings.some((f) => f.kind !== 'held-lock' && f.kind !== 'superseded') ? EXIT.refused : EXIT.ok);
    });
}

import type { Command } from 'commander';
import { verifyChain } from '../../board/audit.js';
import { BoardError } from '../../board/errors.js';
import { readIfExists } from '../../board/fsutil.js';
import { isRunId, paths } from '../../board/layout.js';
import { verifyBoard } from '../../board/verify.js';
import { verifyHistory, type HistoryReport } from '../../git/history.js';
import { color, EXIT, printJson } from '../output.js';
import { progress } from '../progress.js';
import type { Cli } from '../cli.js';

export function register(program: Command, cli: Cli): void {
  const audit = program.command('audit').description('the hash-linked audit chains')
    .addHelpText('after', '\nExample:\n  workboard audit verify');
  audit
    .command('verify')
    .description('check every audit chain and that every audited file still has its recorded bytes')
    .option('--git', 'also check, across the git history, that every committed chain only ever grew')
    .addHelpText('after', '\nExample:\n  workboard audit verify --json\n  workboard audit verify --git')
    .action(async (opts: { git?: boolean }) => {
      const board = await cli.board();
      const shown = progress('verifying audit chains');
      const report = await verifyBoard(board, shown.tick);
      shown.done();
      let history: HistoryReport | undefined;
      if (opts.git) {
        const checking = progress('checking git history');
        history = await verifyHistory(board.root, checking.tick);
        checking.done();
      }
      const ok = report.ok && (history?.ok ?? true);
      if (cli.json()) printJson({ ok, data: history ? { ...report, history } : report });
      else {
        for (const c of report.chains) {
          if (c.breaks.length === 0) process.stdout.write(`${color.green('ok')}      ${c.file} ${color.dim(`(${c.events} events)`)}\n`);
          for (const b of c.breaks) process.stdout.write(`${color.red('BROKEN')}  ${b.file}${b.line !== null ? `:${b.line}` : ''}: ${b.reason}\n`);
        }
        const broken = report.chains.reduce((a, c) => a + c.breaks.length, 0);
        process.stdout.write(report.ok ? `${report.chains.length} chain(s) verified\n` : `${broken} break(s) found\n`);
        if (history) printHistory(history);
      }
      cli.exit(ok ? EXIT.ok : EXIT.refused);
    });

  program
    .command('log')
    .description("a run's audit timeline in words, verified as it is read")
    .argument('<run>', 'the run id')
    .addHelpText('after', '\nExample:\n  workboard log r-01jd…')
    .action(async (runId: string) => {
      const board = await cli.board();
      if (!isRunId(runId)) throw new BoardError('invalid', `not a run id: ${runId}`);
      const text = (await readIfExists(board.store.abs(paths.runChain(runId))))?.toString('utf8');
      if (text === undefined) throw new BoardError('invalid', `no run ${runId} on this board`);
      const report = verifyChain(text);
      if (cli.json()) printJson({ ok: report.breaks.length === 0, data: { events: report.events, breaks: report.breaks } });
      else {
        for (const e of report.events) {
          const changes = e.input.changes ? Object.entries(e.input.changes).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ') : '';
          process.stdout.write(`${color.dim(e.ts)}  ${e.actor.padEnd(22)} ${e.action.padEnd(20)} ${e.entity.replace(`${runId}/`, '')}${changes ? color.dim(`  ${changes}`) : ''}\n`);
        }
        for (const b of report.breaks) process.stdout.write(`${color.red('BROKEN')} line ${b.line}: ${b.reason}\n`);
      }
      cli.exit(report.breaks.length === 0 ? EXIT.ok : EXIT.refused);
    });
}

function printHistory(history: HistoryReport): void {
  if (history.shallow) process.stdout.write(`history: ${color.yellow('a shallow clone')}: commits before its shallow boundary cannot be checked\n`);
  for (const b of history.breaks) {
    const where = b.commit === null ? 'working tree' : `commit ${b.commit} ${JSON.stringify(b.subject)} by ${b.author}`;
    process.stdout.write(`${color.red('BROKEN')}  ${b.file}${b.line !== null ? `:${b.line}` : ''}: ${b.reason} (${where})\n`);
  }
  const counts = `history: ${history.commitsChecked} commits, ${history.chainsChecked} chains`;
  process.stdout.write(history.ok ? `${counts}, only grown\n` : `${counts}, ${history.breaks.length} break(s) found\n`);
}

import type { Command } from 'commander';
import { verifyChain, type AuditEvent } from '../../board/audit.js';
import { BoardError } from '../../board/errors.js';
import { isRunId, paths } from '../../board/layout.js';
import { verifyBoard } from '../../board/verify.js';
import { branchText, lineText, when, type Words } from '../../git/audit-words.js';
import { supersededOf } from '../../service/superseded.js';
import { boardWords } from '../../git/board-words.js';
import { carriers } from '../../git/carried.js';
import { verifyHistory, type HistoryReport } from '../../git/history.js';
import { color, EXIT, printJson } from '../output.js';
import { progress } from '../progress.js';
import type { Cli } from '../cli.js';

export function register(program: Command, cli: Cli): void {
  const audit = program.command('audit').description('the hash-linked audit chains').addHelpText('after', '\nExample:\n  workboard audit verify');
  audit
    .command('verify')
    .description('check every audit chain and that every audited file still has its recorded bytes')
    .option('--git', 'also check, across the git history, that every committed chain only ever grew')
    .option('--key <fingerprint>', 'trust only this signing key (and keys rotated from it); every line must be signed (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .addHelpText(
      'after',
      '\nExample:\n  workboard audit verify --json\n  workboard audit verify --git\n  workboard audit verify --key 3f9a0c…  # the fingerprint `workboard audit key` printed on the coordinator',
    )
    .action(async (opts: { git?: boolean; key: string[] }) => {
      // Verify changes nothing, not even a cache (docs/architecture.md "Decodes kept across processes").
      const board = await cli.board({ readOnly: true });
      const shown = progress('verifying audit chains');
      const report = await verifyBoard(board, { onProgress: shown.tick, pins: opts.key });
      shown.done();
      let history: HistoryReport | undefined;
      if (opts.git) {
        const checking = progress('checking git history');
        history = await verifyHistory(board, checking.tick);
        checking.done();
      }
      const ok = report.ok && (history?.ok ?? true);
      if (cli.json()) printJson({ ok, data: history ? { ...report, history } : report });
      else {
        for (const c of report.chains) {
          if (c.breaks.length === 0) process.stdout.write(`${color.green('ok')}      ${c.file} ${color.dim(`(${c.events} events)`)}\n`);
          if (c.pending) process.stdout.write(`${color.yellow('pending')} ${c.file}: ${c.pending}\n`);
          for (const f of c.arrived ?? [])
            process.stdout.write(`${color.yellow('arrived')} ${f}: changed outside workboard (a hand edit or a merge) and valid; adopted at the next write, at once by a running serve\n`);
          if (c.superseded) process.stdout.write(`${color.dim('merged')}  ${c.file}: ${c.superseded} branch(es) superseded on merge, kept and verified beside it\n`);
          for (const b of c.breaks) process.stdout.write(`${color.red('BROKEN')}  ${b.file}${b.line !== null ? `:${b.line}` : ''}: ${b.reason}\n`);
        }
        for (const k of report.keys) {
          const how = opts.key.length === 0 ? 'on record, not pinned' : k.trusted ? (opts.key.includes(k.fingerprint) ? 'pinned' : `rotated from a pinned key`) : 'NOT TRUSTED';
          process.stdout.write(`${color.dim('key')}     ${k.fingerprint} ${color.dim(`(${k.host}, ${k.createdAt}${k.rotates ? `, rotates ${k.rotates}` : ''}): ${how}`)}\n`);
        }
        if (report.unsigned > 0) process.stdout.write(`${color.yellow('note')}    ${report.unsigned} line(s) were written before their chain was signed\n`);
        for (const l of report.unreplayed) {
          process.stdout.write(
            `${color.yellow('replay')}  ${l}: commits of an earlier boot of this machine (a power loss) not replayed yet, so the files above may lack them; workboard doctor replays them, then verify again\n`,
          );
        }
        const broken = report.chains.reduce((a, c) => a + c.breaks.length, 0);
        const pending = report.chains.filter((c) => c.pending).length;
        process.stdout.write(report.ok ? `${report.chains.length} chain(s) verified${pending ? `, ${pending} through a pending commit` : ''}\n` : `${broken} break(s) found\n`);
        if (history)
          printHistory(
            history,
            await boardWords(
              board.root,
              history.breaks.flatMap((b) => b.dropped),
            ),
          );
      }
      cli.exit(ok ? EXIT.ok : EXIT.refused);
    });

  audit
    .command('key')
    .description("this board's signing key: its fingerprint, for auditors to pin; --rotate replaces it")
    .option('--rotate', 'make a new key, signed over by the current one, and sign with it from now on')
    .addHelpText('after', '\nExample:\n  workboard audit key\n  workboard audit key --rotate')
    .action(async (opts: { rotate?: boolean }) => {
      const board = await cli.board();
      if (opts.rotate) {
        const r = await board.store.rotateKey();
        if (cli.json()) printJson({ ok: true, data: r });
        else process.stdout.write(`${r.to}\n${color.dim(`rotated from ${r.from}; its record is in audit/keys/${r.to}.json (commit it)`)}\n`);
      } else {
        const fp = await board.store.signingFingerprint();
        if (cli.json()) printJson({ ok: true, data: { fingerprint: fp } });
        else process.stdout.write(`${fp}\n${color.dim(`pin it: workboard audit verify --key ${fp}`)}\n`);
      }
      cli.exit(EXIT.ok);
    });

  program
    .command('log')
    .description("a run's audit timeline in words, verified as it is read; --git: with the commit that carried each line")
    .argument('<run>', 'the run id')
    .option('--git', 'beside each line, the commit that first carried it (or "uncommitted")')
    .addHelpText('after', '\nExample:\n  workboard log r-01jd…\n  workboard log r-01jd… --git')
    .action(async (runId: string, opts: { git?: boolean }) => {
      const board = await cli.board();
      if (!isRunId(runId)) throw new BoardError('invalid', `not a run id: ${runId}`);
      const text = (await board.store.readBytes(paths.runChain(runId)))?.toString('utf8');
      if (text === undefined) throw new BoardError('invalid', `no run ${runId} on this board`);
      const report = verifyChain(text);
      const carried = opts.git ? await carriers(board.root, paths.runChain(runId)) : null;
      const setAside = await supersededOf(board, runId);
      const commitOf = (e: AuditEvent) => carried?.get(e.hash) ?? null;
      if (cli.json()) {
        const events = carried ? report.events.map((e) => ({ ...e, commit: commitOf(e) })) : report.events;
        printJson({ ok: report.breaks.length === 0, data: { events, breaks: report.breaks, superseded: setAside } });
      } else {
        const words = await boardWords(board.root, report.events);
        for (const e of report.events) {
          const c = commitOf(e);
          const where = carried ? `${(c ? `${c.short} ${when(new Date(c.date).toISOString())}` : 'uncommitted').padEnd(30)} ` : '';
          process.stdout.write(`${color.dim(where)}${lineText(e, words)}\n`);
        }
        for (const b of report.breaks) process.stdout.write(`${color.red('BROKEN')} line ${b.line}: ${b.reason}\n`);
        const asideWords =
          setAside.length > 0
            ? await boardWords(
                board.root,
                setAside.flatMap((b) => b.lines),
              )
            : words;
        for (const [i, b] of setAside.entries()) process.stdout.write(`${color.yellow(branchText(b, asideWords, i + 1).join('\n'))}\n`);
      }
      cli.exit(report.breaks.length === 0 ? EXIT.ok : EXIT.refused);
    });
}

function printHistory(history: HistoryReport, words: Words): void {
  if (history.shallow) process.stdout.write(`history: ${color.yellow('a shallow clone')}: commits before its shallow boundary cannot be checked\n`);
  for (const b of history.breaks) {
    const where = b.commit === null ? 'working tree' : `commit ${b.commit} ${JSON.stringify(b.subject)} by ${b.author}`;
    process.stdout.write(`${color.red('BROKEN')}  ${b.file}${b.line !== null ? `:${b.line}` : ''}: ${b.reason} (${where})\n`);
    for (const l of b.dropped) process.stdout.write(`          lost: ${lineText(l, words)}\n`);
  }
  const counts = `history: ${history.commitsChecked} commits, ${history.chainsChecked} chains`;
  process.stdout.write(history.ok ? `${counts}, only grown\n` : `${counts}, ${history.breaks.length} break(s) found\n`);
}

import type { Command } from 'commander';
import { constants } from 'node:os';
import { networkCallsUnderWay, stopNetworkGit } from '../../git/repo.js';
import { syncBoard, SyncError, type SyncReport } from '../../git/sync.js';
import { holdingWords } from '../../git/sync-report.js';
import { resolveRun } from '../../git/resolve.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

const EXIT_FOR: Record<SyncError['code'], number> = { unreachable: EXIT.refused, 'not-git': EXIT.refused, refused: EXIT.refused, declined: EXIT.refused, busy: EXIT.busy, broken: EXIT.corrupt };

/** What a sync did, in one line a person reads, then one line per run it merged. */
export function syncLines(r: SyncReport): string[] {
  const pulled = r.pulled === 'nothing' ? 'nothing new' : r.pulled === 'fast-forward' ? 'fast-forwarded' : 'merged';
  const head = r.head ? ` at ${r.head.slice(0, 8)}` : '';
  return [`synced with ${r.remote}/${r.branch}${head}: ${r.committed ? 'committed the board, ' : ''}${pulled}${r.pushed ? ', pushed' : ''}`, ...mergedLines(r.merged, r.remote)];
}

/** One line for each run a merge kept whole from one side, saying which and what it set aside. */
export function mergedLines(merged: SyncReport['merged'], other: string): string[] {
  return merged.flatMap((m) => {
    if (!m.superseded) return [];
    const kept = m.taken === 'ours' ? 'this clone' : other;
    const lost = m.superseded.side === 'ours' ? 'this clone' : other;
    return [`  ${m.run}: moved on both sides; kept ${kept}'s, ${m.superseded.transitions} transition(s) of ${lost} superseded${holdingWords(m.superseded)} (workboard log ${m.run})`];
  });
}

/** The one line of a sync a signal stopped. Whatever it began (its intent on record, a commit not pushed), the next one finishes. */
const stoppedLine = (signal: NodeJS.Signals) => `${color.red('sync stopped')} (${signal}): the next sync finishes what this one began\n`;

/**
 * Ctrl-C, a TERM or a hang-up during a sync. While a fetch or push is under
 * way: stop it with what it started (it leads a process group of its own,
 * which the signal does not reach) and start no other, so the sync ends at
 * once and lets go of its lock. Otherwise (waiting for the lock, merging) end
 * now, as the signal would have: nothing is left running, and a half-made
 * move is finished by the next sync. A second signal ends the process at once.
 */
function stopGitOnSignal(): { signal: () => NodeJS.Signals | null; off: () => void } {
  let received: NodeJS.Signals | null = null;
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => {
    const h = () => {
      received ??= s;
      if (networkCallsUnderWay() > 0) return void stopNetworkGit();
      process.stderr.write(stoppedLine(s));
      process.exit(128 + constants.signals[s]);
    };
    process.once(s, h);
    return [s, h] as const;
  });
  return {
    signal: () => received,
    off: () => {
      for (const [s, h] of handlers) process.removeListener(s, h);
    },
  };
}

export function register(program: Command, cli: Cli): void {
  program
    .command('sync')
    .description('commit the board, fetch, merge run by run, verify and push (retrying when the remote moved)')
    .option('--remote <name>', 'the remote to sync with (default: the branch upstream, else origin)')
    .option('--timeout <seconds>', 'how long one fetch or push may take before the remote counts as unreachable (default 60)')
    .addHelpText('after', '\nExample:\n  workboard sync\n  workboard sync --remote origin --timeout 20 --json')
    .action(async (opts: { remote?: string; timeout?: string }) => {
      const seconds = opts.timeout === undefined ? undefined : Number(opts.timeout);
      if (seconds !== undefined && !(seconds > 0)) cli.usage(`--timeout expects a number of seconds, got "${opts.timeout}"`);
      const board = await cli.board();
      const stop = stopGitOnSignal();
      let report: SyncReport;
      try {
        report = await syncBoard(board, { ...(opts.remote ? { remote: opts.remote } : {}), ...(seconds ? { timeoutMs: seconds * 1000 } : {}), actor: cli.actor() });
      } catch (e) {
        const signal = stop.signal();
        if (signal !== null) {
          process.stderr.write(stoppedLine(signal));
          cli.exit(128 + constants.signals[signal]);
        }
        if (!(e instanceof SyncError)) throw e;
        if (cli.json()) printJson({ ok: false, error: { code: e.code, message: e.message } });
        else process.stderr.write(`${color.red('sync failed')}: ${e.message}\n`);
        cli.exit(EXIT_FOR[e.code]);
      } finally {
        stop.off();
      }
      if (cli.json()) printJson({ ok: true, data: report });
      else process.stdout.write(`${syncLines(report).join('\n')}\n`);
      cli.exit(EXIT.ok);
    });

  program
    .command('resolve')
    .description('operators: make the side of a run a merge set aside the run itself, while the run has not moved since (the kept side is set aside in turn)')
    .argument('<run>', 'the run id')
    .requiredOption('--take <n>', 'the superseded branch to take, as workboard log numbers them (1 for the first)')
    .option('--reason <text>', 'why, for the audit line')
    .addHelpText('after', '\nExample:\n  workboard log r-01jd…          # shows the superseded branches\n  workboard resolve r-01jd… --take 1 --as mira@example.com')
    .action(async (runId: string, opts: { take: string; reason?: string }) => {
      const n = Number(opts.take);
      if (!Number.isInteger(n) || n < 1) cli.usage(`--take expects a branch number from 1, got "${opts.take}"`);
      const board = await cli.board();
      const r = await resolveRun(board, runId, n, cli.actor(), opts.reason);
      if (cli.json()) printJson({ ok: true, data: r });
      else process.stdout.write(`${runId}: took superseded branch ${n}; the side that was kept is now superseded (workboard log ${runId})\n`);
      cli.exit(EXIT.ok);
    });
}

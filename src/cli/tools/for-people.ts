/**
 * The commands people use: their inbox, a run shown in full or on its map,
 * and deciding a work item, asked for step by step on a terminal when no
 * decision is given.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import { EXIT, exitFor } from '../output.js';
import type { Cli } from '../cli.js';
import { collect, evidenceArgs, fieldsFrom } from './args.js';
import { call, callQuietly } from './call.js';
import { askDecision } from './decide-prompt.js';
import { printDecideArgs, printInbox, printRefusal, printRun, printRunMap } from './render.js';
import type { RunView, ToolArgs, WorkPage } from './views.js';
import { wordsFor } from './words.js';

export function show(program: Command, cli: Cli): void {
  program
    .command('show')
    .description('a run: its inputs, every step with its state, who, when, outputs, evidence, and open work items with the command that decides each')
    .argument('<run>', 'the run id')
    .option('--map', 'draw the run on its process map, each step marked with its state')
    .option('--format <f>', 'with --map: mermaid or svg (the path taken, the current step, rework counts)', 'mermaid')
    .addHelpText('after', '\nExamples:\n  workboard show r-01jd… --map\n  workboard show r-01jd… --map --format svg > run.svg')
    .action(async (runId: string, o: { map?: boolean; format: string }) => {
      if (o.format !== 'mermaid' && o.format !== 'svg') cli.usage(`--format is mermaid or svg, not "${o.format}"`);
      return call(
        cli,
        'get_run',
        { runId },
        async (v: RunView, _read, service) => (o.map ? printRunMap(cli, v, o.format) : printRun(cli, v, await service.runFlow(v.run.id), await service.runLineage(v.run.id))),
        true,
      );
    });
}

export function inbox(program: Command, cli: Cli): void {
  program
    .command('inbox')
    .description('my open work items, oldest first (as a person), or ready steps (as an agent)')
    .option('--process <name>', 'only this process')
    .option('--limit <n>', 'page size (1–100)', '20')
    .option('--decide-args', 'print each work item only as the arguments decide takes: <run> <work-item> --snapshot <snapshot>')
    .addHelpText(
      'after',
      '\nExamples:\n  workboard inbox --as mira@example.com\n  ITEM=$(workboard inbox --limit 1 --decide-args --as mira@example.com)\n  workboard decide $ITEM approved --as mira@example.com',
    )
    .action(async (o: { process?: string; limit: string; decideArgs?: boolean }) => {
      const args: ToolArgs = { limit: Number(o.limit) };
      if (o.process) args.process = o.process;
      await call(cli, 'get_work', args, async (page: WorkPage, read, service) => {
        if (o.decideArgs) return printDecideArgs(page);
        // Each run is read once, for its title and inputs, so two items of one process can be told apart.
        const runs = new Map<string, RunView>();
        for (const i of page.items) {
          if (!('workItem' in i) || runs.has(i.runId)) continue;
          const r = await read('get_run', { runId: i.runId });
          if (r.ok) runs.set(i.runId, r.data);
        }
        // Out of office: an item handed over by its person says whom it is decided for.
        await printInbox(cli, page, runs, (assigned) => service.decidedFor(cli.actor(), assigned));
      });
    });
}

interface DecideFlags {
  snapshot?: string;
  note?: string;
  output: string[];
  outputFile?: string;
  evidence: string[];
  summary?: string;
  next?: string;
  reason?: string;
  requestId?: string;
}

export function decide(program: Command, cli: Cli): void {
  program
    .command('decide')
    .description('decide a work item: approved, rejected, completed, returned or failed')
    .argument('<run>', 'the run id')
    .argument('<work-item>', 'the work item id')
    .argument('[decision]', 'approved | rejected | completed | returned | failed (asked for on a terminal when left out)')
    .option('--snapshot <snapshot>', 'the snapshot show and inbox printed: the data you decided on (needed without a terminal)')
    .option('--note <text>', 'why (required to reject, return or fail)')
    .option('--output <key=value>', 'an output field (repeatable)', collect, [])
    .option('--output-file <file>', 'a JSON object of output fields')
    .option('--evidence <kind:ref>', 'file:<path>, file:<upload id> or link:<url> (repeatable)', collect, [])
    .option('--summary <text>', 'what was done')
    .option('--next <step>', 'the chosen route, when the step offers routes')
    .option('--reason <text>', 'why that route')
    .option('--request-id <id>', 'make the call idempotent (default: a new UUID)')
    .addHelpText(
      'after',
      '\nExamples:\n  workboard decide r-01jd… w-01jd… rejected --note "Receipt is missing" --snapshot 3f0c… --as mira@example.com\n  workboard decide r-01jd… w-01jd…     # on a terminal: shows the work item and asks',
    )
    .action(async (runId: string, workItemId: string, given: string | undefined, flags: DecideFlags) => {
      const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true && !cli.json();
      let chosen: DecideFlags = flags;
      let decision = given;
      let snapshot = flags.snapshot;
      if (decision === undefined || snapshot === undefined) {
        if (!terminal) {
          const missing = [
            ...(decision === undefined ? ['a decision (approved, rejected, completed, returned or failed)'] : []),
            ...(snapshot === undefined ? ['--snapshot <snapshot> (printed by show and inbox: it names the data you decided on)'] : []),
          ];
          cli.usage(`without a terminal, decide needs ${missing.join(' and ')}`);
        }
        // On a terminal the person sees what is being decided before anything is sent.
        const read = await callQuietly(cli, 'get_run', { runId }, '; pass --as <email>');
        if (!read.ok) {
          printRefusal(read.error);
          return cli.exit(exitFor(read));
        }
        const view = read.data;
        const item = view.workItems.find((w) => w.id === workItemId);
        if (!item) throw new BoardError('invalid', `no open work item ${workItemId} on run ${runId} (workboard show ${runId} lists them)`);
        const answers = await askDecision(view, item, await (await wordsFor(cli))(view.run), decision === undefined ? undefined : { decision, ...(flags.next ? { next: flags.next } : {}) });
        if (answers === null) {
          process.stderr.write('nothing was decided\n');
          return cli.exit(EXIT.refused);
        }
        chosen = { ...flags, ...answers };
        decision = answers.decision;
        snapshot ??= item.snapshot;
      }
      const args: ToolArgs = { runId, workItemId, snapshot, decision, requestId: chosen.requestId ?? randomUUID() };
      const output = fieldsFrom(chosen.outputFile, chosen.output, '--output', cli);
      if (Object.keys(output).length > 0 || (decision === 'completed' && !chosen.outputFile)) args.output = output;
      const evidence = await evidenceArgs(chosen.evidence, cli);
      if (evidence.length) args.evidence = evidence;
      for (const k of ['note', 'summary', 'next', 'reason'] as const) if (chosen[k] !== undefined) args[k] = chosen[k];
      await call(cli, 'decide', args, (v: RunView) => printRun(cli, v));
    });
}

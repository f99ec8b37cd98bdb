/**
 * The commands people use: their inbox, a run shown in full or on its map,
 * and deciding a work item, asked for step by step on a terminal when no
 * decision is given.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import { exitFor, printJson } from '../output.js';
import type { Cli } from '../cli.js';
import { collect, evidenceArgs, fieldsFrom } from './args.js';
import { call, callQuietly } from './call.js';
import { askDecision } from './decide-prompt.js';
import { printInbox, printRun, printRunMap } from './render.js';
import type { RunView, ToolArgs } from './views.js';

export function show(program: Command, cli: Cli): void {
  program
    .command('show')
    .description('a run: every step with its state, who, when, outputs, evidence and open work items')
    .argument('<run>', 'the run id')
    .option('--map', 'draw the run on its process map (Mermaid), each step marked with its state')
    .addHelpText('after', '\nExample:\n  workboard show r-01jd… --map')
    .action(async (runId: string, o: { map?: boolean }) => call(cli, 'get_run', { runId }, (v: RunView) => (o.map ? printRunMap(cli, v) : printRun(v))));
}

export function inbox(program: Command, cli: Cli): void {
  program
    .command('inbox')
    .description('my open work items, oldest first (as a person), or ready steps (as an agent)')
    .option('--process <name>', 'only this process')
    .option('--limit <n>', 'page size (1–100)', '20')
    .addHelpText('after', '\nExample:\n  workboard inbox --as mira@example.com')
    .action(async (o: { process?: string; limit: string }) => {
      const args: ToolArgs = { limit: Number(o.limit) };
      if (o.process) args.process = o.process;
      await call(cli, 'get_work', args, printInbox);
    });
}

interface DecideFlags {
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
    .option('--note <text>', 'why (required to reject, return or fail)')
    .option('--output <key=value>', 'an output field (repeatable)', collect, [])
    .option('--output-file <file>', 'a JSON object of output fields')
    .option('--evidence <kind:ref>', 'file:<path>, file:<upload id> or link:<url> (repeatable)', collect, [])
    .option('--summary <text>', 'what was done')
    .option('--next <step>', 'the chosen route, when the step offers routes')
    .option('--reason <text>', 'why that route')
    .option('--request-id <id>', 'make the call idempotent (default: a new UUID)')
    .addHelpText('after', '\nExample:\n  workboard decide r-01jd… w-01jd… rejected --note "Receipt is missing" --as mira@example.com')
    .action(async (runId: string, workItemId: string, given: string | undefined, flags: DecideFlags) => {
      const askable = process.stdin.isTTY === true && !cli.json();
      if (given === undefined && !askable) cli.usage('give a decision (approved, rejected, completed, returned or failed); it is asked for only on a terminal');
      // The run is read first for the work item's snapshot, and for what to show when asking.
      const read = await callQuietly<RunView>(cli, 'get_run', { runId }, '; pass --as <email>');
      if (!read.ok) {
        if (cli.json()) printJson(read);
        else process.stderr.write(`${read.error.code}: ${read.error.message}\n`);
        return cli.exit(exitFor(read));
      }
      const view = read.data;
      const item = view.workItems.find((w) => w.id === workItemId);
      // On a terminal the answers stand in for the flags they name.
      let chosen = flags;
      let decision = given;
      if (decision === undefined) {
        if (!item) throw new BoardError('invalid', `no open work item ${workItemId} on run ${runId}`);
        const answers = await askDecision(view, item);
        chosen = { ...flags, ...answers };
        decision = answers.decision;
      }
      const args: ToolArgs = { runId, workItemId, snapshot: item ? item.snapshot : 'none', decision, requestId: chosen.requestId ?? randomUUID() };
      const output = fieldsFrom(chosen.outputFile, chosen.output, '--output', cli);
      if (Object.keys(output).length > 0 || (decision === 'completed' && !chosen.outputFile)) args.output = output;
      const evidence = await evidenceArgs(chosen.evidence, cli);
      if (evidence.length) args.evidence = evidence;
      for (const k of ['note', 'summary', 'next', 'reason'] as const) if (chosen[k] !== undefined) args[k] = chosen[k];
      await call(cli, 'decide', args, printRun);
    });
}

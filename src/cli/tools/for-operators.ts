/** The commands operators use across runs: listing them, cancelling one, and setting one's priority (flow-1). */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { argumentSchema } from '../../service/schemas.js';
import type { Cli } from '../cli.js';
import { collect, parsePairs } from './args.js';
import { call, callService } from './call.js';
import { printRun, printRuns } from './render.js';
import type { RunView, ToolArgs } from './views.js';

export function runs(program: Command, cli: Cli): void {
  program
    .command('runs')
    .description('list runs, newest first')
    .option('--process <name>', 'only this process')
    .option('--state <state>', 'active, waiting, ended or cancelled')
    .option('--input <key=value>', 'only runs whose input equals this (repeatable)', collect, [])
    .option('--limit <n>', 'page size (1–100)', '20')
    .option('--cursor <c>', 'the next page, from the previous output')
    .addHelpText('after', '\nExample:\n  workboard runs --process expense-approval --state waiting')
    .action(async (o: { process?: string; state?: string; input: string[]; limit: string; cursor?: string }) => {
      const args: ToolArgs = { limit: Number(o.limit) };
      if (o.process) args.process = o.process;
      if (o.state) {
        const states = (argumentSchema('list_runs').properties as { state: { enum: string[] } }).state.enum;
        if (!states.includes(o.state)) cli.usage(`--state is one of ${states.join(', ')}, not "${o.state}"`);
        args.state = o.state;
      }
      if (o.input.length) args.inputs = parsePairs(o.input, '--input', cli);
      if (o.cursor) args.cursor = o.cursor;
      await call(cli, 'list_runs', args, (d) => printRuns(cli, d), true);
    });
}

export function cancel(program: Command, cli: Cli): void {
  program
    .command('cancel')
    .description('cancel an active or waiting run (operators)')
    .argument('<run>', 'the run id')
    .requiredOption('--reason <text>', 'why')
    .addHelpText('after', '\nExample:\n  workboard cancel r-01jd… --reason "Duplicate claim" --as ops@example.com')
    .action(async (runId: string, o: { reason: string }) => call(cli, 'cancel', { runId, reason: o.reason, requestId: randomUUID() }, (v: RunView) => printRun(cli, v)));
}

export function priority(program: Command, cli: Cli): void {
  program
    .command('priority')
    .description('set a running run\'s priority: low, normal, high or urgent (operators, or the person who started it; processes with flow:, docs/profile-flow-1.md)')
    .argument('<run>', 'the run id')
    .argument('<level>', 'low, normal, high or urgent')
    .addHelpText('after', '\nExample:\n  workboard priority r-01jd… urgent --as ops@example.com')
    .action(async (runId: string, level: string) =>
      callService(cli, (service, actor) => service.setPriority(runId, level, actor), async (_data, read, service) => {
        const v = await read('get_run', { runId });
        if (v.ok) await printRun(cli, v.data, await service.runFlow(runId));
      }),
    );
}

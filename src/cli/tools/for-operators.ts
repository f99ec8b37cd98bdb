/** The commands operators use across runs: listing them, cancelling one, and setting one's priority (flow-1). */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { argumentSchema } from '../../service/schemas.js';
import type { Cli } from '../cli.js';
import { collect, parsePairs } from './args.js';
import { call, callService } from './call.js';
import { printRun, printRuns } from './render.js';
import { printView } from './render-view.js';
import type { ViewAnswer } from '../../service/view-runs.js';
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
    .option('--view <id>', 'a saved view of WORK.md instead of the filters above (docs/operators.md "Saved views")')
    .addHelpText('after', '\nExamples:\n  workboard runs --process expense-approval --state waiting\n  workboard runs --view blocked-payments')
    .action(async (o: { process?: string; state?: string; input: string[]; limit: string; cursor?: string; view?: string }) => {
      if (o.view !== undefined) return savedView(cli, o);
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

/** `runs --view <id>`: the view's runs, all of them (a view is not paged); alone, as the view is its own filter. */
async function savedView(cli: Cli, o: { process?: string; state?: string; input: string[]; cursor?: string; view?: string }): Promise<never> {
  const mixed = [o.process && '--process', o.state && '--state', o.input.length && '--input', o.cursor && '--cursor'].filter((x): x is string => typeof x === 'string');
  if (mixed.length) cli.usage(`--view is a filter of its own: leave out ${mixed.join(', ')}`);
  let answer: ViewAnswer | null = null;
  return callService(
    cli,
    async (service) => {
      const r = await service.savedView(o.view);
      if (r.ok) answer = r.data;
      return r;
    },
    async () => {
      if (answer) await printView(cli, answer);
    },
    true,
  );
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
    .description("set a running run's priority: low, normal, high or urgent (operators, or the person who started it; processes with flow:, docs/profile-flow-1.md)")
    .argument('<run>', 'the run id')
    .argument('<level>', 'low, normal, high or urgent')
    .addHelpText('after', '\nExample:\n  workboard priority r-01jd… urgent --as ops@example.com')
    .action(async (runId: string, level: string) =>
      callService(
        cli,
        (service, actor) => service.setPriority(runId, level, actor),
        async (_data, read, service) => {
          const v = await read('get_run', { runId });
          if (v.ok) await printRun(cli, v.data, await service.runFlow(runId), await service.runLineage(runId));
        },
      ),
    );
}

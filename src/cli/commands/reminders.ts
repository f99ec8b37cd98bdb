/**
 * `workboard reminders <run> [step]`: a run's waiting work on its reminder
 * ladder, rung by rung, in words: when each rung fell or will fall (and what
 * quiet hours or a day off moved), whom it tells and by which channel, and
 * which were sent or passed over (docs/operators.md "Reminders and escalation
 * ladders"). Reading it needs no identity, as `show` and `log` need none.
 */
import type { Command } from 'commander';
import { Service } from '../../service/service.js';
import type { RunLadders } from '../../service/reminders.js';
import { rungLine, type RungRow } from '../../notify/ladder-view.js';
import { assigneeWords } from '../../notify/ladder-notes.js';
import { exactTime, relativeTime, type PersonLike } from '../../words/index.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

const MARK: Record<RungRow['status'], (s: string) => string> = {
  sent: (s) => color.green(s),
  'passed over': (s) => color.dim(s),
  due: (s) => color.yellow(s),
  'to come': (s) => s,
};
const SIGN: Record<RungRow['status'], string> = { sent: '✓', 'passed over': '–', due: '!', 'to come': '·' };

function print(v: RunLadders, people: readonly PersonLike[], now: Date): string {
  const out = [color.bold(v.runTitle)];
  if (v.none) return `${[...out, v.none].join('\n')}\n`;
  for (const item of v.items) {
    const due = item.due ? `, due ${exactTime(item.due, v.timeZone)} (${relativeTime(item.due, now)})` : ', no due time: the ladder counts from when it opened';
    out.push('', `${item.stepTitle}: waits for ${assigneeWords(item.assigned, people)}${due}.`);
    if (item.sentence) out.push(item.sentence);
    for (const r of item.rows) out.push(MARK[r.status](`  ${SIGN[r.status]} ${rungLine(r, item.due !== null, v.timeZone, now, people)}`));
  }
  return `${out.join('\n')}\n`;
}

export function register(program: Command, cli: Cli): void {
  program
    .command('reminders')
    .argument('<run>', 'the run id')
    .argument('[step]', 'only the work item waiting at this step')
    .description("a run's waiting work on its reminder ladder, rung by rung: when each falls, to whom, by which channel, and which were sent")
    .addHelpText('after', '\nExamples:\n  workboard reminders r-01jd…\n  workboard reminders r-01jd… approve --json')
    .action(async (runId: string, step: string | undefined) => {
      const board = await cli.board();
      const service = await Service.open(board);
      let view: RunLadders;
      try {
        view = await service.reminderLadders(runId, step);
      } catch (e) {
        return cli.fail(e);
      }
      if (cli.json()) printJson({ ok: true, data: view });
      else process.stdout.write(print(view, board.manifest.people, new Date()));
      return cli.exit(EXIT.ok);
    });
}

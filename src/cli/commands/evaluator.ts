import type { Command } from 'commander';
import type { CheckRequest } from '../../engine/check.js';
import { evaluate } from '../../evaluator/evaluator.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

/** A made-up submission with one question of each kind: enough to see the evaluator answer in every shape. */
const SAMPLE: CheckRequest = {
  material: {
    step: { id: 'sample', kind: 'agent', instructions: 'Summarise the release in one sentence.' },
    body: 'A sample used by `workboard evaluator` to try the configured evaluator.',
    data: { inputs: { release: '4.2' }, steps: {} },
    omitted: [],
    submission: { output: { sentence: 'Release 4.2 adds offline mode and fixes two sync bugs.' }, summary: 'Wrote the one-sentence summary.', evidence: [] },
  },
  questions: [
    { kind: 'yes_no', ask: 'The sentence is about release 4.2.' },
    { kind: 'choice', ask: 'How long is the summary?', one_of: { one: 'One sentence.', more: 'More than one sentence.' } },
    { kind: 'rubric', ask: 'How specific is the sentence?', levels: ['Vague.', 'Names one change.', 'Names every change it mentions concretely.'] },
  ],
  truncated: false,
  hash: 'sample',
};

export function register(program: Command, cli: Cli): void {
  program
    .command('evaluator')
    .description('try the check-1 evaluator configured in WORK.md: ask it one sample question of each kind and show what it answers')
    .addHelpText('after', '\nExample:\n  workboard evaluator')
    .action(async () => {
      const board = await cli.board();
      const cfg = board.manifest.evaluator;
      if (!cfg) {
        process.stderr.write('no evaluator is configured: add an `evaluator:` section to WORK.md (docs/processes.md "Checks (check-1)"); until then the board does not offer check-1\n');
        cli.exit(EXIT.refused);
      }
      const started = Date.now();
      const outcome = await evaluate(cfg, SAMPLE, board.root);
      const ms = Date.now() - started;
      if (cli.json()) printJson('error' in outcome ? { ok: false, error: { code: 'retry', message: outcome.error } } : { ok: true, data: { model: outcome.model, answers: outcome.answers, ms } });
      else if ('error' in outcome) process.stdout.write(`${color.red('no answer')} from ${cfg.kind === 'chat' ? cfg.url : cfg.command}: ${outcome.error}\n`);
      else {
        process.stdout.write(`${color.green('answered')} in ${ms} ms by ${outcome.model}\n`);
        SAMPLE.questions.forEach((q, i) => process.stdout.write(`  ${q.kind.padEnd(7)} ${q.ask}\n          → ${JSON.stringify(outcome.answers[i])}\n`));
      }
      cli.exit('error' in outcome ? EXIT.busy : EXIT.ok);
    });
}

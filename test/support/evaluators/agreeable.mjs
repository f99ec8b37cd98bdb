// A command evaluator for tests: reads {protocol, material, questions} on stdin and
// answers every question as favourably as its kind allows (yes 1, the first choice,
// the highest level), unless the submission's summary says FAIL, UNSURE or CRASH.
// With WB_EVALUATOR_LOG set, it appends each request it read to that file.
import { appendFileSync } from 'node:fs';

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const req = JSON.parse(input);
  if (process.env.WB_EVALUATOR_LOG) appendFileSync(process.env.WB_EVALUATOR_LOG, `${input}\n`);
  const summary = String(req.material?.submission?.summary ?? '');
  if (summary.includes('CRASH')) {
    process.stderr.write('evaluator crashed on purpose\n');
    process.exit(3);
  }
  const yes = summary.includes('FAIL') ? 0.05 : summary.includes('UNSURE') ? 0.7 : 1;
  const answers = req.questions.map((q) => {
    if (q.kind === 'yes_no') return { yes };
    if (q.kind === 'choice') return { choice: Object.keys(q.one_of)[0], confidence: 0.95 };
    return { level: q.levels.length - 1, confidence: 0.95 };
  });
  process.stdout.write(JSON.stringify({ model: 'agreeable-1', answers }));
});

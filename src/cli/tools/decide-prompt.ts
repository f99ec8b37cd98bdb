/**
 * `decide` on a terminal with no decision given: show the step and the run
 * data a person needs, then ask for the decision and what it requires,
 * re-asking until each answer is an allowed one.
 */
import { createInterface } from 'node:readline/promises';
import { BoardError } from '../../board/errors.js';
import { color } from '../output.js';
import type { RunView, WorkItem } from './views.js';

/** The answers, in the shape of `decide`'s own flags (`output` as `k=v` pairs, `evidence` as `kind:ref` items). */
export interface DecisionAnswers {
  decision: string;
  note?: string;
  output?: string[];
  evidence?: string[];
  next?: string;
  reason?: string;
  summary?: string;
}

export async function askDecision(view: RunView, item: WorkItem): Promise<DecisionAnswers> {
  const rl = createInterface({ input: process.stdin, terminal: false });
  // Lines typed ahead are queued by the iterator, so no answer is lost between questions.
  const lines = rl[Symbol.asyncIterator]();
  const q = async (prompt: string) => {
    process.stdout.write(prompt);
    const r = await lines.next();
    if (r.done) throw new BoardError('invalid', 'input ended before the decision was complete; nothing was decided');
    return String(r.value).trim();
  };
  try {
    showStep(view, item);
    const decisions = item.decide.decisions;
    let decision = '';
    while (!decisions.includes(decision)) decision = await q(`\nDecision (${decisions.join(', ')}): `);
    const out: DecisionAnswers = { decision };
    if (decision === 'rejected' || decision === 'returned' || decision === 'failed') {
      let note = '';
      while (note === '') note = await q('Note (why): ');
      out.note = note;
    }
    if (decision === 'completed') {
      const fields = item.output ?? {};
      const output: string[] = [];
      for (const name of Object.keys(fields)) output.push(`${name}=${await q(`${name} (${JSON.stringify(fields[name])}): `)}`);
      out.output = output;
      const ev = await q('Evidence (file:<id> or link:<url>, comma-separated, empty for none): ');
      out.evidence = ev === '' ? [] : ev.split(',').map((x) => x.trim());
      const routes = item.next;
      if (routes) {
        let next = '';
        while (!routes.some((r) => r.to === next)) next = await q(`Next (${routes.map((r) => r.to + (r.when ? ` = ${r.when}` : '')).join('; ')}): `);
        out.next = next;
        out.reason = await q('Reason: ');
      }
      const summary = await q('Summary (optional): ');
      if (summary) out.summary = summary;
    }
    return out;
  } finally {
    rl.close();
  }
}

/** The step's text, the run's inputs, and what each earlier step produced or decided. */
function showStep(view: RunView, item: WorkItem): void {
  const { run, data } = view;
  process.stdout.write(`${color.bold(`${run.process} · ${item.stepId} (${item.kind})`)}${run.mode === 'test' ? color.yellow('  TEST RUN') : ''}\n${item.text.trim()}\n\n`);
  process.stdout.write(`${color.dim('inputs')}  ${JSON.stringify(data.inputs)}\n`);
  for (const [id, d] of Object.entries(data.steps)) {
    const shown = { ...(d.output ? { output: d.output } : {}), ...(d.decision ? { decision: d.decision } : {}), ...(d.note ? { note: d.note } : {}), ...(d.summary ? { summary: d.summary } : {}) };
    if (Object.keys(shown).length) process.stdout.write(`${color.dim(id)}  ${JSON.stringify(shown)}\n`);
  }
}

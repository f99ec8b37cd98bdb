/**
 * `decide` on a terminal: show what is being decided (the process, the
 * run's inputs, the step's text, what earlier steps produced, handoff and
 * escalation notes) as readable fields, ask for the decision and what it
 * requires when none was given, re-asking until each answer is an allowed
 * one, and ask before a decision that ends the run.
 */
import { createInterface } from 'node:readline/promises';
import { BoardError } from '../../board/errors.js';
import type { Step } from '../../process/model.js';
import { cutAtWord, fieldLabel, runTitle } from '../../words/index.js';
import { color } from '../output.js';
import type { RunView, WorkItem } from './views.js';
import { labelled, stepName, when, who, type RunWords } from './words.js';

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

/**
 * The outcome the run ends with if `decision` is taken on `stepId` (with
 * route `next` when the step offers routes), or null when the run goes on.
 */
export function endsRunWith(steps: readonly Step[], stepId: string, decision: string, next?: string): string | null {
  const step = steps.find((s) => s.id === stepId);
  if (!step) return null;
  if (decision === 'failed') return 'failed';
  if (decision === 'rejected') return step.onReject ? null : 'rejected';
  if (decision !== 'approved' && decision !== 'completed') return null;
  const to = typeof step.next === 'string' ? step.next : next;
  const target = steps.find((s) => s.id === to);
  return target?.kind === 'finish' ? target.value : null;
}

/** A line reader over stdin that keeps lines typed ahead, so no answer is lost between questions. */
function prompter() {
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (prompt: string) => {
    process.stdout.write(prompt);
    const r = await lines.next();
    if (r.done) throw new BoardError('invalid', 'input ended before the decision was complete; nothing was decided');
    return String(r.value).trim();
  };
  return { ask, close: () => rl.close() };
}

/**
 * Show the work item, ask for the decision unless `given`, then, when the
 * decision would end the run or was given without a snapshot, ask to go
 * ahead. Answers null when the person says no.
 */
export async function askDecision(view: RunView, item: WorkItem, w: RunWords, given?: DecisionAnswers): Promise<DecisionAnswers | null> {
  const { ask, close } = prompter();
  try {
    showStep(view, item, w);
    const out = given ?? (await askFields(item, w, ask));
    const ending = endsRunWith(w.process.steps, item.stepId, out.decision, out.next);
    if (given || ending !== null) {
      const what = ending !== null ? `This ends the run (outcome ${ending}). ` : '';
      const yes = (await ask(`\n${what}Decide ${out.decision} on ${stepName(w, item.stepId)}? [y/N] `)).toLowerCase();
      if (yes !== 'y' && yes !== 'yes') return null;
    }
    return out;
  } finally {
    close();
  }
}

async function askFields(item: WorkItem, w: RunWords, q: (prompt: string) => Promise<string>): Promise<DecisionAnswers> {
  const decisions = item.decide.decisions;
  let decision: string | undefined;
  while (decision === undefined) {
    const answer = await q(`\nDecision (${decisions.join(', ')}): `);
    decision = decisions.find((d) => d === answer);
  }
  const out: DecisionAnswers = { decision };
  if (decision === 'rejected' || decision === 'returned' || decision === 'failed') {
    let note = '';
    while (note === '') note = await q('Note (why): ');
    out.note = note;
  }
  if (decision === 'completed') {
    const wanted = item.output ?? {};
    const output: string[] = [];
    const declared = w.process.steps.find((st) => st.id === item.stepId)?.output;
    for (const name of Object.keys(wanted)) {
      const field = declared?.[name];
      const kind = field ? `${field.type}${field.oneOf ? `: ${field.oneOf.join(', ')}` : ''}` : JSON.stringify(wanted[name]);
      output.push(`${name}=${await q(`${fieldLabel(name, field)} (${kind}): `)}`);
    }
    out.output = output;
    const ev = await q('Evidence (file:<id> or link:<url>, comma-separated, empty for none): ');
    out.evidence = ev === '' ? [] : ev.split(',').map((x) => x.trim());
    const routes = item.next;
    if (routes) {
      // Routes are chosen by their words (or number); the reason the spec requires defaults to the chosen route's own words.
      process.stdout.write(`Where next:\n${routes.map((r, i) => `  ${i + 1}. ${r.when ?? stepName(w, r.to)}${r.when ? color.dim(` (${stepName(w, r.to)})`) : ''}\n`).join('')}`);
      let route: (typeof routes)[number] | undefined;
      while (!route) {
        const a = await q(`Next (1–${routes.length}): `);
        route = routes[Number(a) - 1] ?? routes.find((r) => r.to === a);
      }
      out.next = route.to;
      const because = route.when ?? '';
      out.reason = (await q(because ? `Reason (empty: "${because}"): ` : 'Reason: ')) || because;
      while (out.reason === '') out.reason = await q('Reason: ');
    }
    const summary = await q('Summary (optional): ');
    if (summary) out.summary = summary;
  }
  return out;
}

/** The step's text, the run's inputs, what each earlier step produced or decided, and the notes handed to this step, in words. */
function showStep(view: RunView, item: WorkItem, w: RunWords): void {
  const { run, data } = view;
  const out = (s: string) => process.stdout.write(s);
  const pad = (label: string) => color.dim(cutAtWord(label, 28).padEnd(30));
  out(`${color.bold(`${runTitle(w.process, data.inputs, w.people)}: ${stepName(w, item.stepId)}`)}${run.mode === 'test' ? color.yellow('  TEST RUN') : ''}\n`);
  out(`${color.dim(item.due ? `due ${when(w, item.due)}` : 'no due date')}\n\n${item.text.trim()}\n\n`);
  if (Object.keys(data.inputs).length > 0) out(`${pad('Inputs')}${labelled(w, data.inputs, w.process.inputs)}\n`);
  for (const [id, d] of Object.entries(data.steps)) {
    const shown = { ...(d.output ?? {}), ...(d.decision ? { decision: d.decision } : {}), ...(d.note ? { note: d.note } : {}), ...(d.summary ? { summary: d.summary } : {}) };
    if (Object.keys(shown).length) out(`${pad(stepName(w, id))}${labelled(w, shown, w.process.steps.find((s) => s.id === id)?.output)}\n`);
  }
  if (item.handoff?.returned) out(`${pad('Returned')}by ${who(w, item.handoff.returned.by)}: ${item.handoff.returned.note}\n`);
  if (item.escalation) out(`${pad('Escalated')}by ${who(w, item.escalation.by)}: ${item.escalation.note}\n`);
}

/**
 * The check-1 profile's rules (docs/processes.md "Checks (check-1)"): what an evaluator is
 * shown, how its answers become a verdict, and how a verdict reads in
 * issues. Pure: the evaluator itself is called by the service, outside any
 * lock, and its answers come back into the engine as a `CheckOutcome`.
 */
import { canonicalJson, sha256Hex } from '../core/hash.js';
import type { CheckQuestion, Step } from '../process/model.js';
import type { Limits, Pinned, RunState } from './types.js';
import type { Completion, QuestionResult, Verdict } from '../protocol/completions.js';
import type { StepDataView } from '../protocol/views.js';
import { isObj } from '../process/validate/raw.js';
import { runData } from './view.js';

/** One answer as an evaluator gives it; which shape depends on the question's kind. */
export type CheckAnswer = { yes: number } | { choice: string; confidence: number } | { level: number; confidence: number };

/** What the evaluator returned for one material: its answers in question order, or why it did not answer. */
export type CheckOutcome = { material: string; model: string } & ({ answers: CheckAnswer[] } | { error: string });

/** The questions as an evaluator is asked them: no thresholds, so nothing hints at the wanted answer. */
export type AskedQuestion = { kind: 'yes_no'; ask: string } | { kind: 'choice'; ask: string; one_of: Record<string, string> } | { kind: 'rubric'; ask: string; levels: string[] };

/** Everything the evaluator sees, and the hash that ties its answers to exactly this material. */
export interface CheckRequest {
  material: {
    step: { id: string; kind: string; instructions: string };
    body: string;
    data: { inputs: Record<string, unknown>; steps: Record<string, unknown> };
    /** Steps left out of `data` to fit `checkStateBytes`, oldest first. */
    omitted: string[];
    submission: { output: Record<string, unknown>; summary?: string; evidence: { kind: string; ref: string }[]; next?: string; reason?: string };
  };
  questions: AskedQuestion[];
  truncated: boolean;
  hash: string;
}

export function askedQuestions(qs: readonly CheckQuestion[]): AskedQuestion[] {
  return qs.map((q) => {
    switch (q.kind) {
      case 'yes_no':
        return { kind: 'yes_no', ask: q.ask };
      case 'choice':
        return { kind: 'choice', ask: q.ask, one_of: q.oneOf };
      case 'rubric':
        return { kind: 'rubric', ask: q.ask, levels: q.levels };
    }
  });
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** When a step's entry in run data last changed: its current completion, else its latest earlier one. */
function lastAt(e: StepDataView): string {
  return e.at ?? e.history[e.history.length - 1]?.at ?? '';
}

/**
 * The material for a submission: run data cut to `checkStateBytes` by
 * leaving out whole steps, oldest first (inputs last of all).
 */
export function checkRequest(state: RunState, pinned: Pinned, def: Step, sub: Completion, limits: Limits): CheckRequest {
  const full = runData(state, pinned, null);
  const steps = { ...full.steps };
  let inputs = full.inputs;
  const omitted: string[] = [];
  const oldestFirst = Object.entries(steps)
    .sort(([, a], [, b]) => (lastAt(a) < lastAt(b) ? -1 : lastAt(a) > lastAt(b) ? 1 : 0))
    .map(([id]) => id);
  for (const id of oldestFirst) {
    if (bytes({ inputs, steps }) <= limits.checkStateBytes) break;
    delete steps[id];
    omitted.push(id);
  }
  if (bytes({ inputs, steps }) > limits.checkStateBytes) {
    inputs = {};
    omitted.push('inputs');
  }
  const material: CheckRequest['material'] = {
    step: { id: def.id, kind: def.kind, instructions: def.value },
    body: pinned.process.body,
    data: { inputs, steps },
    omitted,
    submission: {
      output: sub.output ?? {},
      ...(sub.summary !== undefined ? { summary: sub.summary } : {}),
      evidence: (sub.evidence ?? []).map((e) => ({ kind: e.kind, ref: e.ref })),
      ...(sub.next !== undefined ? { next: sub.next, reason: sub.reason } : {}),
    },
  };
  const questions = askedQuestions(def.check ?? []);
  return { material, questions, truncated: omitted.length > 0, hash: sha256Hex(canonicalJson({ material, questions })) };
}

/**
 * An evaluator's answer read against its question: only the fields of its
 * kind are kept, so nothing else a reply carries is recorded; or why it does
 * not fit.
 */
export function readAnswer(q: AskedQuestion, a: unknown): { ok: true; answer: CheckAnswer } | { ok: false; problem: string } {
  const isProb = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1;
  if (!isObj(a)) return { ok: false, problem: 'expected an object' };
  const bad = (problem: string) => ({ ok: false as const, problem });
  switch (q.kind) {
    case 'yes_no':
      return isProb(a.yes) ? { ok: true, answer: { yes: a.yes } } : bad('expected {"yes": <probability from 0 to 1>}');
    case 'choice':
      if (typeof a.choice !== 'string' || !Object.hasOwn(q.one_of, a.choice)) return bad(`expected "choice" to be one of ${Object.keys(q.one_of).join(', ')}`);
      return isProb(a.confidence) ? { ok: true, answer: { choice: a.choice, confidence: a.confidence } } : bad('expected "confidence" from 0 to 1');
    case 'rubric':
      // Number.isInteger is false for every non-number, so the typeof only narrows.
      if (typeof a.level !== 'number' || !Number.isInteger(a.level) || a.level < 0 || a.level >= q.levels.length) return bad(`expected "level" to be a whole number from 0 to ${q.levels.length - 1}`);
      return isProb(a.confidence) ? { ok: true, answer: { level: a.level, confidence: a.confidence } } : bad('expected "confidence" from 0 to 1');
  }
}

/** One question's result: thresholds from the question, else the server's limits (docs/processes.md "Checks (check-1)"). */
export function judgeQuestion(q: CheckQuestion, a: CheckAnswer, limits: Limits): QuestionResult {
  switch (q.kind) {
    case 'yes_no': {
      const p = (a as { yes: number }).yes;
      const pass = q.pass ?? limits.checkPass;
      const fail = q.fail ?? limits.checkFail;
      const result = p >= pass ? 'pass' : fail !== null && p >= fail ? 'unsure' : 'fail';
      return { ask: q.ask, kind: q.kind, answer: p, result };
    }
    case 'choice': {
      const { choice, confidence } = a as { choice: string; confidence: number };
      let result: QuestionResult['result'] = q.pass.includes(choice) ? 'pass' : q.unsure.includes(choice) ? 'unsure' : 'fail';
      if (confidence < (q.confidence ?? limits.checkConfidence)) result = 'unsure';
      return { ask: q.ask, kind: q.kind, answer: choice, confidence, result };
    }
    case 'rubric': {
      const { level, confidence } = a as { level: number; confidence: number };
      let result: QuestionResult['result'] = level >= q.pass ? 'pass' : 'fail';
      if (confidence < (q.confidence ?? limits.checkConfidence)) result = 'unsure';
      return { ask: q.ask, kind: q.kind, answer: level, confidence, result };
    }
  }
}

const RANK = { pass: 0, fail: 1, unsure: 2 } as const;

/** The verdict of an outcome: the worst question (unsure > fail > pass), or `error` when the evaluator did not answer. */
export function verdictOf(def: Step, outcome: CheckOutcome, request: CheckRequest, limits: Limits, at: string): Verdict {
  const advisory = def.advisory === true;
  const tail = { ...(request.truncated ? { truncated: true } : {}), at };
  if ('error' in outcome) {
    return { verdict: 'error', advisory, model: outcome.model, questions: request.questions.map((q) => ({ ask: q.ask, kind: q.kind, answer: null, result: 'unsure' })), ...tail };
  }
  const questions = (def.check ?? []).map((q, i) => judgeQuestion(q, outcome.answers[i]!, limits));
  const worst = questions.reduce<QuestionResult['result']>((w, q) => (RANK[q.result] > RANK[w] ? q.result : w), 'pass');
  return { verdict: worst, advisory, model: outcome.model, questions, ...tail };
}

const num = (n: number) => String(Math.round(n * 100) / 100);

/** How one answer reads in an issue line: `no (0.12)`, `hedges (0.9)`, `level 1: One list is covered. (0.85)`. */
export function answerText(def: Step, i: number, r: QuestionResult, limits: Limits): string {
  const q = (def.check ?? [])[i]!;
  if (q.kind === 'yes_no') {
    const p = r.answer as number;
    return `${p < (q.pass ?? limits.checkPass) ? 'no' : 'yes'} (${num(p)})`;
  }
  const conf = ` (${num(r.confidence ?? 0)})`;
  if (q.kind === 'choice') return `${String(r.answer)}${conf}`;
  return `level ${String(r.answer)}: ${q.levels[r.answer as number] ?? ''}${conf}`;
}

/** The issue lines of every question that did not pass: `check: <ask> → <answer>`. */
export function checkIssues(def: Step, v: Verdict, limits: Limits): string[] {
  if (v.verdict === 'error') return [];
  return v.questions.flatMap((r, i) => (r.result === 'pass' ? [] : [`check: ${r.ask} → ${answerText(def, i, r, limits)}`]));
}

/**
 * The check-1 profile's rules without disk or evaluator: thresholds and
 * defaults, the verdict as the worst question, the issue lines, what the
 * evaluator is shown, and every verdict's effect on a run (profiles/check §2–§5).
 */
import { describe, expect, it } from 'vitest';
import { checkIssues, checkRequest, judgeQuestion, verdictOf, type CheckAnswer, type CheckOutcome } from '../../src/engine/check.js';
import { cmd, NeedsCheck, type Decision } from './throwing.js';
import { Machine } from '../../src/engine/machine.js';
import { type Actor, type Context, type Limits, type Pinned } from '../../src/engine/types.js';
import { ToolError } from '../../src/protocol/errors.js';
import { runData, runView, snapshotOf } from '../../src/engine/view.js';
import { loadProcess } from '../../src/process/load.js';
import type { CheckQuestion } from '../../src/process/model.js';
import { FULL_OFFER } from '../../src/protocol/offer.js';

const LIMITS: Limits = { runDataBytes: 100_000, leaseSeconds: 600, checkPass: 0.9, checkFail: null, checkConfidence: 0.8, checkStateBytes: 65_536 };
const agent: Actor = { kind: 'agent', id: 'bot' };
const olga: Actor = { kind: 'person', email: 'olga@example.com', operator: true };
const ann: Actor = { kind: 'person', email: 'ann@example.com', operator: false };
const groups = { writers: ['ann@example.com'] };
const noFiles = () => ({ ok: false as const, problem: 'not found' });

function pinned(frontmatter: string): Pinned {
  const r = loadProcess(`---\n${frontmatter}---\nBody of the process.\n`, FULL_OFFER);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return { process: r.process, version: 1, hash: r.hash, roles: { writer: 'writers' } };
}

const SCREEN = `name: screen
description: d
inputs:
  vendor: string
steps:
  - id: screen
    agent: Screen the vendor.
    output: { cleared: boolean }
    check:
      - ask: The verdict matches the report.
        pass: 0.9
        fail: 0.5
      - ask: What does the summary do?
        one_of:
          states: States the verdict.
          hedges: Hedges.
          unclear: Cannot tell.
        pass: [states]
        unsure: [unclear]
      - ask: How complete is the screening?
        levels: [None, One list, Both lists]
        pass: 2
        confidence: 0.7
  - id: done
    finish: screened
`;

const q = (text: string, i: number): CheckQuestion => pinned(text).process.steps[0]!.check![i]!;

describe('judging one answer', () => {
  const yesNo: CheckQuestion = { kind: 'yes_no', ask: 'Fine?' };
  it('yes/no: at or above pass passes; below fails without fail; the defaults come from the limits', () => {
    expect(judgeQuestion(yesNo, { yes: 0.9 }, LIMITS).result).toBe('pass');
    expect(judgeQuestion(yesNo, { yes: 0.89 }, LIMITS).result).toBe('fail');
    expect(judgeQuestion(yesNo, { yes: 0.6 }, { ...LIMITS, checkPass: 0.5 }).result).toBe('pass');
    expect(judgeQuestion(yesNo, { yes: 0.6 }, { ...LIMITS, checkFail: 0.5 }).result).toBe('unsure');
  });
  it('yes/no: between fail and pass is unsure, below fail fails; the question overrides the limits', () => {
    const own: CheckQuestion = { kind: 'yes_no', ask: 'Fine?', pass: 0.8, fail: 0.4 };
    expect(judgeQuestion(own, { yes: 0.8 }, LIMITS).result).toBe('pass');
    expect(judgeQuestion(own, { yes: 0.4 }, LIMITS).result).toBe('unsure');
    expect(judgeQuestion(own, { yes: 0.39 }, LIMITS).result).toBe('fail');
  });
  it('choice: pass names pass, unsure names are unsure, any other fails; low confidence is unsure whatever the name', () => {
    const c = q(SCREEN, 1);
    expect(judgeQuestion(c, { choice: 'states', confidence: 0.9 }, LIMITS)).toEqual({ ask: 'What does the summary do?', kind: 'choice', answer: 'states', confidence: 0.9, result: 'pass' });
    expect(judgeQuestion(c, { choice: 'unclear', confidence: 0.9 }, LIMITS).result).toBe('unsure');
    expect(judgeQuestion(c, { choice: 'hedges', confidence: 0.9 }, LIMITS).result).toBe('fail');
    expect(judgeQuestion(c, { choice: 'states', confidence: 0.79 }, LIMITS).result).toBe('unsure');
    expect(judgeQuestion(c, { choice: 'hedges', confidence: 0.5 }, LIMITS).result).toBe('unsure');
  });
  it('rubric: at or above the pass level passes, below fails; the question’s confidence overrides the default', () => {
    const r = q(SCREEN, 2);
    expect(judgeQuestion(r, { level: 2, confidence: 0.7 }, LIMITS).result).toBe('pass');
    expect(judgeQuestion(r, { level: 1, confidence: 0.95 }, LIMITS).result).toBe('fail');
    expect(judgeQuestion(r, { level: 2, confidence: 0.69 }, LIMITS).result).toBe('unsure');
  });
});

describe('the verdict and its issue lines', () => {
  const p = pinned(SCREEN);
  const def = p.process.steps[0]!;
  const req = { questions: [], truncated: false } as unknown as Parameters<typeof verdictOf>[2];
  const verdict = (answers: CheckAnswer[]) => verdictOf(def, { material: 'h', model: 'm-1', answers }, req, LIMITS, '2026-10-06T09:00:00.000Z');
  const good: CheckAnswer[] = [{ yes: 0.95 }, { choice: 'states', confidence: 0.9 }, { level: 2, confidence: 0.9 }];

  it('is the worst question: unsure outranks fail, fail outranks pass', () => {
    expect(verdict(good).verdict).toBe('pass');
    expect(verdict([{ yes: 0.2 }, good[1]!, good[2]!]).verdict).toBe('fail');
    expect(verdict([{ yes: 0.2 }, { choice: 'unclear', confidence: 0.9 }, good[2]!]).verdict).toBe('unsure');
  });

  it('names each question that did not pass as `check: <ask> → <answer>`', () => {
    const v = verdict([{ yes: 0.12 }, { choice: 'hedges', confidence: 0.9 }, { level: 1, confidence: 0.85 }]);
    expect(checkIssues(def, v, LIMITS)).toEqual([
      'check: The verdict matches the report. → no (0.12)',
      'check: What does the summary do? → hedges (0.9)',
      'check: How complete is the screening? → level 1: One list (0.85)',
    ]);
    // a yes/no answer at or above pass reads "yes", even when another rule made it unsure
    const lowConfidence = verdict([{ yes: 0.95 }, { choice: 'states', confidence: 0.3 }, good[2]!]);
    expect(checkIssues(def, lowConfidence, LIMITS)).toEqual(['check: What does the summary do? → states (0.3)']);
  });

  it('records the model, advisory and the time; an evaluator that did not answer is an error verdict', () => {
    const v = verdict(good);
    expect(v).toMatchObject({ verdict: 'pass', advisory: false, model: 'm-1', at: '2026-10-06T09:00:00.000Z' });
    const e = verdictOf(def, { material: 'h', model: 'm-1', error: 'timeout' }, checkRequest(startedState(p).state, p, def, { output: {}, by: 'bot', at: 'x' }, LIMITS), LIMITS, 'now');
    expect(e.verdict).toBe('error');
    expect(e.questions.map((x) => x.answer)).toEqual([null, null, null]);
  });
});

function clock(limits: Limits = LIMITS) {
  let now = new Date('2026-10-06T09:00:00.000Z');
  let n = 0;
  const ctx = (): Context => ({ now, newId: (pfx) => `${pfx}-${String(++n).padStart(4, '0')}`, limits });
  return { ctx, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

function startedState(p: Pinned, limits: Limits = LIMITS) {
  const c = clock(limits);
  return cmd.startRun(p, { inputs: { vendor: 'Acme' }, mode: 'live' }, olga, c.ctx(), 'r-1');
}

/** Claim the first step and submit; the first call asks for a verdict, the second brings the evaluator's answers. */
function submitWith(p: Pinned, answers: CheckAnswer[] | { error: string }, limits: Limits = LIMITS) {
  const m = startedState(p, limits);
  const lease = cmd.claim(m, 'screen', agent);
  const sub = { output: { cleared: true }, summary: 'Cleared on both lists.' };
  let request;
  try {
    cmd.submit(m, 'screen', lease.claimId, sub, agent, noFiles);
    throw new Error('expected NeedsCheck');
  } catch (e) {
    if (!(e instanceof NeedsCheck)) throw e;
    request = e.request;
  }
  const outcome: CheckOutcome = { material: request.hash, model: 'judge-1', ...(Array.isArray(answers) ? { answers } : answers) };
  let error: unknown = null;
  try {
    cmd.submit(m, 'screen', lease.claimId, sub, agent, noFiles, outcome);
  } catch (e) {
    error = e;
  }
  m.settle();
  return { m, request, error, data: runData(m.state, p, null) as { steps: Record<string, any> } };
}

const PASS: CheckAnswer[] = [{ yes: 0.95 }, { choice: 'states', confidence: 0.9 }, { level: 2, confidence: 0.9 }];
const FAIL: CheckAnswer[] = [{ yes: 0.12 }, { choice: 'states', confidence: 0.9 }, { level: 2, confidence: 0.9 }];
const UNSURE: CheckAnswer[] = [{ yes: 0.7 }, { choice: 'states', confidence: 0.9 }, { level: 2, confidence: 0.9 }];

describe('a check on a submission', () => {
  const p = pinned(SCREEN);

  it('asks for a verdict on exactly the material, and again when the material is not the one answered', () => {
    const m = startedState(p);
    const lease = cmd.claim(m, 'screen', agent);
    const sub = { output: { cleared: true }, summary: 'Cleared.' };
    const ask = () => {
      try {
        cmd.submit(m, 'screen', lease.claimId, sub, agent, noFiles, { material: 'another', model: 'x', answers: PASS });
      } catch (e) {
        return e;
      }
    };
    const e = ask();
    expect(e).toBeInstanceOf(NeedsCheck);
    const { material, questions } = (e as NeedsCheck).request;
    expect(material.step).toEqual({ id: 'screen', kind: 'agent', instructions: 'Screen the vendor.' });
    expect(material.body).toBe('Body of the process.\n');
    expect(material.submission).toEqual({ output: { cleared: true }, summary: 'Cleared.', evidence: [] });
    expect(material.data.inputs).toEqual({ vendor: 'Acme' });
    // the evaluator is not told the thresholds
    expect(questions).toEqual([
      { kind: 'yes_no', ask: 'The verdict matches the report.' },
      { kind: 'choice', ask: 'What does the summary do?', one_of: { states: 'States the verdict.', hedges: 'Hedges.', unclear: 'Cannot tell.' } },
      { kind: 'rubric', ask: 'How complete is the screening?', levels: ['None', 'One list', 'Both lists'] },
    ]);
    expect(m.state.steps.screen!.state).toBe('ready');
  });

  it('pass: the step completes with the verdict in run data', () => {
    const { error, data, m } = submitWith(p, PASS);
    expect(error).toBeNull();
    expect(m.state.run.outcome).toBe('screened');
    expect(data.steps.screen.check).toMatchObject({ verdict: 'pass', advisory: false, model: 'judge-1' });
    expect(Object.keys(data.steps.screen)).toEqual(['output', 'summary', 'check', 'by', 'at', 'history']);
  });

  it('fail: not_accepted with one issue per failed question; run data unchanged; the verdict and issues in the handoff', () => {
    const { error, data, m } = submitWith(p, FAIL);
    expect(error).toBeInstanceOf(cmd.CheckFailed);
    expect((error as ToolError).code).toBe('not_accepted');
    expect((error as ToolError).issues).toEqual(['check: The verdict matches the report. → no (0.12)']);
    expect(data.steps.screen).toBeUndefined();
    expect(m.state.steps.screen!.handoff).toMatchObject({ issues: ['check: The verdict matches the report. → no (0.12)'], check: { verdict: 'fail' } });
    expect(m.state.steps.screen!.state).toBe('ready');
  });

  it('unsure: the submission is held as the candidate and the step escalated to the operators', () => {
    const { error, data, m } = submitWith(p, UNSURE);
    expect(error).toBeNull();
    const st = m.state.steps.screen!;
    expect(st.state).toBe('waiting');
    expect(m.state.leases.screen).toBeUndefined();
    expect(st.escalation).toMatchObject({ by: 'server', check: { verdict: 'unsure' }, candidate: { output: { cleared: true }, summary: 'Cleared on both lists.', by: 'bot' } });
    expect(data.steps.screen.check.verdict).toBe('unsure');
    const items = runView(m.state, m.pinned, m.ctx.now, null).workItems as any[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ stepId: 'screen', assignedTo: { group: 'operators' }, decide: { decisions: ['returned', 'completed', 'failed'] } });
  });

  it('unsure, then a person completes with the candidate: not checked again, the verdict stays in run data', () => {
    const { m } = submitWith(p, UNSURE);
    const wi = m.state.steps.screen!.workItem!;
    cmd.decide(m, { workItemId: wi, snapshot: snapshotOf(m.state, p), decision: 'completed' }, olga, groups, noFiles);
    expect(m.state.run.outcome).toBe('screened');
    const done = runData(m.state, p, null).steps.screen as any;
    expect(done).toMatchObject({ output: { cleared: true }, summary: 'Cleared on both lists.', check: { verdict: 'unsure' }, by: 'olga@example.com' });
  });

  it('unsure, then a person completes with their own output: accepted by the rules alone', () => {
    const { m } = submitWith(p, UNSURE);
    const wi = m.state.steps.screen!.workItem!;
    const bad = () => cmd.decide(m, { workItemId: wi, snapshot: snapshotOf(m.state, p), decision: 'completed', output: { cleared: 'yes' } }, olga, groups, noFiles);
    expect(bad).toThrow(ToolError);
    cmd.decide(m, { workItemId: wi, snapshot: snapshotOf(m.state, p), decision: 'completed', output: { cleared: false }, summary: 'Checked myself.' }, olga, groups, noFiles);
    expect((runData(m.state, p, null).steps.screen as any).output).toEqual({ cleared: false });
  });

  it('unsure, then returned: the agent’s next attempt sees the note, the verdict and the same issue lines', () => {
    const { m } = submitWith(p, UNSURE);
    const wi = m.state.steps.screen!.workItem!;
    cmd.decide(m, { workItemId: wi, snapshot: snapshotOf(m.state, p), decision: 'returned', note: 'Attach the EU list too.' }, olga, groups, noFiles);
    const st = m.state.steps.screen!;
    expect(st.state).toBe('ready');
    expect(st.handoff).toMatchObject({
      returned: { note: 'Attach the EU list too.', by: 'olga@example.com' },
      issues: ['check: The verdict matches the report. → no (0.7)'],
      check: { verdict: 'unsure' },
    });
  });

  it('error: retry, nothing changed; advisory records the error and completes', () => {
    const { error, m } = submitWith(p, { error: 'no answer within 1 s' });
    expect((error as ToolError).code).toBe('retry');
    expect((error as ToolError).message).toContain('no answer within 1 s');
    expect(m.state.steps.screen!.state).toBe('ready');
    const adv = pinned(SCREEN.replace('    check:\n', '    advisory: true\n    check:\n'));
    const r = submitWith(adv, { error: 'down' });
    expect(r.error).toBeNull();
    expect(r.data.steps.screen.check).toMatchObject({ verdict: 'error', advisory: true });
  });

  it('advisory: every verdict is recorded and none blocks', () => {
    const adv = pinned(SCREEN.replace('    check:\n', '    advisory: true\n    check:\n'));
    for (const [answers, verdict] of [
      [FAIL, 'fail'],
      [UNSURE, 'unsure'],
      [PASS, 'pass'],
    ] as const) {
      const r = submitWith(adv, answers);
      expect(r.error).toBeNull();
      expect(r.m.state.run.outcome).toBe('screened');
      expect(r.data.steps.screen.check).toMatchObject({ verdict, advisory: true });
    }
  });

  it('run data over checkStateBytes is cut oldest step first, inputs last, and the verdict says so', () => {
    const chain = pinned(`name: chain
description: d
inputs:
  vendor: string
steps:
  - id: one
    agent: First.
    output: { text: string }
  - id: two
    agent: Second.
    output: { text: string }
  - id: screen
    agent: Screen.
    output: { cleared: boolean }
    check: Fine?
  - id: done
    finish: screened
`);
    const limits = { ...LIMITS, checkStateBytes: 1000 };
    const c = clock(limits);
    const m = cmd.startRun(chain, { inputs: { vendor: 'Acme' }, mode: 'live' }, olga, c.ctx(), 'r-2');
    for (const id of ['one', 'two']) {
      const l = cmd.claim(m, id, agent);
      cmd.submit(m, id, l.claimId, { output: { text: `${id} `.repeat(100) }, summary: `did ${id}` }, agent, noFiles);
    }
    const req = checkRequest(m.state, chain, chain.process.steps[2]!, { output: { cleared: true }, summary: 's', by: 'bot', at: 'x' }, limits);
    expect(req.material.omitted).toEqual(['one']);
    expect(Object.keys(req.material.data.steps)).toEqual(['two']);
    expect(req.truncated).toBe(true);
    const tiny = checkRequest(m.state, chain, chain.process.steps[2]!, { output: {}, by: 'bot', at: 'x' }, { ...limits, checkStateBytes: 10 });
    expect(tiny.material.omitted).toEqual(['one', 'two', 'inputs']);
    const v = verdictOf(chain.process.steps[2]!, { material: req.hash, model: 'm', answers: [{ yes: 1 }] }, req, limits, 'now');
    expect(v.truncated).toBe(true);
  });
});

describe('a check on a person’s task', () => {
  const p = pinned(`name: letter
description: d
inputs:
  vendor: string
steps:
  - id: write
    person: writer
    task: Write the letter.
    output: { text: string }
    check: The letter is polite.
  - id: done
    finish: sent
`);
  const decideWith = (m: Machine, actor: Actor, d: Omit<Decision, 'snapshot' | 'workItemId'>, outcome?: (hash: string) => CheckOutcome) => {
    const wi = Object.values(m.state.steps).find((s) => s.workItem)!.workItem!;
    const call = (o?: CheckOutcome) => cmd.decide(m, { ...d, workItemId: wi, snapshot: snapshotOf(m.state, p) }, actor, groups, noFiles, o);
    try {
      call();
    } catch (e) {
      if (!(e instanceof NeedsCheck) || !outcome) throw e;
      call(outcome(e.request.hash));
    }
  };

  it('a failing check refuses the person’s completion too; an unsure one escalates; returned goes back to the writer', () => {
    const c = clock();
    const m = cmd.startRun(p, { inputs: { vendor: 'Acme' }, mode: 'live' }, olga, c.ctx(), 'r-3');
    const first = m.state.steps.write!.workItem;
    expect(() => decideWith(m, ann, { decision: 'completed', output: { text: 'Pay now.' } }, (h) => ({ material: h, model: 'j', answers: [{ yes: 0.1 }] }))).toThrow(
      expect.objectContaining({ code: 'not_accepted', issues: ['check: The letter is polite. → no (0.1)'] }),
    );
    // the default checkFail is none, so 0.5 fails; with a checkFail of 0.4 it is unsure
    expect(() => decideWith(m, ann, { decision: 'completed', output: { text: 'Dear Acme…' } }, (h) => ({ material: h, model: 'j', answers: [{ yes: 0.5 }] }))).toThrow(
      expect.objectContaining({ code: 'not_accepted' }),
    );
    expect(m.state.steps.write!.state).toBe('waiting');
    expect(m.state.steps.write!.handoff?.check?.verdict).toBe('fail');
    expect(m.state.steps.write!.workItem).toBe(first);
    const m2 = new Machine(structuredClone(m.state), p, clock({ ...LIMITS, checkFail: 0.4 }).ctx());
    decideWith(m2, ann, { decision: 'completed', output: { text: 'Dear Acme…' } }, (h) => ({ material: h, model: 'j', answers: [{ yes: 0.5 }] }));
    const st = m2.state.steps.write!;
    expect(st.escalation?.check?.verdict).toBe('unsure');
    expect(st.workItem).not.toBe(first);
    expect((runView(m2.state, p, m2.ctx.now, null).workItems as any[])[0]).toMatchObject({ assignedTo: { group: 'operators' }, decide: { decisions: ['returned', 'completed', 'failed'] } });
    // the writer can no longer decide it; an operator returns it to the writer
    expect(() => decideWith(m2, ann, { decision: 'completed', output: { text: 'x' } })).toThrow(expect.objectContaining({ code: 'forbidden' }));
    decideWith(m2, olga, { decision: 'returned', note: 'Warmer, please.' });
    const back = m2.state.steps.write!;
    expect(back.state).toBe('waiting');
    expect(back.escalation).toBeNull();
    expect(back.handoff).toMatchObject({ returned: { note: 'Warmer, please.' }, check: { verdict: 'unsure' } });
    expect((runView(m2.state, p, m2.ctx.now, null).workItems as any[])[0]).toMatchObject({ assignedTo: { group: 'writers' } });
    // the writer's next completion is an ordinary task again, so it is checked again (unsure once more)
    decideWith(m2, ann, { decision: 'completed', output: { text: 'Dear Acme, warmly…' } }, (h) => ({ material: h, model: 'j', answers: [{ yes: 0.5 }] }));
    const again = m2.state.steps.write!;
    expect(again.escalation?.check?.verdict).toBe('unsure');
    // an operator completing the escalated task is not checked (no verdict is asked for: decideWith gives none)
    decideWith(m2, olga, { decision: 'completed', output: { text: 'Signed off by ops.' } });
    expect(m2.state.run.outcome).toBe('sent');
  });
});

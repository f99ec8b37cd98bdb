/**
 * What each committed write on a run answers, typed by its tool: a claim its
 * token and everything the agent needs for the step, a renewal its token, an
 * event the step it completed, the others the run's view, which shows every
 * transition the write triggered, run state included (docs/agents.md "The
 * tools"). Keyed by every write tool, so a write without its answer is a
 * compile error, and `runWrite` returns its own tool's result type.
 */
import type { Plan } from '../engine/execute.js';
import { levelName } from '../engine/priority.js';
import type { Lease, Pinned, RunRecord } from '../engine/types.js';
import { requirements, runData, runView, type FileUrl } from '../engine/view.js';
import type { RunWriteTool } from '../protocol/calls.js';
import type { ClaimAnswer, ToolData } from '../protocol/tool-data.js';
import type { TokenKey } from './tokens.js';

type Committed = Extract<Plan, { kind: 'commit' }>;

export type WriteAnswers = { [T in RunWriteTool]: (plan: Committed, pinned: Pinned, now: Date) => ToolData[T] };

export function writeAnswers(tokens: Pick<TokenKey, 'sign'>, fileUrl: FileUrl): WriteAnswers {
  const tokenOf = (plan: Committed, lease: Lease) => tokens.sign({ runId: plan.state.run.id, stepId: lease.stepId, claimId: lease.claimId, expiresAt: lease.expiresAt, agent: lease.agent });
  const view = (plan: Committed, pinned: Pinned, now: Date) => runView(plan.state, pinned, now, fileUrl);
  const claim = (plan: Committed, pinned: Pinned): ClaimAnswer => {
    const lease = leaseOf(plan);
    const def = pinned.process.steps.find((s) => s.id === lease.stepId);
    const claimed = plan.state.steps[lease.stepId];
    if (!def || !claimed) throw new Error(`the claimed step ${lease.stepId} is not a step of ${pinned.process.name} v${pinned.version}`);
    const req = requirements(def);
    return {
      token: tokenOf(plan, lease),
      expiresAt: lease.expiresAt,
      mode: plan.state.run.mode,
      step: { id: def.id, instructions: def.value, output: req.output, evidence: req.evidence, next: req.next },
      handoff: claimed.handoff,
      body: pinned.process.body,
      data: runData(plan.state, pinned, fileUrl),
      ...claimExtensions(plan.state.run),
    };
  };
  return {
    claim,
    renew: (plan) => {
      const lease = leaseOf(plan);
      return { token: tokenOf(plan, lease), expiresAt: lease.expiresAt };
    },
    submit: view,
    escalate: view,
    decide: view,
    cancel: view,
    send_event: (plan) => {
      const result = plan.result;
      if (!result || !('consumedBy' in result)) throw new Error('the engine committed an event without saying which step it completed');
      return { consumedBy: result.consumedBy };
    },
  };
}

/** The lease a committed claim or renewal made; the engine gives one for each. */
function leaseOf(plan: Committed): Lease {
  const result = plan.result;
  if (!result || !('lease' in result)) throw new Error('the engine committed a claim or renewal without its lease');
  return result.lease;
}

/** flow-1: what a claim on a run of a process with `flow:` carries in `extensions` (docs/profile-flow-1.md "4. What a claim carries"). */
function claimExtensions(run: RunRecord): Pick<ClaimAnswer, 'extensions'> {
  if (run.priority === undefined) return {};
  return { extensions: { 'flow-1': { priority: run.priority, priorityName: levelName(run.priority), blockedBy: run.blockedBy ?? [] } } };
}

/**
 * The engine's commands as the engine tests call them: a command that stops
 * throws what it returned (the refusal's ToolError; `NeedsCheck` for a
 * verdict it needs; `CheckFailed` for a refusal that keeps the verdict), so
 * each test asserts on one exception as before the engine returned values.
 * The commands themselves run unchanged; only the signalling is adapted.
 */
import type { CheckRequest } from '../../src/engine/check.js';
import * as commands from '../../src/engine/commands.js';
import * as decisions from '../../src/engine/decide.js';
import { ToolError } from '../../src/protocol/errors.js';

export class NeedsCheck extends Error {
  constructor(readonly request: CheckRequest) {
    super('a check verdict is needed');
  }
}

/** A refusal that keeps what the command found (a failed check's verdict in the handoff). */
export class CheckFailed extends ToolError {}

function unwrap<T>(x: T | commands.Stop): T {
  if (!commands.isStop(x)) return x;
  if ('check' in x) throw new NeedsCheck(x.check);
  if (x.keep === 'run') throw new CheckFailed(x.refuse.code, x.refuse.message, x.refuse.issues);
  throw x.refuse;
}

type Args<F> = F extends (...a: infer A) => unknown ? A : never;

export const cmd = {
  startRun: (...a: Args<typeof commands.startRun>) => unwrap(commands.startRun(...a)),
  claim: (...a: Args<typeof commands.claim>) => unwrap(commands.claim(...a)),
  renew: (...a: Args<typeof commands.renew>) => unwrap(commands.renew(...a)),
  submit: (...a: Args<typeof commands.submit>) => void unwrap(commands.submit(...a)),
  escalate: (...a: Args<typeof commands.escalate>) => void unwrap(commands.escalate(...a)),
  // The engine tests decide without the board's four-eyes policy: groups only.
  decide: (
    m: Args<typeof decisions.decide>[0],
    d: decisions.Decision,
    actor: Args<typeof decisions.decide>[2],
    groups: Record<string, string[]>,
    ...rest: Args<typeof decisions.decide> extends [unknown, unknown, unknown, unknown, ...infer R] ? R : never
  ) => void unwrap(decisions.decide(m, d, actor, { groups, fourEyes: false }, ...rest)),
  cancel: (...a: Args<typeof commands.cancel>) => void unwrap(commands.cancel(...a)),
  sendEvent: (...a: Args<typeof commands.sendEvent>) => unwrap(commands.sendEvent(...a)).consumedBy,
  mayDecide: decisions.mayDecide,
  CheckFailed,
};

export type Decision = decisions.Decision;

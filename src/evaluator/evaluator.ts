/**
 * Ask the configured evaluator about one check request (docs/processes.md "Verdicts"): one
 * attempt, and one retry when it does not answer; each attempt bounded by
 * the configured timeout. Never throws: a failure is an `error` outcome.
 */
import type { EvaluatorConfig } from '../board/manifest.js';
import type { CheckOutcome, CheckRequest } from '../engine/check.js';
import { askChat } from './chat.js';
import { askCommand } from './command.js';

export async function evaluate(cfg: EvaluatorConfig | null, request: CheckRequest, boardRoot: string): Promise<CheckOutcome> {
  if (!cfg) return { material: request.hash, model: 'none', error: 'no evaluator is configured in WORK.md' };
  const model = cfg.kind === 'chat' ? cfg.model : (cfg.model ?? cfg.command);
  let last = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const signal = AbortSignal.timeout(cfg.timeoutSeconds * 1000);
    try {
      const r = cfg.kind === 'chat' ? await askChat(cfg, request, signal) : await askCommand(cfg, request, signal, boardRoot);
      return { material: request.hash, model: r.model, answers: r.answers };
    } catch (e) {
      last = signal.aborted ? `no answer within ${cfg.timeoutSeconds} s` : e instanceof Error ? e.message : String(e);
    }
  }
  return { material: request.hash, model, error: `twice: ${last}` };
}

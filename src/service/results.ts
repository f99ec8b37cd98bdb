/**
 * What a tool call answers when it does not succeed: refusals as the
 * contract's `{ok: false, error}`, and faults told apart: a full disk or a
 * passing shortage is `retry`; anything else is an incident, answered `retry`
 * with `internal_fault` twice for one call, then `conflict`, so an agent that
 * follows only the codes stops.
 */
import { BoardError, faultOf, retryError } from '../board/errors.js';
import type { Board } from '../board/board.js';
import { BoundedMap } from '../core/bounded-map.js';
import { canonicalJson, sha256Hex } from '../core/hash.js';
import { issueText } from '../core/issues.js';
import { ToolError } from '../protocol/errors.js';
import type { Result } from '../protocol/tool-data.js';
import { tellOperators } from '../notify/tell.js';
import { recordIncident } from './incidents.js';

/** A result as the wire carries it, its data not yet typed by tool. */
export type ToolResult = Result;
/** A call that did not succeed: what every tool, typed or not, answers then. */
export type Refusal = Extract<Result, { ok: false }>;

/** How many times one call's internal fault is answered `retry` before `conflict` says to stop. */
const FAULT_RETRIES = 3;
/** Operators hear of internal faults at most once per this long from one process. */
const TELL_QUIET_MS = 10 * 60_000;

export function toError(e: ToolError | BoardError): Refusal {
  if (e instanceof ToolError) return { ok: false, error: { code: e.code, message: e.message, ...(e.issues.length > 0 ? { issues: e.issues } : {}) } };
  if (e.code === 'busy') return { ok: false, error: { code: 'retry', message: e.message } };
  if (e.code === 'conflict') return { ok: false, error: { code: 'conflict', message: e.message, issues: e.issues.map(issueText) } };
  return { ok: false, error: { code: 'conflict', message: `${e.message}; an operator must fix the board (workboard doctor)`, issues: ['board_file_invalid', ...e.issues.map(issueText)] } };
}

export class Failures {
  /** Internal faults answered so far per call (tool and arguments). */
  private readonly faults = new BoundedMap<string, number>(1000);

  /** When operators were last told of an internal fault by this process: at most one message per quiet period. */
  private toldAt = 0;

  constructor(
    private readonly board: Board,
    private readonly now: () => Date,
  ) {}

  async answer(e: unknown, tool: string, args: unknown): Promise<Refusal> {
    if (e instanceof ToolError || e instanceof BoardError) return toError(e);
    const fault = faultOf(e);
    const retry = retryError(fault);
    if (retry) return { ok: false, error: retry };
    const incident = recordIncident(this.board.state, tool, e, this.now());
    if (this.now().getTime() - this.toldAt > TELL_QUIET_MS) {
      this.toldAt = this.now().getTime();
      await tellOperators(this.board, 'internal_fault', this.now(), {
        subject: `Internal fault in ${tool} (incident ${incident})`,
        text: `${fault.message}\nworkboard doctor shows the incident; the caller was answered retry.`,
      });
    }
    // One call is the same tool with the same arguments (a write's requestId among them): another call's fault never counts against it.
    const key = `${tool}|${callKey(args)}`;
    const answered = (this.faults.get(key) ?? 0) + 1;
    this.faults.set(key, answered);
    const issues = ['internal_fault', `incident: ${incident}`];
    if (answered >= FAULT_RETRIES) {
      return { ok: false, error: { code: 'conflict', message: `internal fault (incident ${incident}), again: retrying will not help; an operator must look (workboard doctor)`, issues } };
    }
    return {
      ok: false,
      error: { code: 'retry', message: `internal fault (incident ${incident}): ${fault.message}; retry at most ${FAULT_RETRIES - answered} more time(s), then stop and tell an operator`, issues },
    };
  }
}

function callKey(args: unknown): string {
  try {
    return sha256Hex(canonicalJson(args ?? null));
  } catch {
    return String(args);
  }
}

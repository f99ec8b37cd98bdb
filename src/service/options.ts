/**
 * How a Service is opened (its clock, its offer, what it is told of), and
 * the record of each tool call it passes to an observer such as serve's
 * metrics and log.
 */
import type { Evaluate } from './writes.js';
import type { Offer, Tool } from '../protocol/offer.js';
import type { Actor } from '../engine/types.js';

export interface ServiceOptions {
  now?: () => Date;
  offer?: Offer;
  /** Told how reading the board's runs goes, for progress on a large board. */
  onIndexProgress?: (done: number, total: number) => void;
  /** Keep open runs' states in `.work/open-runs.json` for the next process (`saveKept`): for the CLI, a process per command. */
  keepOpenRuns?: boolean;
  /** Asks WORK.md's check evaluator; the shell that serves writes plugs it in. Absent: every check answers as an evaluator failure. */
  evaluate?: Evaluate;
  /** Told of every tool call as it ends: serve's metrics and log (docs/operations.md). */
  observe?: (call: CallRecord) => void;
}

/** Which transport a call came through: MCP (stdio or HTTP), the web app's forms, Slack's buttons, or the server itself. */
export type Transport = 'mcp' | 'web' | 'slack' | 'internal';

/** One tool call as it ended. */
export interface CallRecord {
  /** The tool's name, or null for a name that is none of the fourteen (kept out of metric labels). */
  tool: Tool | null;
  transport: Transport;
  /** 'ok', or the error code answered. */
  code: string;
  seconds: number;
  actor: Actor;
  /** The call's own requestId, when it gave one. */
  requestId?: string;
}

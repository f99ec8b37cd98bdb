/**
 * What each of the fourteen tools answers on success, as types: the `data`
 * of its result. Keyed by every Tool, so a tool without its answer type is a
 * compile error; with ToolArgs this is the typed boundary every caller in
 * the project goes through (`Service.call`), so no caller reads a result by cast.
 */
import type { Handoff } from './completions.js';
import type { Tool } from './offer.js';
import type { Page, ProcessSummary, Requirements, RunData, RunRow, RunView, WorkEntry } from './views.js';

/** `describe`: the protocol, what this board offers, and its limits. */
export interface Description {
  protocol: 'agentprocess';
  version: string;
  profiles: string[];
  leaseSeconds: number;
  person: { format: 'email' };
  tools: string[];
  maxUploadBytes: number;
  limits: { runDataBytes: number; checkPass: number; checkFail: number | null; checkConfidence: number; checkStateBytes: number };
}

/** `renew`: the claim token again, with its new expiry. */
export interface Renewal {
  token: string;
  expiresAt: string;
}

/** `claim`: the token and everything the agent needs to do the step. */
export interface ClaimAnswer extends Renewal {
  mode: 'live' | 'test';
  step: { id: string; instructions: string } & Requirements;
  handoff: Handoff | null;
  body: string;
  data: RunData;
  /** What a profile adds to a claim (flow-1's priority and blockers: docs/profile-flow-1.md "4. What a claim carries"). */
  extensions?: Record<string, unknown>;
}

/** `upload`: the stored file's ref, hash and size. */
export interface UploadAnswer {
  id: string;
  sha256: string;
  bytes: number;
}

/** `send_event`: the waiting step the event completed, or null when the run holds it for later. */
export interface EventAnswer {
  consumedBy: string | null;
}

// Indexing by every Tool keeps the map complete when a tool is added.
export type ToolData = { [T in Tool]: ToolDataMap[T] };

interface ToolDataMap {
  describe: Description;
  list_processes: Page<ProcessSummary>;
  get_run: RunView;
  get_work: Page<WorkEntry>;
  list_runs: Page<RunRow>;
  start_run: RunView;
  upload: UploadAnswer;
  claim: ClaimAnswer;
  renew: Renewal;
  submit: RunView;
  escalate: RunView;
  decide: RunView;
  cancel: RunView;
  send_event: EventAnswer;
}

/** A refusal or fault as every tool answers it. */
export interface ToolFailure {
  code: string;
  message: string;
  issues?: string[];
}

/** A tool's result: its data, or why not. */
export type Result<D = unknown> = { ok: true; data: D } | { ok: false; error: ToolFailure };

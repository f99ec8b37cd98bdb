/**
 * What each of the fourteen tools answers on success, as types: the `data`
 * of its result. Keyed by every Tool, so a tool without its answer type is a
 * compile error; with ToolArgs this is the typed boundary every caller in
 * the project goes through (`Service.call`), so no caller reads a result by cast.
 * The small answers are the types generated from schemas/results
 * (tool-results.ts); the views the engine builds are its own types, and
 * `Fits` below makes each of them fit the generated one, so code cannot
 * build an answer the schema refuses without the compiler saying so
 * (docs/architecture.md "The tools' contract").
 */
import type { Handoff } from './completions.js';
import type { Tool } from './offer.js';
import type { DescribeResult, RenewResult, SendEventResult, ToolFailure, ToolResults, UploadResult } from './tool-results.js';
import type { Page, ProcessSummary, Requirements, RunData, RunRow, RunView, WorkEntry } from './views.js';

/** `describe`: the protocol, what this board offers, and its limits. */
export type Description = DescribeResult;

/** `renew`: the claim token again, with its new expiry. */
export type Renewal = RenewResult;

/** `claim`: the token and everything the agent needs to do the step. */
export interface ClaimAnswer extends Renewal {
  mode: 'live' | 'test';
  step: { id: string; instructions: string } & Requirements;
  handoff: Handoff | null;
  body: string;
  data: RunData;
  /** What a profile adds to a claim (flow-1's priority and blockers: docs/profile-flow-1.md "4. What a claim carries"). */
  extensions?: ToolResults['claim']['extensions'];
}

/** `upload`: the stored file's ref, hash and size. */
export type UploadAnswer = UploadResult;

/** `send_event`: the waiting step the event completed, or null when the run holds it for later. */
export type EventAnswer = SendEventResult;

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
export type { ToolFailure };

/** A tool's result: its data, or why not. */
export type Result<D = unknown> = { ok: true; data: D } | { ok: false; error: ToolFailure };

/** A compile error unless A fits B. */
type Fits<A extends B, B> = A;

/**
 * Where the code's type is still wider than what the schema (and the wire)
 * says, checked at run time by the tests only: `list_processes`'s inputs are
 * the process's fields as its author wrote them, read as plain records.
 */
type Wider = 'list_processes';

/** Every other tool's answer type fits its generated result type (named one by one: a mapped type is checked as a whole). */
export interface AnswersFitSchemas {
  describe: Fits<ToolData['describe'], ToolResults['describe']>;
  get_run: Fits<ToolData['get_run'], ToolResults['get_run']>;
  list_runs: Fits<ToolData['list_runs'], ToolResults['list_runs']>;
  start_run: Fits<ToolData['start_run'], ToolResults['start_run']>;
  upload: Fits<ToolData['upload'], ToolResults['upload']>;
  claim: Fits<ToolData['claim'], ToolResults['claim']>;
  renew: Fits<ToolData['renew'], ToolResults['renew']>;
  submit: Fits<ToolData['submit'], ToolResults['submit']>;
  escalate: Fits<ToolData['escalate'], ToolResults['escalate']>;
  decide: Fits<ToolData['decide'], ToolResults['decide']>;
  cancel: Fits<ToolData['cancel'], ToolResults['cancel']>;
  send_event: Fits<ToolData['send_event'], ToolResults['send_event']>;
  get_work: Fits<ToolData['get_work'], ToolResults['get_work']>;
  /** Not yet: the tool named in Wider. */
  wider: Wider;
}

/**
 * The tools' arguments as TypeScript types, generated from their JSON Schemas
 * (schemas/tools/) by scripts/tool-types.mjs. Do not edit by hand: change
 * the schema and run `node scripts/tool-types.mjs`.
 */

/**
 * Cancel an active or waiting run, with a reason. Operators only.
 */
export interface CancelArgs {
  /**
   * The run's id, e.g. r-01jd...
   */
  runId: string;
  reason: string;
  /**
   * A fresh id for this write; repeating it returns the original result.
   */
  requestId: string;
}

/**
 * Claim a ready agent step: a token, its expiry, the step, the process body, the run data and the handoff.
 */
export interface ClaimArgs {
  /**
   * The run's id, e.g. r-01jd...
   */
  runId: string;
  stepId: string;
  /**
   * A fresh id for this write; repeating it returns the original result.
   */
  requestId: string;
}

/**
 * A person's decision on a work item, with the snapshot from the read that showed it.
 */
export interface DecideArgs {
  /**
   * The run's id, e.g. r-01jd...
   */
  runId: string;
  workItemId: string;
  snapshot: string;
  decision: 'completed' | 'approved' | 'rejected' | 'returned' | 'failed';
  output?: {
    [k: string]: unknown | undefined;
  };
  /**
   * @maxItems 100
   */
  evidence?: {
    kind: 'file' | 'link';
    ref: string;
  }[];
  summary?: string;
  next?: string;
  reason?: string;
  note?: string;
  /**
   * A fresh id for this write; repeating it returns the original result.
   */
  requestId: string;
}

/**
 * What this server offers: protocol version, profiles, lease length, person format, tools, limits.
 */
export interface DescribeArgs {}

/**
 * Hand a claimed step to a person with a note saying why you cannot finish it.
 */
export interface EscalateArgs {
  /**
   * The claim token from claim or renew.
   */
  token: string;
  note: string;
  /**
   * A fresh id for this write; repeating it returns the original result.
   */
  requestId: string;
}

/**
 * The run view: run data, step states, open work items with a fresh snapshot. Never a token.
 */
export interface GetRunArgs {
  /**
   * The run's id, e.g. r-01jd...
   */
  runId: string;
}

/**
 * Work for the caller, oldest first: ready agent steps to claim (agents) or open work items to decide (people).
 */
export interface GetWorkArgs {
  limit?: number;
  /**
   * nextCursor from the previous page.
   */
  cursor?: string;
  process?: string;
}

/**
 * Published processes: name, description, latest version, inputs, required systems.
 */
export interface ListProcessesArgs {
  /**
   * nextCursor from the previous page.
   */
  cursor?: string;
}

/**
 * Runs, newest first, filtered by process, state and input equality.
 */
export interface ListRunsArgs {
  process?: string;
  state?: 'active' | 'waiting' | 'ended' | 'cancelled';
  inputs?: {
    [k: string]: unknown | undefined;
  };
  limit?: number;
  /**
   * nextCursor from the previous page.
   */
  cursor?: string;
}

/**
 * Extend a claim: a new token and expiry; the old token stops working at once. Optionally leave a progress note.
 */
export interface RenewArgs {
  /**
   * The claim token from claim or renew.
   */
  token: string;
  progress?: string;
  /**
   * A fresh id for this write; repeating it returns the original result.
   */
  requestId: string;
}

/**
 * Deliver a named event to a run: it satisfies a waiting wait_for step, or is held until one is ready.
 */
export interface SendEventArgs {
  /**
   * The run's id, e.g. r-01jd...
   */
  runId: string;
  name: string;
  data?: {
    [k: string]: unknown | undefined;
  };
  /**
   * A fresh id for this write; repeating it returns the original result.
   */
  requestId: string;
}

/**
 * Start a run of a published process. Inputs are checked against the process's inputs.
 */
export interface StartRunArgs {
  process: string;
  version?: number;
  inputs: {
    [k: string]: unknown | undefined;
  };
  mode?: 'live' | 'test';
  /**
   * A fresh id for this write; repeating it returns the original result.
   */
  requestId: string;
}

/**
 * Submit a claimed step: output, evidence, a summary of what you did, and next with a reason when the step offers routes.
 */
export interface SubmitArgs {
  /**
   * The claim token from claim or renew.
   */
  token: string;
  output: {
    [k: string]: unknown | undefined;
  };
  /**
   * @maxItems 100
   */
  evidence?: {
    kind: 'file' | 'link';
    ref: string;
  }[];
  summary?: string;
  next?: string;
  reason?: string;
  /**
   * A fresh id for this write; repeating it returns the original result.
   */
  requestId: string;
}

/**
 * Store a file for file evidence; returns its id and sha256.
 */
export interface UploadArgs {
  fileName: string;
  contentType: string;
  contentBase64: string;
  /**
   * A fresh id for this write; repeating it returns the original result.
   */
  requestId: string;
}

/** Each tool's arguments by tool name. */
export interface ToolArgs {
  cancel: CancelArgs;
  claim: ClaimArgs;
  decide: DecideArgs;
  describe: DescribeArgs;
  escalate: EscalateArgs;
  get_run: GetRunArgs;
  get_work: GetWorkArgs;
  list_processes: ListProcessesArgs;
  list_runs: ListRunsArgs;
  renew: RenewArgs;
  send_event: SendEventArgs;
  start_run: StartRunArgs;
  submit: SubmitArgs;
  upload: UploadArgs;
}

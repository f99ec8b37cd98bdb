/**
 * The tools' results as TypeScript types, generated from their JSON Schemas
 * (schemas/results/) by scripts/tool-types.mjs. Do not edit by hand: change
 * the schema and run `node scripts/tool-types.mjs`.
 */

export type Mode = 'live' | 'test';
export type RunState = 'active' | 'waiting' | 'ended' | 'cancelled';
/**
 * Who ended the run, when, and the note (a cancel's reason, a failed decision's note, null for a finish); null while the run is open.
 */
export type Ended = {
  by: string;
  at: Time;
  note: string | null;
} | null;
/**
 * An instant as RFC 3339 text with its offset.
 */
export type Time = string;
export type EvidenceKind = 'file' | 'link';
export type Sha256 = string;
/**
 * A declared field as the process wrote it: a bare type, or a type with its description, optional flag, allowed values and item type.
 */
export type Field =
  | FieldType
  | {
      type: FieldType;
      description?: string;
      optional?: boolean;
      /**
       * @minItems 1
       */
      one_of?: (string | number | boolean)[];
      items?: Field;
    };
export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'datetime' | 'list' | 'object' | 'person';
/**
 * Why a step waits on a person: the agent's note, or a check that was unsure with the submission it held. Null when the step was not escalated.
 */
export type Escalation = {
  note: string;
  by: string;
  at: Time;
  check?: Verdict;
  candidate?: Completion;
} | null;
/**
 * What earlier attempts at a step left for the next one: progress from an expired lease, a person's return note, why a submission was not accepted, a check's verdict. Null on a first attempt.
 */
export type Handoff = {
  progress?: string;
  returned?: Note;
  issues?: string[];
  check?: Verdict;
} | null;
export type Decision = 'completed' | 'approved' | 'rejected' | 'returned' | 'failed';
/**
 * Pass it as cursor for the next page; null on the last page.
 */
export type NextCursor = string | null;

/**
 * Each tool's answer on success (the `data` of `{ ok: true, data }`) by tool name.
 */
export interface ToolResults {
  cancel: RunView;
  claim: ClaimResult;
  decide: RunView;
  describe: DescribeResult;
  escalate: RunView;
  get_run: RunView;
  get_work: GetWorkResult;
  list_processes: ListProcessesResult;
  list_runs: ListRunsResult;
  renew: RenewResult;
  send_event: SendEventResult;
  start_run: RunView;
  submit: RunView;
  upload: UploadResult;
}
/**
 * A run as every tool that reads or moves one answers it: its header, its data, every step's state, the open work items and the process body.
 */
export interface RunView {
  run: RunSummary;
  data: RunData;
  steps: StepState[];
  workItems: WorkItem[];
  body: string;
}
/**
 * A run's header: which process and version it runs, its state and outcome, who started it and when it last moved.
 */
export interface RunSummary {
  id: string;
  process: string;
  version: number;
  mode: Mode;
  state: RunState;
  outcome: string | null;
  ended: Ended;
  startedBy: string;
  startedAt: Time;
  updatedAt: Time;
}
/**
 * A run's inputs and what each reached step recorded.
 */
export interface RunData {
  inputs: FreeObject;
  steps: {
    [k: string]: StepData | undefined;
  };
}
/**
 * Data whose keys the process or the caller chose.
 */
export interface FreeObject {
  [k: string]: unknown | undefined;
}
/**
 * A step's entry in run data: its current completion's fields, if any, and every earlier completion in `history`, oldest first.
 */
export interface StepData {
  output?: FreeObject;
  evidence?: Evidence[];
  summary?: string;
  next?: string;
  reason?: string;
  decision?: 'approved' | 'rejected' | 'failed';
  note?: string;
  check?: Verdict;
  by?: string;
  at?: Time;
  history: Completion[];
}
/**
 * One piece of evidence as run data shows it: a stored file carries its hash and, where the transport serves files, a download address.
 */
export interface Evidence {
  kind: EvidenceKind;
  ref: string;
  sha256?: Sha256;
  url?: string;
}
/**
 * What a check concluded of a submission (check-1).
 */
export interface Verdict {
  verdict: 'pass' | 'fail' | 'unsure' | 'error';
  advisory: boolean;
  model: string;
  questions: QuestionResult[];
  truncated?: boolean;
  at: Time;
}
/**
 * One question of a check, with the model's answer and how it was judged.
 */
export interface QuestionResult {
  ask: string;
  kind: 'yes_no' | 'choice' | 'rubric';
  answer: number | string | null;
  confidence?: number;
  result: 'pass' | 'fail' | 'unsure';
}
/**
 * One completion of a step: what was submitted or decided, by whom and when. An approval shows only its decision, note, who and when.
 */
export interface Completion {
  output?: FreeObject;
  evidence?: Evidence[];
  summary?: string;
  next?: string;
  reason?: string;
  decision?: 'approved' | 'rejected' | 'failed';
  note?: string;
  check?: Verdict;
  by?: string;
  at?: Time;
}
/**
 * One step of the process and where it stands; state is null for a step not reached now. A subprocess step (flow-1) shows as wait_for.
 */
export interface StepState {
  id: string;
  kind: 'agent' | 'task' | 'approve' | 'wait' | 'wait_until' | 'wait_for' | 'finish' | 'parallel';
  state: 'ready' | 'claimed' | 'waiting' | 'done' | 'failed' | 'cancelled' | null;
  due?: Time;
  overdue?: boolean;
}
/**
 * Something a person must decide, with the exact decide call to make and the decisions it accepts.
 */
export interface WorkItem {
  id: string;
  stepId: string;
  kind: 'agent' | 'task' | 'approve';
  text: string;
  /**
   * The output fields the step asks for; null on an approval.
   */
  output: Fields | null;
  /**
   * The evidence kinds the step asks for; null on an approval.
   */
  evidence: EvidenceKind[] | null;
  /**
   * The routes to choose from when the step's next is a list, else null.
   */
  next: Route[] | null;
  /**
   * A group for a role, or a person.
   */
  assignedTo:
    | {
        group: string;
      }
    | {
        person: string;
      };
  /**
   * What the item looked like at this read; decide sends it back.
   */
  snapshot: string;
  due: Time | null;
  escalation: Escalation;
  handoff: Handoff;
  /**
   * Present only on a run started in test mode.
   */
  mode?: 'test';
  decide: {
    tool: 'decide';
    arguments: {
      runId: string;
      workItemId: string;
      snapshot: string;
      requestId: string;
    };
    /**
     * @minItems 1
     */
    decisions: Decision[];
  };
}
/**
 * Declared fields by name.
 */
export interface Fields {
  [k: string]: Field | undefined;
}
/**
 * A step a submission may name in `next`, and when to choose it.
 */
export interface Route {
  to: string;
  when?: string;
}
/**
 * A note someone left, with who and when.
 */
export interface Note {
  note: string;
  by: string;
  at: Time;
}
/**
 * The claim: its token and expiry, the step with its instructions and requirements, what earlier attempts left, the process body and the run data. What a profile adds for the step rides in extensions, keyed by profile.
 */
export interface ClaimResult {
  token: string;
  expiresAt: Time;
  mode: Mode;
  step: {
    id: string;
    instructions: string;
    output: Fields | null;
    evidence: EvidenceKind[] | null;
    next: Route[] | null;
  };
  handoff: Handoff;
  body: string;
  data: RunData;
  extensions?: {
    [k: string]: FreeObject | undefined;
  };
}
/**
 * What this server offers: the protocol and its version, the profiles on offer, the lease length, how people are named, the tools, the upload size and the board's limits.
 */
export interface DescribeResult {
  protocol: 'agentprocess';
  version: string;
  profiles: string[];
  leaseSeconds: number;
  person: {
    format: 'email';
  };
  tools: string[];
  maxUploadBytes: number;
  limits: {
    runDataBytes: number;
    checkPass: number;
    checkFail: number | null;
    checkConfidence: number;
    checkStateBytes: number;
  };
}
/**
 * A page of what the caller may act on: claimable steps for an agent, work items for a person, oldest first.
 */
export interface GetWorkResult {
  items: (
    | {
        runId: string;
        stepId: string;
        process: string;
        version: number;
        mode: Mode;
        readySince: Time;
        due: Time | null;
        overdue: boolean;
        handoff: Handoff;
        claim: {
          tool: 'claim';
          arguments: {
            runId: string;
            stepId: string;
            requestId: string;
          };
        };
      }
    | {
        runId: string;
        process: string;
        version: number;
        mode: Mode;
        workItem: WorkItem;
      }
  )[];
  nextCursor: NextCursor;
}
/**
 * A page of the published processes, each at its latest version, with the inputs a start takes.
 */
export interface ListProcessesResult {
  items: {
    name: string;
    description: string;
    version: number;
    inputs: Fields;
    requires?: {
      /**
       * @minItems 1
       */
      systems: string[];
    };
  }[];
  nextCursor: NextCursor;
}
/**
 * A page of runs, newest first, each with its header and inputs.
 */
export interface ListRunsResult {
  items: {
    id: string;
    process: string;
    version: number;
    state: RunState;
    outcome: string | null;
    startedAt: Time;
    updatedAt: Time;
    inputs: FreeObject;
  }[];
  nextCursor: NextCursor;
}
/**
 * A new token for the same claim, and when it now expires; the old token no longer works.
 */
export interface RenewResult {
  token: string;
  expiresAt: Time;
}
/**
 * Which waiting step the event completed, or null when the run holds it for a wait not yet reached.
 */
export interface SendEventResult {
  consumedBy: string | null;
}
/**
 * The stored file: the ref evidence names it by, its SHA-256 and its size.
 */
export interface UploadResult {
  id: string;
  sha256: Sha256;
  bytes: number;
}

/**
 * Why a call was refused: one of the seven codes, a message for people, and the issues an agent can act on.
 */
export interface ToolFailure {
  code: 'invalid' | 'not_accepted' | 'stale' | 'conflict' | 'forbidden' | 'not_found' | 'retry';
  message: string;
  issues?: string[];
}

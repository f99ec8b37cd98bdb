/**
 * The service test harness: a real board in a temp dir, people and agents
 * declared in WORK.md before the service opens, processes published with
 * their role → group maps, a clock the test moves by hand, and `call`, the
 * one way every service test reaches the tools.
 *
 * `call` validates every result and every error against the project's own
 * result schemas (schemas/results, test/support/result-schemas.ts) and the
 * upstream JSON Schemas (../shared/schemas/core-2), and fails the calling
 * test at once when one does not match. When ../shared is absent only our
 * own schemas are checked.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ajvFormats from 'ajv-formats';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { stringify } from 'yaml';
import { Board } from '../../src/board/board.js';
import { evaluate } from '../../src/evaluator/evaluator.js';
import { publish } from '../../src/board/processes.js';
import type { Actor } from '../../src/engine/types.js';
import { resolveActor } from '../../src/service/identity.js';
import { offerFor } from '../../src/service/context.js';
import type { ToolResult } from '../../src/service/results.js';
import { Service } from '../../src/service/service.js';
import { envelopeIssue, errorsOf, resultIssues } from './result-schemas.js';

// ---- where things are ---------------------------------------------------------

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '../..');
/** The upstream spec checkout; SVC_SHARED_DIR points elsewhere (or nowhere, to see the suite skip cleanly). */
export const SHARED = path.resolve(REPO, process.env.SVC_SHARED_DIR ?? '../shared');
export const SCHEMA_DIR = path.join(SHARED, 'schemas/core-2');
export const UPSTREAM_FIXTURES = path.join(SHARED, 'conformance/fixtures');
export const HAS_SCHEMAS = existsSync(path.join(SCHEMA_DIR, 'index.json'));
export const HAS_FIXTURES = existsSync(UPSTREAM_FIXTURES);
/** Our own test processes. */
export const FIXTURES = path.join(REPO, 'fixtures/service');

/** The fourteen tools as the spec names them: written out here, not imported, so tests check the code against the spec. */
export const TOOL_NAMES = ['describe', 'list_processes', 'start_run', 'get_run', 'get_work', 'claim', 'renew', 'upload', 'submit', 'escalate', 'decide', 'cancel', 'send_event', 'list_runs'] as const;
export const WRITE_TOOLS = new Set(['start_run', 'claim', 'renew', 'upload', 'submit', 'escalate', 'decide', 'cancel', 'send_event']);

/** A submission that the claim-review fixture's agent step accepts. */
export const CLAIM_REVIEW_SUBMISSION = {
  output: { withinPolicy: true, notes: 'Fine.', risk: 'low', lines: ['hotel'] },
  evidence: [{ kind: 'link', ref: 'https://policy.example.com' }],
  summary: 'Checked.',
  next: 'approve',
  reason: 'Within policy.',
};

// ---- upstream schemas -------------------------------------------------------------

interface Validators {
  result(tool: string): ValidateFunction | undefined;
  args(tool: string): ValidateFunction | undefined;
  shared(name: string): ValidateFunction;
  error: ValidateFunction;
  files: string[];
}

let validators: Validators | null | undefined;

/**
 * Every upstream schema added to one Ajv 2020 instance (compiled on first
 * use, so a file pays only for the tools it calls); null when ../shared is absent.
 */
export function upstream(): Validators | null {
  if (validators !== undefined) return validators;
  if (!HAS_SCHEMAS) return (validators = null);
  const index = JSON.parse(readFileSync(path.join(SCHEMA_DIR, 'index.json'), 'utf8')) as {
    shared: Record<string, string>;
    tools: Record<string, { arguments: string; result: string }>;
  };
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  const plugin = ((ajvFormats as unknown as { default: unknown }).default ?? ajvFormats) as { default?: unknown };
  ((plugin.default ?? plugin) as (a: Ajv2020) => void)(ajv);
  const files = [...Object.values(index.shared), ...Object.values(index.tools).flatMap((t) => [t.arguments, t.result])];
  const ids = new Map<string, string>();
  for (const f of files) {
    const schema = JSON.parse(readFileSync(path.join(SCHEMA_DIR, f), 'utf8')) as { $id: string };
    ajv.addSchema(schema);
    ids.set(f, schema.$id);
  }
  const get = (f: string | undefined) => {
    if (f === undefined) return undefined;
    const v = ajv.getSchema(ids.get(f)!);
    if (!v) throw new Error(`schema ${f} did not compile`);
    return v;
  };
  validators = {
    result: (tool) => get(index.tools[tool]?.result),
    args: (tool) => get(index.tools[tool]?.arguments),
    shared: (name) => get(index.shared[name])!,
    error: get(index.shared['tool-error'])!,
    files,
  };
  return validators;
}

/**
 * How a tool result breaks the upstream schemas: the envelope is exactly
 * `{ok, data}` or `{ok, error}`; data matches tools/<tool>.result.json; an
 * error matches tool-error.json. Empty when it conforms (or when ../shared is absent).
 */
export function conformanceIssues(tool: string, res: unknown): string[] {
  const v = upstream();
  if (!v) return [];
  const envelope = envelopeIssue(res);
  if (envelope) return [envelope];
  const r = res as { ok: boolean; data?: unknown; error?: unknown };
  if (!r.ok) return errorsOf(v.error, r.error).map((e) => `tool-error ${e}`);
  const rv = v.result(tool);
  if (!rv) return [`no result schema for tool ${tool}, yet it answered ok`];
  return errorsOf(rv, r.data).map((e) => `${tool}.result ${e}`);
}

/** How arguments break the upstream argument schema of a tool (empty when ../shared is absent). */
export function argumentIssues(tool: string, args: unknown): string[] {
  const v = upstream();
  if (!v) return [];
  const av = v.args(tool);
  return av ? errorsOf(av, args) : [`no argument schema for ${tool}`];
}

/** Every call made through a harness in this test file: what conformance saw (`validated`: against the upstream schemas too). */
export const recorded: { tool: string; ok: boolean; code?: string; validated: boolean }[] = [];

/** Every answer itself, kept only once a test file asks (`keepAnswers()`), for checks over all of them. */
export const answers: { tool: string; res: ToolResult }[] = [];
let keeping = false;
export function keepAnswers(): void {
  keeping = true;
}

/** Start a test file's records afresh: a worker of the shared project runs many files with this module loaded once (test/support/shared-worker.ts). */
export function forgetRecords(): void {
  recorded.length = 0;
  answers.length = 0;
  keeping = false;
}

// ---- the board ------------------------------------------------------------------

export interface BoardSpec {
  /** Emails declared in `people`. Operators and group members are added automatically. */
  people?: string[];
  groups?: Record<string, string[]>;
  operators?: string[];
  agents?: string[];
  leaseSeconds?: number;
  runDataBytes?: number;
  maxUploadBytes?: number;
  /** WORK.md `evaluator`: the board offers check-1 while it is set. */
  evaluator?: Record<string, unknown>;
  /** WORK.md check limits (checkPass, checkFail, checkConfidence, checkStateBytes). */
  checkLimits?: Record<string, number | null>;
  /** Processes to publish: a folder name under fixtures/service, or an absolute folder. */
  processes?: { folder: string; roles?: Record<string, string> }[];
  /** Where the clock starts. */
  start?: string;
}

/** The default cast: who works on a service-test board. */
export const CAST = {
  operator: 'olga@example.com',
  ann: 'ann@example.com',
  cat: 'cat@example.com',
  bob: 'bob@example.com',
  ed: 'ed@example.com',
  lee: 'lee@example.com',
  fin: 'fin@example.com',
  agent: 'scout',
  rival: 'rival',
} as const;

export const T0 = '2026-10-06T09:00:00.000Z';

const made: string[] = [];

export async function cleanupHarnesses(): Promise<void> {
  const dirs = made.splice(0);
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
}

const DURATION = /^(-?\d+)(ms|s|m|h|d)$/;
export function ms(d: string | number): number {
  if (typeof d === 'number') return d;
  const m = DURATION.exec(d);
  if (!m) throw new Error(`not a duration: ${d}`);
  const n = Number(m[1]);
  return n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
}

export type Who = string | Actor;
/** A tool's answer, read freely by the tests (eslint.config.mjs allows `any` in test/). */
export type Data = any;
export type ToolErr = { code: string; message: string; issues?: string[] };

export class Harness {
  /** The service's clock, in ms since the epoch. Move it with `advance`/`setTime`. */
  clock: number;

  private constructor(
    readonly root: string,
    readonly board: Board,
    readonly service: Service,
    clockMs: number,
  ) {
    this.clock = clockMs;
  }

  static async open(spec: BoardSpec = {}): Promise<Harness> {
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wb-svc-')));
    made.push(base);
    const root = path.join(base, 'board');
    await Board.init(root, { name: 'svc-board', actor: CAST.operator });
    const operators = spec.operators ?? [CAST.operator];
    const groups = spec.groups ?? {};
    const people = new Set<string>([...(spec.people ?? Object.values(CAST).filter((x) => x.includes('@'))), ...operators, ...Object.values(groups).flat()]);
    const manifest = {
      schema: 'workboard/v1',
      name: 'svc-board',
      title: 'Service test board',
      description: 'A board made by the service tests.',
      rev: 1,
      coordination: { leaseSeconds: spec.leaseSeconds ?? 600, lockStaleSeconds: 30 },
      limits: { runDataBytes: spec.runDataBytes ?? 256 * 1024, maxUploadBytes: spec.maxUploadBytes ?? 10 * 1024 * 1024, ...(spec.checkLimits ?? {}) },
      people: [...people].map((email) => ({ email })),
      groups,
      operators,
      agents: (spec.agents ?? [CAST.agent, CAST.rival]).map((id) => ({ id })),
      ...(spec.evaluator ? { evaluator: spec.evaluator } : {}),
    };
    // A hand edit of WORK.md before anything opens the service: the next transaction (the first publish) adopts it.
    await fs.writeFile(path.join(root, 'WORK.md'), `---\n${stringify(manifest)}---\n# Service test board\n`);
    const board = await Board.open(root);
    for (const p of spec.processes ?? []) {
      const folder = path.isAbsolute(p.folder) ? p.folder : path.join(FIXTURES, p.folder);
      await publish(board, { folder, roles: p.roles ?? {}, actor: CAST.operator, offer: offerFor(board.manifest) });
    }
    // The service reads the time from the harness, so a test moves it with advance()/setTime().
    const ref: { harness?: Harness } = {};
    const service = await Service.open(board, { now: () => new Date(ref.harness!.clock), evaluate });
    ref.harness = new Harness(root, board, service, Date.parse(spec.start ?? T0));
    return ref.harness;
  }

  /** Publish one more version (after the service opened). */
  async publish(folder: string, roles: Record<string, string> = {}) {
    return publish(this.board, { folder: path.isAbsolute(folder) ? folder : path.join(FIXTURES, folder), roles, actor: CAST.operator, offer: offerFor(this.board.manifest) });
  }

  get now(): Date {
    return new Date(this.clock);
  }

  /** The clock (plus an offset) as a datetime string, for inputs. */
  iso(offset: string | number = 0): string {
    return new Date(this.clock + ms(offset)).toISOString();
  }

  /** Matches any RFC 3339 datetime naming the clock's instant (plus an offset): the spec fixes the instant, not the spelling. */
  at(offset: string | number = 0): Instant {
    return new Instant(this.clock + ms(offset));
  }

  advance(d: string | number): void {
    this.clock += ms(d);
  }

  setTime(iso: string): void {
    this.clock = Date.parse(iso);
  }

  as(who: Who): Actor {
    if (typeof who !== 'string') return who;
    const r = resolveActor(this.board.manifest, who);
    if (!r.ok) throw new Error(r.message);
    return r.actor;
  }

  /** Call a tool exactly as given; validate the result against our schemas, and the upstream ones when present. */
  async call(tool: string, args: unknown, who: Who): Promise<ToolResult> {
    const res = await this.service.callWire(tool, args, this.as(who));
    recorded.push({ tool, ok: res.ok, ...(res.ok ? {} : { code: res.error.code }), validated: upstream() !== null });
    if (keeping) answers.push({ tool, res });
    expect(resultIssues(tool, res), `${tool} result does not match schemas/results: ${JSON.stringify(res).slice(0, 800)}`).toEqual([]);
    expect(conformanceIssues(tool, res), `${tool} result does not match the upstream schema: ${JSON.stringify(res).slice(0, 800)}`).toEqual([]);
    return res;
  }

  /** A write gets a fresh requestId unless the args carry one. */
  private withRid(tool: string, args: Record<string, unknown>): Record<string, unknown> {
    return WRITE_TOOLS.has(tool) && !Object.hasOwn(args, 'requestId') ? { ...args, requestId: rid() } : args;
  }

  /** Call and expect success; returns data. */
  async ok(tool: string, args: Record<string, unknown>, who: Who): Promise<Data> {
    const res = await this.call(tool, this.withRid(tool, args), who);
    if (!res.ok) throw new Error(`${tool} refused: ${JSON.stringify(res.error)}`);
    return res.data;
  }

  /** Call and expect a refusal; returns the error. */
  async fail(tool: string, args: Record<string, unknown>, who: Who): Promise<ToolErr> {
    const res = await this.call(tool, this.withRid(tool, args), who);
    if (res.ok) throw new Error(`${tool} was expected to be refused, but answered ${JSON.stringify(res.data).slice(0, 400)}`);
    return res.error;
  }

  // ---- conveniences over the tools --------------------------------------------------

  async start(process: string, inputs: Record<string, unknown>, who: Who = CAST.ann, extra: Record<string, unknown> = {}): Promise<Data> {
    return this.ok('start_run', { process, inputs, ...extra }, who);
  }

  async view(runId: string, who: Who = CAST.ann): Promise<Data> {
    return this.ok('get_run', { runId }, who);
  }

  async claim(runId: string, stepId: string, who: Who = CAST.agent): Promise<Data> {
    return this.ok('claim', { runId, stepId }, who);
  }

  /** The one open work item of a step in a run view (fails when there is not exactly one). */
  item(view: Data, stepId: string): Data {
    const items = (view.workItems as Data[]).filter((w) => w.stepId === stepId);
    expect(items, `work items of ${stepId}`).toHaveLength(1);
    return items[0];
  }

  async decide(view: Data, stepId: string, decision: string, who: Who, extra: Record<string, unknown> = {}): Promise<Data> {
    const wi = this.item(view, stepId);
    return this.ok('decide', { runId: view.run.id, workItemId: wi.id, snapshot: wi.snapshot, decision, ...extra }, who);
  }

  async upload(content: string | Buffer, who: Who = CAST.agent, fileName = 'scan.pdf'): Promise<Data> {
    return this.ok('upload', { fileName, contentType: 'application/pdf', contentBase64: Buffer.from(content).toString('base64') }, who);
  }

  /** Every committed file of the board (not `.work/`), byte for byte. */
  async snapshot(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const walk = async (dir: string) => {
      for (const e of await fs.readdir(dir, { withFileTypes: true })) {
        const abs = path.join(dir, e.name);
        const rel = path.relative(this.root, abs).split(path.sep).join('/');
        if (rel === '.work' || rel.startsWith('.work/')) continue;
        if (e.isDirectory()) {
          out[`${rel}/`] = '<dir>';
          await walk(abs);
        } else out[rel] = (await fs.readFile(abs)).toString('latin1');
      }
    };
    await walk(this.root);
    return out;
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An asymmetric matcher: an RFC 3339 datetime with offset that names this instant. */
export class Instant {
  readonly $$typeof = Symbol.for('jest.asymmetricMatcher');
  constructor(readonly ms: number) {}
  asymmetricMatch(actual: unknown): boolean {
    return typeof actual === 'string' && RFC3339.test(actual) && Date.parse(actual) === this.ms;
  }
  toString(): string {
    return `Instant<${new Date(this.ms).toISOString()}>`;
  }
  toAsymmetricMatcher(): string {
    return this.toString();
  }
}

export function instant(iso: string): Instant {
  return new Instant(Date.parse(iso));
}

export function rid(): string {
  return randomUUID();
}

export function sha256(b: Buffer | string): string {
  return createHash('sha256').update(b).digest('hex');
}

/** The body of a PROCESS.md: everything after the line that closes the frontmatter. */
export function bodyOf(folder: string): string {
  const text = readFileSync(path.join(path.isAbsolute(folder) ? folder : path.join(FIXTURES, folder), 'PROCESS.md'), 'utf8');
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n/.exec(text);
  if (!m) throw new Error(`no frontmatter in ${folder}`);
  return text.slice(m[0].length);
}

/** A step's state in a run view. */
export function stateOf(view: Data, stepId: string): string | null {
  const s = (view.steps as Data[]).find((x) => x.id === stepId);
  if (!s) throw new Error(`no step ${stepId} in the view`);
  return s.state;
}

/** Every step's state in a run view, as `{ id: state }`. */
export function states(view: Data): Record<string, string | null> {
  return Object.fromEntries((view.steps as Data[]).map((s) => [s.id, s.state]));
}

export function stepView(view: Data, stepId: string): Data {
  return (view.steps as Data[]).find((x) => x.id === stepId);
}

/**
 * Malformed tool calls over a REAL `workboard mcp --as <agent>` stdio process,
 * driven by the MCP SDK's client, and raw garbage written straight to its stdin.
 *
 * Every malformed call answers with a tool error (`isError`, `{ok: false,
 * error}`) whose code is the one the contract gives (spec §4.3 and the tool
 * contracts: a call that breaks the tool's argument schema is `invalid`; an
 * unknown run, step or work item is `not_found`; a token that does not verify
 * is `invalid`; a requestId reused with other arguments is `conflict`), never
 * `retry` (which here could only mean an internal error). Not one byte of the
 * board (outside `.work/`) changes, the same process answers a valid
 * `describe` afterwards, and it is still alive.
 *
 * The argument contracts below are written out from the tool contracts and
 * the upstream argument schemas (required fields, types, maxLength), not
 * read from our own schemas, so the test checks the code against the spec.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT } from '../support/cli-run.js';
import { conformanceIssues } from '../support/svc-harness.js';
import { CONTRACT_CODES, deep, flipBit, huge, tokenClaims, tokenParts, treeDigest, withClaims, withKey } from './abuse-support.js';

type Args = Record<string, unknown>;
type Result = { ok: boolean; data?: any; error?: { code: string; message: string; issues?: string[] } };

// ---- the contracts, from the spec -----------------------------------------------------

type FieldType = 'string' | 'integer' | 'object' | 'array';
const S = 'string' as const;
/** Each tool's arguments (tool contracts), and which are required (upstream argument schemas). */
const CONTRACT: Record<string, { fields: Record<string, FieldType>; required: string[] }> = {
  describe: { fields: {}, required: [] },
  list_processes: { fields: { cursor: S }, required: [] },
  start_run: { fields: { process: S, version: 'integer', inputs: 'object', mode: S, requestId: S }, required: ['process', 'inputs', 'requestId'] },
  get_run: { fields: { runId: S }, required: ['runId'] },
  get_work: { fields: { limit: 'integer', cursor: S, process: S }, required: [] },
  claim: { fields: { runId: S, stepId: S, requestId: S }, required: ['runId', 'stepId', 'requestId'] },
  renew: { fields: { token: S, progress: S, requestId: S }, required: ['token', 'requestId'] },
  upload: { fields: { fileName: S, contentType: S, contentBase64: S, requestId: S }, required: ['fileName', 'contentType', 'contentBase64', 'requestId'] },
  // `summary` is left out of `required` here: the spec's prose lists "summary: missing" as a not_accepted issue.
  submit: { fields: { token: S, output: 'object', evidence: 'array', summary: S, next: S, reason: S, requestId: S }, required: ['token', 'output', 'requestId'] },
  escalate: { fields: { token: S, note: S, requestId: S }, required: ['token', 'note', 'requestId'] },
  decide: {
    fields: { runId: S, workItemId: S, snapshot: S, decision: S, output: 'object', evidence: 'array', summary: S, next: S, reason: S, note: S, requestId: S },
    required: ['runId', 'workItemId', 'snapshot', 'decision', 'requestId'],
  },
  cancel: { fields: { runId: S, reason: S, requestId: S }, required: ['runId', 'reason', 'requestId'] },
  send_event: { fields: { runId: S, name: S, data: 'object', requestId: S }, required: ['runId', 'name', 'requestId'] },
  list_runs: { fields: { process: S, state: S, inputs: 'object', limit: 'integer', cursor: S }, required: [] },
};
const TOOLS = Object.keys(CONTRACT);
/** Upstream maxLength: a longer value breaks the schema. */
const CAPPED = new Set(['requestId', 'reason', 'note', 'progress', 'summary', 'fileName', 'contentType']);

const WRONG: Record<FieldType, unknown[]> = {
  string: [0, -1.5, true, false, null, [], ['x'], {}, { a: 'b' }, deep(40)],
  integer: ['5', '', true, null, [], {}, 1.5, 0.000001, deep(40)],
  object: ['x', 0, true, null, [], [{}], deep(40, 'array')],
  array: ['x', 0, true, null, {}, { 0: { kind: 'link', ref: 'x' } }],
};
const EXTRA_KEYS = [
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'x'.repeat(10_000),
  '\uD800',
  '\uDFFF\uD800',
  '',
  ' ',
  'runId ',
  'RequestId',
  'token\u0000',
  '../../etc/passwd',
  'then',
];
const HOSTILE_VALUES: unknown[] = ['', 'x', 0, -0, 1e308, -1e308, null, true, [], {}, { __proto__x: 1 }, huge(64 * 1024), '\uD800', deep(200)];
const LONE = ['\uD800', '\uDC00', 'r-\uD800\uD800', `w-${'\uDFFF'.repeat(10)}`, 'a\uD83Db'];
const EDGE_LIMITS = [0, -1, 101, 1.5, 99.5, -1e308, 1e308, 2 ** 53, -(2 ** 53), Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1e-300, '1', null];
const EDGE_VERSIONS = [0, -1, 1.5, -1e308, Number.NaN, Number.POSITIVE_INFINITY, -0, 1e-300, '1', null, true];

// ---- the board and the server -----------------------------------------------------------

let dir: string;
let client: Client;
let transport: StdioClientTransport;
let readStderr: () => string = () => '';
let run1: string; // release-notes, draft claimed by us: token1 is live
let run2: string; // release-notes at editor_review: a work item for people
let token1: string;
let token2: string; // run2's draft token: its claim ended with the submission
let workItem: { id: string; snapshot: string };
let digest: string;

async function call(c: Client, name: string, args: unknown): Promise<Result & { isError: boolean }> {
  const r = await c.callTool({ name, arguments: args as Args });
  const structured = r.structuredContent as Result;
  const text = JSON.parse((r.content as { type: string; text: string }[])[0]!.text) as Result;
  expect(text).toEqual(structured);
  expect(conformanceIssues(name, structured)).toEqual([]); // the upstream schemas, when ../shared is present
  return { ...structured, isError: r.isError === true };
}

async function connect(board: string): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const t = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--as', 'reviewer', '--board', board], stderr: 'pipe' });
  let err = '';
  t.stderr?.on('data', (d) => (err += String(d)));
  const c = new Client({ name: 'abuse', version: '1' });
  await c.connect(t);
  return { client: c, transport: t, stderr: () => err };
}

function alive(pid: number | null | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freshBoard(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'wb-abuse-mcp-'));
  cpSync(path.join(ROOT, 'examples/board'), d, { recursive: true });
  rmSync(path.join(d, '.work'), { recursive: true, force: true });
  return d;
}

beforeAll(async () => {
  await ensureBuilt();
  dir = freshBoard();
  const conn = await connect(dir);
  client = conn.client;
  transport = conn.transport;
  readStderr = conn.stderr;
  const ok = async (name: string, args: Args) => {
    const r = await call(client, name, args);
    if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
    return r.data;
  };
  run1 = (await ok('start_run', { process: 'release-notes', inputs: { version: '1.0', releaseDate: '2026-12-01' }, requestId: 'seed-start' })).run.id;
  token1 = (await ok('claim', { runId: run1, stepId: 'draft', requestId: 'seed-claim' })).token;
  run2 = (await ok('start_run', { process: 'release-notes', inputs: { version: '2.0', releaseDate: '2026-12-02' }, requestId: 'seed-start-2' })).run.id;
  token2 = (await ok('claim', { runId: run2, stepId: 'draft', requestId: 'seed-claim-2' })).token;
  await ok('submit', { token: token2, output: { notes: 'n', highlights: ['a'] }, evidence: [{ kind: 'link', ref: 'https://example.com/pr' }], summary: 'Drafted.', requestId: 'seed-submit-2' });
  await ok('send_event', { runId: run2, name: 'release-tagged', requestId: 'seed-event-2' });
  await ok('upload', { fileName: 'seed.txt', contentType: 'text/plain', contentBase64: Buffer.from('seed').toString('base64'), requestId: 'seed-upload' });
  const view = await ok('get_run', { runId: run2 });
  workItem = view.workItems[0];
  expect(workItem).toBeDefined();
  digest = await treeDigest(dir);
}, 60_000);

afterAll(async () => {
  await client?.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

function base(tool: string): Args {
  const rid = `abuse-${randomUUID()}`;
  switch (tool) {
    case 'describe':
      return {};
    case 'list_processes':
      return {};
    case 'start_run':
      return { process: 'release-notes', inputs: { version: '9.9', releaseDate: '2026-12-24' }, requestId: rid };
    case 'get_run':
      return { runId: run1 };
    case 'get_work':
      return { limit: 5 };
    case 'claim':
      return { runId: run1, stepId: 'draft', requestId: rid };
    case 'renew':
      return { token: token1, progress: 'half way', requestId: rid };
    case 'upload':
      return { fileName: 'a.txt', contentType: 'text/plain', contentBase64: Buffer.from(rid).toString('base64'), requestId: rid };
    case 'submit':
      return { token: token1, output: { notes: 'n', highlights: [] }, evidence: [{ kind: 'link', ref: 'https://example.com' }], summary: 's', requestId: rid };
    case 'escalate':
      return { token: token1, note: 'n', requestId: rid };
    case 'decide':
      return { runId: run2, workItemId: workItem.id, snapshot: workItem.snapshot, decision: 'approved', requestId: rid };
    case 'cancel':
      return { runId: run1, reason: 'r', requestId: rid };
    case 'send_event':
      return { runId: run1, name: 'release-tagged', requestId: rid };
    case 'list_runs':
      return { limit: 5 };
    default:
      throw new Error(tool);
  }
}

// ---- malformed calls --------------------------------------------------------------------

interface Case {
  kind: string;
  tool: string;
  args: unknown;
  codes: string[];
}

/** A pick function: an index below n, from the generator's numbers. */
type Pick = (n: number) => number;
const one = <T>(xs: readonly T[], pick: Pick): T => xs[pick(xs.length)]!;

function tokenVariants(): string[] {
  const { body, sig } = tokenParts(token1);
  const c = tokenClaims(token1);
  return [
    token1.slice(0, 1),
    token1.slice(0, body.length),
    token1.slice(0, body.length + 1),
    token1.slice(0, token1.length - 1),
    token1.slice(0, token1.length - 5),
    flipBit(token1, 3, 0),
    flipBit(token1, Math.floor(body.length / 2), 2),
    flipBit(token1, body.length - 1, 1),
    flipBit(token1, body.length + 5, 3),
    `${tokenParts(token2).body}.${sig}`,
    `${body}.${tokenParts(token2).sig}`,
    withClaims(token1, { ...c, s: 'editor_review' }),
    withClaims(token1, { ...c, r: run2 }),
    withClaims(token1, { ...c, e: '9999-12-31T00:00:00.000Z' }),
    `${token1}.${token1}`,
    `${body}\u0000.${sig}`,
    `${body.slice(0, 5)}\uD800${body.slice(5)}.${sig}`,
    'a.b',
    '.',
    '..',
    'x'.repeat(2048),
    'x'.repeat(2049),
    huge(1024 * 1024),
    'eyJhbGciOiJub25lIn0.eyJyIjoiciJ9.',
    '../../../../etc/passwd',
  ];
}

function idCodes(tool: string, field: string): string[] | null {
  if (field === 'runId') return tool === 'cancel' ? ['invalid', 'not_found', 'forbidden'] : ['invalid', 'not_found'];
  if (field === 'stepId' || field === 'workItemId') return ['invalid', 'not_found'];
  if (field === 'snapshot') return ['invalid', 'stale'];
  if (field === 'token' || field === 'name' || field === 'contentBase64' || field === 'mode' || field === 'decision') return ['invalid'];
  if (field === 'process' && tool === 'start_run') return ['invalid', 'not_found'];
  if (CAPPED.has(field)) return ['invalid'];
  return null; // filters and cursors may answer; not a refusal case
}

const BUILDERS: Record<string, (tool: string, pick: Pick) => Case | null> = {
  wrongType(tool, pick) {
    const fields = Object.entries(CONTRACT[tool]!.fields);
    if (fields.length === 0) return null;
    const [field, type] = one(fields, pick);
    return { kind: `wrongType ${field}`, tool, args: { ...base(tool), [field]: one(WRONG[type], pick) }, codes: ['invalid'] };
  },
  missing(tool, pick) {
    const req = CONTRACT[tool]!.required;
    if (req.length === 0) return null;
    const field = one(req, pick);
    const args = base(tool);
    delete args[field];
    return { kind: `missing ${field}`, tool, args, codes: ['invalid'] };
  },
  extra(tool, pick) {
    const key = one(EXTRA_KEYS, pick);
    return { kind: `extra ${JSON.stringify(key.slice(0, 20))}`, tool, args: withKey(base(tool), key, one(HOSTILE_VALUES, pick)), codes: ['invalid'] };
  },
  protoWithDefect(tool, pick) {
    // `__proto__` never counts as an argument; a call carrying it and a real defect is still refused.
    const extra = one(EXTRA_KEYS, pick);
    const args = withKey(withKey(base(tool), '__proto__', { runId: run1, token: token1, requestId: 'seed-start', isAdmin: true }), extra, 1);
    return { kind: '__proto__ + extra', tool, args, codes: ['invalid'] };
  },
  wide(tool) {
    const args = base(tool);
    for (let i = 0; i < 5_000; i++) args[`k${i}`] = i;
    return { kind: 'five thousand extra keys', tool, args, codes: ['invalid'] };
  },
  huge(tool, pick) {
    const fields = Object.keys(CONTRACT[tool]!.fields).filter((f) => idCodes(tool, f) !== null);
    if (fields.length === 0) return null;
    const field = one(fields, pick);
    const value = field === 'contentBase64' ? huge(1024 * 1024, '!') : one([huge(), huge(1024 * 1024, 'é'), `${huge(1024 * 1024)}\u0000`], pick);
    return { kind: `1 MB ${field}`, tool, args: { ...base(tool), [field]: value }, codes: idCodes(tool, field)! };
  },
  deep(tool, pick) {
    const d = deep(one([300, 800, 1_500], pick), one(['array', 'object', 'mixed'] as const, pick));
    const where = pick(3);
    if (tool === 'start_run' && where === 0) return { kind: 'deep undeclared input', tool, args: { ...base(tool), inputs: { version: '1', releaseDate: '2026-12-24', extra: d } }, codes: ['invalid'] };
    if (tool === 'start_run' && where === 1) return { kind: 'deep mistyped input', tool, args: { ...base(tool), inputs: { version: d, releaseDate: '2026-12-24' } }, codes: ['invalid'] };
    const strings = Object.entries(CONTRACT[tool]!.fields).filter(([, t]) => t === 'string' || t === 'integer');
    if (where === 2 && strings.length > 0) return { kind: 'deep value for a scalar', tool, args: { ...base(tool), [one(strings, pick)[0]]: d }, codes: ['invalid'] };
    return { kind: 'deep extra', tool, args: withKey(base(tool), 'nested', d), codes: ['invalid'] };
  },
  edgeNumber(tool, pick) {
    if ('limit' in CONTRACT[tool]!.fields) return { kind: 'edge limit', tool, args: { ...base(tool), limit: one(EDGE_LIMITS, pick) }, codes: ['invalid'] };
    if (tool === 'start_run') return { kind: 'edge version', tool, args: { ...base(tool), version: one(EDGE_VERSIONS, pick) }, codes: ['invalid'] };
    return null;
  },
  forgedToken(tool, pick) {
    if (!('token' in CONTRACT[tool]!.fields)) return null;
    return { kind: 'forged token', tool, args: { ...base(tool), token: one(tokenVariants(), pick) }, codes: ['invalid'] };
  },
  replay(tool, pick) {
    // A requestId already used by a write, now with other (well-formed) arguments.
    if (!CONTRACT[tool]!.fields.requestId) return null;
    const used = one(['seed-start', 'seed-claim', 'seed-upload', 'seed-submit-2', 'seed-event-2'], pick);
    const args: Args = { ...base(tool), requestId: used };
    if (tool === 'start_run') args.inputs = { version: `other-${pick(1_000_000)}`, releaseDate: '2026-12-25' };
    if (tool === 'claim') args.runId = run2;
    if (tool === 'submit') args.token = token2; // the very token seed-submit-2 used, with other arguments
    const codes = tool === 'decide' || tool === 'cancel' ? ['conflict', 'forbidden'] : ['conflict'];
    return { kind: `replayed ${used}`, tool, args, codes };
  },
  loneSurrogateId(tool, pick) {
    const fields = Object.keys(CONTRACT[tool]!.fields).filter((f) => ['runId', 'stepId', 'workItemId', 'token', 'name'].includes(f));
    if (fields.length === 0) return null;
    const field = one(fields, pick);
    return { kind: `lone surrogate ${field}`, tool, args: { ...base(tool), [field]: one(LONE, pick) }, codes: idCodes(tool, field)! };
  },
};
const KINDS = Object.keys(BUILDERS);

async function expectRefused(c: Case): Promise<void> {
  const r = await call(client, c.tool, c.args);
  const label = `${c.kind} on ${c.tool}: ${JSON.stringify(r).slice(0, 400)}`;
  expect(r.ok, label).toBe(false);
  expect(r.isError, label).toBe(true);
  expect(CONTRACT_CODES as readonly string[], label).toContain(r.error!.code);
  expect(r.error!.code, label).toBeOneOf(c.codes);
  expect(typeof r.error!.message === 'string' && r.error!.message.length > 0, label).toBe(true);
  expect(await treeDigest(dir), `${label}: the board changed`).toBe(digest);
}

describe('malformed tool calls over a real workboard mcp stdio process', () => {
  it('every tool, every kind of defect at least once: refused with the contract code, nothing written', async () => {
    let n = 0;
    for (const tool of TOOLS) {
      for (const kind of KINDS) {
        for (const variant of [0, 1, 2]) {
          let i = variant;
          const c = BUILDERS[kind]!(tool, (m) => i++ % m);
          if (!c) continue;
          await expectRefused(c);
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(250);
  }, 120_000);

  it('a few hundred generated malformed calls across the fourteen tools: refused with the contract code, nothing written', async () => {
    const arb = fc.record({ tool: fc.constantFrom(...TOOLS), kind: fc.constantFrom(...KINDS), picks: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }) });
    let made = 0;
    await fc.assert(
      fc.asyncProperty(arb, async ({ tool, kind, picks }) => {
        let i = 0;
        const c = BUILDERS[kind]!(tool, (m) => picks[i++ % picks.length]! % m);
        if (!c) return;
        made++;
        await expectRefused(c);
      }),
      { numRuns: 300, endOnFailure: true },
    );
    expect(made).toBeGreaterThan(150);
  }, 120_000);

  it('a __proto__ key never supplies arguments: get_run and cancel with their arguments only on the prototype are invalid', async () => {
    for (const [tool, carried] of [
      ['get_run', { runId: run1 }],
      ['cancel', { runId: run1, reason: 'r', requestId: `p-${randomUUID()}` }],
      ['claim', { runId: run1, stepId: 'draft', requestId: `p-${randomUUID()}` }],
      ['submit', { token: token1, output: { notes: 'n', highlights: [] }, summary: 's', requestId: `p-${randomUUID()}` }],
    ] as const) {
      const r = await call(client, tool, withKey({}, '__proto__', carried));
      expect(r.ok ? 'ok' : r.error!.code, tool).toBe('invalid');
    }
    expect(await treeDigest(dir)).toBe(digest);
  });

  it('afterwards the same process is alive, answers describe, and printed no stack trace', async () => {
    const pid = transport.pid;
    expect(alive(pid)).toBe(true);
    const d = await call(client, 'describe', {});
    expect(d.ok).toBe(true);
    expect(d.data).toMatchObject({ protocol: 'agentprocess', version: 'core-2' });
    expect([...d.data.tools].sort()).toEqual([...TOOLS].sort());
    // The genuine token still renews: no malformed call moved the claim.
    const chainBefore = readFileSync(path.join(dir, 'runs', run1, 'audit.jsonl'), 'utf8');
    const r = await call(client, 'renew', { token: token1, requestId: `abuse-final-${randomUUID()}` });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    // A renewal is audited: one step.renewed line on its run's chain is all it changes; that is the board from here on.
    const added = readFileSync(path.join(dir, 'runs', run1, 'audit.jsonl'), 'utf8')
      .slice(chainBefore.length)
      .trim()
      .split('\n');
    expect(added.map((l) => JSON.parse(l).action)).toEqual(['step.renewed']);
    writeFileSync(path.join(dir, 'runs', run1, 'audit.jsonl'), chainBefore);
    expect(await treeDigest(dir)).toBe(digest);
    writeFileSync(path.join(dir, 'runs', run1, 'audit.jsonl'), `${chainBefore}${added.join('\n')}\n`);
    digest = await treeDigest(dir);
    expect(readStderr()).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    expect(transport.pid).toBe(pid);
  });
});

describe('contract edges that are bugs today', () => {
  /**
   * BUG (src/service/service.ts, Service.call: the canonical JSON used for the
   * replay fingerprint and the snapshot throws "Lone surrogate is not allowed",
   * which toError turns into `retry` "internal error"). A lone surrogate in a
   * write's data is a bad argument: `invalid` (or `not_accepted` for submitted
   * work), and never `retry`, which tells an agent to send the same call again.
   */
  it('a lone surrogate in a write’s data is refused as invalid (never retry), and nothing changes', async () => {
    const board = freshBoard();
    const conn = await connect(board);
    try {
      const started = await call(conn.client, 'start_run', { process: 'release-notes', inputs: { version: '3.0', releaseDate: '2026-12-03' }, requestId: 'ls-start' });
      const runId = started.data.run.id;
      const token = (await call(conn.client, 'claim', { runId, stepId: 'draft', requestId: 'ls-claim' })).data.token;
      const before = await treeDigest(board);
      const cases: [string, Args, string[]][] = [
        ['start_run', { process: 'release-notes', inputs: { version: 'a\uD800b', releaseDate: '2026-12-03' }, requestId: randomUUID() }, ['invalid']],
        ['escalate', { token, note: 'stuck \uDC00', requestId: randomUUID() }, ['invalid']],
        ['renew', { token, progress: '\uD800 half', requestId: randomUUID() }, ['invalid']],
        ['send_event', { runId, name: 'release-tagged', data: { ref: '\uD800' }, requestId: randomUUID() }, ['invalid', 'not_accepted']],
        ['submit', { token, output: { notes: '\uDBFF', highlights: [] }, evidence: [{ kind: 'link', ref: 'https://x' }], summary: 's', requestId: randomUUID() }, ['invalid', 'not_accepted']],
      ];
      const got: string[] = [];
      for (const [tool, args, codes] of cases) {
        const r = await call(conn.client, tool, args);
        const code = r.ok ? 'ok' : r.error!.code;
        if (!codes.includes(code)) got.push(`${tool} → ${code}${r.ok ? '' : ` (${r.error!.message.slice(0, 80)})`}`);
      }
      expect(got).toEqual([]);
      expect(await treeDigest(board)).toBe(before);
    } finally {
      await conn.client.close();
      rmSync(board, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });

  /**
   * BUG (minor, schemas/tools/start_run.arguments.json): the upstream argument
   * schema caps `version` at 9007199254740991; ours has no maximum, so 2^53 and
   * 1e308 are taken as whole numbers and answered not_found instead of invalid.
   */
  it('start_run with a version past the largest safe integer breaks the argument schema: invalid', async () => {
    const codes: string[] = [];
    for (const version of [2 ** 53, 1e308]) {
      const r = await call(client, 'start_run', { process: 'release-notes', version, inputs: { version: '1', releaseDate: '2026-12-24' }, requestId: randomUUID() });
      codes.push(r.ok ? 'ok' : r.error!.code);
    }
    expect(codes).toEqual(['invalid', 'invalid']);
    expect(await treeDigest(dir)).toBe(digest);
  });

  /**
   * BUG (src/cli/commands/mcp.ts): the stdio transport is created with the SDK's
   * default 10 MiB read buffer, and its close ends the command. An upload of
   * describe.maxUploadBytes (10 MiB by default) is about 14 MB of base64 on one
   * JSON-RPC line, so instead of an answer the server exits (code 0, silently);
   * so does any line over 10 MiB. The limit the server advertises cannot be used
   * over stdio, and one big line takes the agent's server down.
   */
  it('an upload of exactly describe.maxUploadBytes gets an answer over stdio, and the process stays alive', async () => {
    const board = freshBoard();
    const conn = await connect(board);
    try {
      const d = await call(conn.client, 'describe', {});
      const max = d.data.maxUploadBytes as number;
      const pid = conn.transport.pid;
      let answer: string;
      try {
        const r = await call(conn.client, 'upload', { fileName: 'big.bin', contentType: 'application/octet-stream', contentBase64: Buffer.alloc(max, 7).toString('base64'), requestId: randomUUID() });
        answer = r.ok ? 'ok' : r.error!.code;
      } catch (e) {
        answer = `no answer: ${(e as Error).message.slice(0, 120)}`;
      }
      expect(answer).toBe('ok');
      expect(alive(pid)).toBe(true);
    } finally {
      await conn.client.close().catch(() => undefined);
      rmSync(board, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }, 60_000);
});

// ---- raw garbage at the JSON-RPC level ------------------------------------------------------

describe('raw garbage written to the server’s stdin', () => {
  it('the process stays alive, writes only JSON-RPC to stdout, answers every well-formed request, then a good tools/call', async () => {
    const board = freshBoard();
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'mcp', '--as', 'reviewer', '--board', board], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let exited: number | null | string = null;
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (err += String(d)));
    child.on('exit', (code, signal) => (exited = code ?? signal));
    child.stdin.on('error', () => undefined); // reported below as "not alive"
    const send = (s: string | Buffer) => new Promise<void>((resolve) => child.stdin.write(s, () => resolve()));
    const lines = () => out.split('\n').filter((l) => l !== '');
    const responseTo = async (id: number, ms = 15_000) => {
      const until = Date.now() + ms;
      for (;;) {
        const hit = lines()
          .map((l) => JSON.parse(l) as { id?: unknown; result?: any; error?: any })
          .find((m) => m.id === id);
        if (hit) return hit;
        if (exited !== null || Date.now() > until) throw new Error(`no response to ${id} (exited: ${String(exited)}); stderr: ${err.slice(0, 500)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const before = await treeDigest(board);
    try {
      await send(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
      await responseTo(0);
      await send(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const garbage: (string | Buffer)[] = [
        'not json',
        '{',
        '{"jsonrpc":"2.0","id":1,',
        '{"jsonrpc":"1.0","id":2,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":3}',
        '{"id":4,"method":"tools/list"}',
        '[]',
        '[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]',
        'null',
        '42',
        '"a string"',
        'true',
        '',
        '   \r',
        '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":11,"result":{}}',
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}',
        Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0x7b]),
        `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
        huge(2 * 1024 * 1024),
        `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"describe","arguments":{}},"x":"${huge(2 * 1024 * 1024)}"`, // unterminated
      ];
      for (const g of garbage) await send(Buffer.concat([Buffer.isBuffer(g) ? g : Buffer.from(g), Buffer.from('\n')]));
      // params that are not an object: the SDK drops the message (no answer is required of us); the server goes on.
      await send(`${JSON.stringify({ jsonrpc: '2.0', id: 20, method: 'tools/call', params: 'x' })}\n`);
      // Well-formed requests with bad params: each gets exactly one response (JSON-RPC 2.0 §4).
      const requests: [number, unknown][] = [
        [21, { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'describe', arguments: [1, 2] } }],
        [22, { jsonrpc: '2.0', id: 22, method: 'tools/call', params: { name: { x: 1 } } }],
        [23, { jsonrpc: '2.0', id: 23, method: 'nope' }],
        [24, { jsonrpc: '2.0', id: 24, method: 'tools/call', params: { name: 'get_run', arguments: { runId: huge(2 * 1024 * 1024) } } }],
        [25, { jsonrpc: '2.0', id: 25, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }],
        [26, { jsonrpc: '2.0', id: 26, method: 'tools/call', params: { name: 'get_run', arguments: { runId: deep(3_000) } } }],
      ];
      for (const [, r] of requests) await send(`${JSON.stringify(r)}\n`);
      for (const [id] of requests) {
        const res = await responseTo(id);
        expect(res.result !== undefined || res.error !== undefined, `response ${id}`).toBe(true);
        // A tool call that reached the tool answers with a tool error carrying a contract code.
        if (res.result?.structuredContent) {
          expect(res.result.isError, `response ${id}`).toBe(true);
          expect(CONTRACT_CODES as readonly string[]).toContain(res.result.structuredContent.error.code);
          expect(res.result.structuredContent.error.code).toBe('invalid');
        }
      }
      await send(`${JSON.stringify({ jsonrpc: '2.0', id: 100, method: 'tools/call', params: { name: 'describe', arguments: {} } })}\n`);
      const good = await responseTo(100);
      expect(good.result.isError).not.toBe(true);
      expect(good.result.structuredContent).toMatchObject({ ok: true, data: { protocol: 'agentprocess', version: 'core-2' } });
      // stdout carries JSON-RPC 2.0 messages and nothing else.
      for (const l of lines()) expect((JSON.parse(l) as { jsonrpc: string }).jsonrpc, l.slice(0, 200)).toBe('2.0');
      // Every request answered once; the malformed messages (ids 1-5, 11, 12, 20) never as if they were valid.
      const ids = lines().map((l) => (JSON.parse(l) as { id?: unknown }).id);
      for (const id of [0, 21, 22, 23, 24, 25, 26, 100])
        expect(
          ids.filter((x) => x === id),
          `answers to ${id}`,
        ).toHaveLength(1);
      for (const id of [1, 2, 3, 4, 5, 11, 12])
        expect(
          lines()
            .map((l) => JSON.parse(l) as { id?: unknown; result?: unknown })
            .filter((m) => m.id === id && m.result !== undefined),
          `answers to ${id}`,
        ).toEqual([]);
      expect(exited).toBe(null);
      expect(alive(child.pid)).toBe(true);
      expect(err).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      expect(await treeDigest(board)).toBe(before);
    } finally {
      const gone = new Promise((r) => (exited !== null ? r(null) : child.once('exit', r)));
      child.stdin.end();
      child.kill();
      await gone;
      rmSync(board, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }, 60_000);
});

/**
 * Agents reach the server over MCP: a real `workboard mcp` process over
 * stdio, and `workboard serve --http` with bearer tokens, driven by the
 * official SDK client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Board } from '../../src/board/board.js';
import { addAgent } from '../../src/board/people.js';
import { publish } from '../../src/board/processes.js';
import { createToken } from '../../src/service/credentials.js';
import { offerFor } from '../../src/service/context.js';
import { conformanceIssues } from '../support/svc-harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin/workboard.js');
const TOOLS = ['describe', 'list_processes', 'start_run', 'get_run', 'get_work', 'claim', 'renew', 'upload', 'submit', 'escalate', 'decide', 'cancel', 'send_event', 'list_runs'];

const FILING = `---
name: filing
description: File a signed receipt and have an editor approve it.
steps:
  - id: file_receipt
    agent: Attach the signed receipt.
    output: { receiptNumber: string }
    evidence: [file]
  - id: check
    person: editor
    approve: The receipt is signed and legible.
    next: filed
  - id: filed
    finish: filed
---
Our own process for the MCP end-to-end test.
`;

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wb-mcp-'));
  cpSync(path.join(ROOT, 'examples/board'), dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  const board = await Board.open(dir);
  await addAgent(board, 'test', 'second');
  mkdirSync(path.join(dir, 'processes/filing'), { recursive: true });
  writeFileSync(path.join(dir, 'processes/filing/PROCESS.md'), FILING);
  await publish(board, { folder: path.join(dir, 'processes/filing'), roles: { editor: 'editors' }, actor: 'test', offer: offerFor(board.manifest) });
});
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));

type Result = { ok: boolean; data?: any; error?: { code: string; issues?: string[] } };
async function call(c: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  const r = await c.callTool({ name, arguments: args });
  const structured = r.structuredContent as Result;
  const text = JSON.parse((r.content as { type: string; text: string }[])[0]!.text) as Result;
  expect(text).toEqual(structured); // the same object in both forms
  expect(r.isError === true).toBe(!structured.ok);
  expect(conformanceIssues(name, structured)).toEqual([]); // upstream schemas, when ../shared is present
  return structured;
}

async function stdio(as: string): Promise<Client> {
  const c = new Client({ name: 'test', version: '1' });
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--as', as, '--board', dir], stderr: 'pipe' }));
  return c;
}

describe('workboard mcp over stdio', () => {
  it('offers exactly the fourteen tools, describes them, and teaches the loop', async () => {
    const c = await stdio('reviewer');
    const list = await c.listTools();
    expect(list.tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of list.tools) expect(t.description?.length).toBeGreaterThan(20);
    expect(c.getInstructions()).toMatch(/get_work/);
    const d = await call(c, 'describe', {});
    expect(d.data.tools.sort()).toEqual([...TOOLS].sort());
    await c.close();
  });

  it('runs the agent loop, and an agent can never decide', async () => {
    const c = await stdio('reviewer');
    const started = await call(c, 'start_run', { process: 'release-notes', inputs: { version: '1.0', releaseDate: '2026-12-01' }, requestId: 'mcp-1' });
    expect(started.ok).toBe(true);
    const runId = started.data.run.id;
    const work = await call(c, 'get_work', {});
    expect(work.data.items.map((i: { runId: string }) => i.runId)).toContain(runId);
    const claim = await call(c, 'claim', { runId, stepId: 'draft', requestId: 'mcp-2' });
    expect(claim.data.step.id).toBe('draft');
    const bad = await call(c, 'submit', { token: claim.data.token, output: {}, summary: 'x', requestId: 'mcp-3' });
    expect(bad.error?.code).toBe('not_accepted');
    // decide checks not_found before forbidden (tool contracts); on a real item an agent gets forbidden (HTTP test below).
    const decide = await call(c, 'decide', { runId, workItemId: 'w-x', snapshot: 's', decision: 'approved', requestId: 'mcp-4' });
    expect(decide.error?.code).toBe('not_found');
    const invalid = await call(c, 'get_work', { limit: 'ten' });
    expect(invalid.error?.code).toBe('invalid');
    await c.close();
  });

  it('an agent works our own process end to end (get_work, claim, upload, submit); a person decides through the CLI', async () => {
    const c = await stdio('reviewer');
    const started = await call(c, 'start_run', { process: 'filing', inputs: {}, requestId: 'e2e-1' });
    const runId = started.data.run.id;
    const item = (await call(c, 'get_work', { process: 'filing' })).data.items.find((i: { runId: string }) => i.runId === runId);
    const claim = await call(c, item.claim.tool, { ...item.claim.arguments, requestId: 'e2e-2' });
    const up = await call(c, 'upload', { fileName: 'receipt.txt', contentType: 'text/plain', contentBase64: Buffer.from('signed receipt 42').toString('base64'), requestId: 'e2e-3' });
    const done = await call(c, 'submit', {
      token: claim.data.token,
      output: { receiptNumber: '42' },
      evidence: [{ kind: 'file', ref: up.data.id }],
      summary: 'Attached the signed receipt.',
      requestId: 'e2e-4',
    });
    expect(done.data.data.steps.file_receipt.evidence[0]).toMatchObject({ kind: 'file', ref: up.data.id, sha256: up.data.sha256 });
    const wi = done.data.workItems[0];
    await c.close();
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, '--board', dir, '--as', 'jon@example.com', '--json', 'decide', runId, wi.id, 'approved', '--snapshot', wi.snapshot]);
    const decided = JSON.parse(stdout) as Result;
    expect(conformanceIssues('decide', decided)).toEqual([]);
    expect(decided.data.run).toMatchObject({ state: 'ended', outcome: 'filed' });
  });

  it('two stdio servers, two agents, one ready step: exactly one claim succeeds', async () => {
    const [a, b] = await Promise.all([stdio('reviewer'), stdio('second')]);
    const started = await call(a, 'start_run', { process: 'filing', inputs: {}, requestId: 'two-1' });
    const runId = started.data.run.id;
    const results = await Promise.all([call(a, 'claim', { runId, stepId: 'file_receipt', requestId: 'two-a' }), call(b, 'claim', { runId, stepId: 'file_receipt', requestId: 'two-b' })]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const lost = results.find((r) => !r.ok)!;
    expect(lost.error).toMatchObject({ code: 'conflict', issues: ['claimed_by_other'] });
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses to act as a person or as an unknown identity', async () => {
    for (const as of ['mira@example.com', 'nobody']) {
      const child = spawn(process.execPath, [BIN, 'mcp', '--as', as, '--board', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      // No client will come: a server that wrongly started serving ends at the end of its input with 0,
      // so the test fails on the exit code rather than by waiting for ever.
      child.stdin.end();
      const code = await new Promise((r) => child.on('close', r));
      expect(code).toBe(1);
      expect(err).toMatch(as === 'nobody' ? /unknown identity/ : /only as an agent/);
    }
  });
});

describe('workboard serve --http', () => {
  let server: ChildProcess;
  let url: URL;
  let agentToken: string;
  let personToken: string;

  beforeAll(async () => {
    const board = await Board.open(dir);
    agentToken = (await createToken(board.store, 'reviewer', new Date())).token;
    personToken = (await createToken(board.store, 'jon@example.com', new Date())).token;
    server = spawn(process.execPath, [BIN, 'serve', '--http', '127.0.0.1:0', '--board', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const found = await new Promise<string>((resolve, reject) => {
      server.stdout!.on('data', (d) => {
        out += String(d);
        const m = /MCP over HTTP at (http:\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      server.on('close', () => reject(new Error(`serve exited: ${out}`)));
    });
    url = new URL(found);
  });
  afterAll(async () => {
    // Wait for the server to be gone before its board folder is removed.
    const gone = new Promise((r) => server.once('close', r));
    server.kill();
    await gone;
  });

  async function http(token: string): Promise<Client> {
    const c = new Client({ name: 'test', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return c;
  }

  it('answers 401 and nothing else without a known bearer token', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wb_forged' }, { Authorization: 'Basic x' }] as Record<string, string>[]) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'unauthorized' });
    }
  });

  it("a person's token may decide; an agent's token never", async () => {
    const a = await http(agentToken);
    const started = await call(a, 'start_run', { process: 'release-notes', inputs: { version: '2.0', releaseDate: '2026-12-02' }, requestId: 'h-1' });
    const runId = started.data.run.id;
    const claim = await call(a, 'claim', { runId, stepId: 'draft', requestId: 'h-2' });
    const done = await call(a, 'submit', {
      token: claim.data.token,
      output: { notes: 'n', highlights: ['a'] },
      evidence: [{ kind: 'link', ref: 'https://example.com/pr' }],
      summary: 'Drafted.',
      requestId: 'h-3',
    });
    expect(done.ok).toBe(true);
    expect((await call(a, 'send_event', { runId, name: 'release-tagged', requestId: 'h-4' })).data).toEqual({ consumedBy: 'tagged' });
    const p = await http(personToken);
    const inbox = await call(p, 'get_work', {});
    const item = inbox.data.items.find((i: { runId: string }) => i.runId === runId).workItem;
    const byAgent = await call(a, 'decide', { runId, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: 'h-5' });
    expect(byAgent.error?.code).toBe('forbidden');
    const byPerson = await call(p, 'decide', { runId, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', requestId: 'h-6' });
    expect(byPerson.data.run).toMatchObject({ state: 'ended', outcome: 'published' });
    await a.close();
    await p.close();
  });
});

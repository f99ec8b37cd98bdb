/**
 * The direct path for a plain tools/call (src/mcp/direct-call.ts) answers
 * exactly as the MCP SDK does: the same status, content type and bytes, for
 * reads, refusals, an unknown tool and a replayed write; and it takes only
 * what the SDK would answer with a plain result, leaving every other request
 * (initialize, tools/list, batches, notifications, tasks, headers the SDK
 * refuses) to the SDK. Two servers on one service, one with the direct path
 * and one without; real sockets on 127.0.0.1.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type Server } from 'node:http';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { createHttpServer } from '../../src/http/server.js';
import { directCall } from '../../src/mcp/direct-call.js';
import { createToken } from '../../src/service/credentials.js';
import { Service } from '../../src/service/service.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let dir: string;
let service: Service;
let reviewer: string;
let mira: string;
const servers: Server[] = [];
let direct: number;
let viaSdk: number;

async function listen(directCalls: boolean): Promise<number> {
  const server = createHttpServer(service, 'test', { directCalls });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wb-direct-call-'));
  cpSync(path.join(ROOT, 'examples/board'), dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  const board = await Board.open(dir);
  service = await Service.open(board);
  reviewer = (await createToken(board.store, 'reviewer', new Date())).token;
  mira = (await createToken(board.store, 'mira@example.com', new Date())).token;
  direct = await listen(true);
  viaSdk = await listen(false);
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface Raw {
  status: number;
  contentType: string | undefined;
  body: string;
}

/** POST a body as given to /mcp and read the whole answer as text. */
function post(port: number, token: string, body: string, headers: Record<string, string> = JSON_HEADERS): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { ...headers, authorization: `Bearer ${token}` }, agent: false }, (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const call = (id: string | number, name: string, args?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...(args !== undefined ? { arguments: args } : {}), ...extra } });

describe('a plain tools/call answered directly', () => {
  const same: [string, string, Record<string, string>?][] = [
    ['describe, a numeric id', call(7, 'describe', {})],
    ['get_work, a string id', call('w-1', 'get_work', { limit: 3 })],
    ['no arguments at all', call(8, 'list_processes')],
    ['an unknown tool', call(9, 'no_such_tool', {})],
    ['arguments its schema refuses, every problem named', call(10, 'describe', { process: 1, extra: true })],
    ['a run that does not exist', call(11, 'get_run', { runId: 'r-nothere' })],
    ['a progress token in _meta', call(12, 'describe', {}, { _meta: { progressToken: 'p-1' } })],
    ['a supported protocol version and a charset', call(13, 'describe', {}), { ...JSON_HEADERS, 'content-type': 'application/json; charset=utf-8', 'mcp-protocol-version': '2025-06-18' }],
    // Not direct: the SDK answers these on both servers, so they match too.
    ['an unsupported protocol version', call(14, 'describe', {}), { ...JSON_HEADERS, 'mcp-protocol-version': '1999-01-01' }],
    ['a client that does not accept event streams', call(15, 'describe', {}), { ...JSON_HEADERS, accept: 'application/json' }],
    ['tools/list', JSON.stringify({ jsonrpc: '2.0', id: 16, method: 'tools/list' })],
  ];
  for (const [what, body, headers] of same) {
    it(`${what}: the same status, content type and bytes as the SDK's answer`, async () => {
      const a = await post(direct, reviewer, body, headers);
      const b = await post(viaSdk, reviewer, body, headers);
      expect(a).toEqual(b);
      expect(a.body.length).toBeGreaterThan(0);
    });
  }

  it("a write's answer, replayed through the SDK with its requestId, is the same bytes", async () => {
    const start = call(20, 'start_run', { process: 'expense-approval', inputs: { claimant: 'mira@example.com', amount: 12, receiptUrl: 'https://example.com/r' }, requestId: 'direct-1' });
    const first = await post(direct, mira, start);
    expect(first.status).toBe(200);
    const parsed = JSON.parse(first.body) as { id: number; result: { structuredContent: { ok: boolean; data: { run: { id: string } } } } };
    expect(parsed.id).toBe(20);
    expect(parsed.result.structuredContent.ok).toBe(true);
    expect(await post(viaSdk, mira, start)).toEqual(first);
    // And the other way round: a write through the SDK, replayed directly.
    const claim = call(21, 'claim', { runId: parsed.result.structuredContent.data.run.id, stepId: 'review_claim', requestId: 'direct-2' });
    const claimed = await post(viaSdk, reviewer, claim);
    expect(JSON.parse(claimed.body).result.structuredContent.ok).toBe(true);
    expect(await post(direct, reviewer, claim)).toEqual(claimed);
  });
});

describe('which requests go direct', () => {
  const req = (headers: Record<string, string | string[]>) => {
    const r = { headers: {} as Record<string, string>, headersDistinct: {} as Record<string, string[]> };
    for (const [k, v] of Object.entries(headers)) {
      r.headers[k] = Array.isArray(v) ? v.join(', ') : v;
      r.headersDistinct[k] = Array.isArray(v) ? v : [v];
    }
    return r as unknown as IncomingMessage;
  };
  const plain = req(JSON_HEADERS);
  const body = (o: string) => JSON.parse(o) as unknown;

  it('a single tools/call with a name, plain or no arguments, a string or whole-number id, and an ordinary _meta', () => {
    expect(directCall(plain, body(call(1, 'describe', {})))).toEqual({ id: 1, name: 'describe', arguments: {} });
    expect(directCall(plain, body(call('a', 'get_work')))).toEqual({ id: 'a', name: 'get_work', arguments: undefined });
    expect(directCall(plain, body(call(2, 'describe', {}, { _meta: { progressToken: 3, other: 'kept' } })))).not.toBeNull();
    expect(directCall(req({ ...JSON_HEADERS, 'mcp-protocol-version': '2025-03-26' }), body(call(1, 'describe', {})))).not.toBeNull();
  });

  it('everything else is left to the SDK', () => {
    const left: [string, IncomingMessage, unknown][] = [
      ['initialize', plain, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }],
      ['tools/list', plain, { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
      ['a notification (no id)', plain, { jsonrpc: '2.0', method: 'tools/call', params: { name: 'describe' } }],
      ['a batch', plain, [body(call(1, 'describe', {}))]],
      ['a fractional id', plain, body(call(1.5, 'describe', {}))],
      ['a null id', plain, { ...(body(call(1, 'describe', {})) as object), id: null }],
      ['JSON-RPC other than 2.0', plain, { ...(body(call(1, 'describe', {})) as object), jsonrpc: '1.0' }],
      ['a key JSON-RPC does not have', plain, { ...(body(call(1, 'describe', {})) as object), extra: 1 }],
      ['a name that is not a string', plain, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 7 } }],
      ['arguments that are a list', plain, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'describe', arguments: [] } }],
      ['a task asked for', plain, body(call(1, 'describe', {}, { task: { ttl: 1000 } }))],
      ['a request tied to a task', plain, body(call(1, 'describe', {}, { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } }))],
      ['a progress token that is neither a string nor a whole number', plain, body(call(1, 'describe', {}, { _meta: { progressToken: 1.5 } }))],
      ['no event streams accepted', req({ ...JSON_HEADERS, accept: 'application/json' }), body(call(1, 'describe', {}))],
      ['a body that is not JSON by its content type', req({ ...JSON_HEADERS, 'content-type': 'text/plain' }), body(call(1, 'describe', {}))],
      ['two content types', req({ ...JSON_HEADERS, 'content-type': ['application/json', 'text/plain'] }), body(call(1, 'describe', {}))],
      ['an unsupported protocol version', req({ ...JSON_HEADERS, 'mcp-protocol-version': '1999-01-01' }), body(call(1, 'describe', {}))],
      ['no body', plain, undefined],
    ];
    for (const [what, r, b] of left) expect(directCall(r, b), what).toBeNull();
  });
});

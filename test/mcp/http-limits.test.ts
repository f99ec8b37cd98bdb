/**
 * MCP over HTTP under hostile or careless clients (issue 13, items 11 and 13):
 * bodies bounded by the board's maxUploadBytes (413), GET and DELETE answered
 * 405 at once, silent and slow connections cut off, at most 16 requests in
 * flight per identity (429), a cap on sockets, and `serve` refusing to run
 * without the port it was asked for. Real sockets on 127.0.0.1; the server
 * in-process with short timeouts where a timeout is what is tested.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { addAgent, editManifest } from '../../src/board/people.js';
import { createHttpServer, type HttpLimits } from '../../src/http/server.js';
import { createToken } from '../../src/service/credentials.js';
import { Service } from '../../src/service/service.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin/workboard.js');

// Small limits keep the bodies small: the largest legitimate body is then
// max(4/3 × 48 KiB, 16 KiB) + 64 KiB = 128 KiB exactly.
const MAX_UPLOAD = 48 * 1024;
const LIMIT = 4 * (MAX_UPLOAD / 3) + 64 * 1024;

let dir: string;
let board: Board;
let service: Service;
let reviewer: string;
let second: string;

const setLimits = (limits: { maxUploadBytes: number; runDataBytes: number }) =>
  editManifest(board, 'test', 'limits.changed', (d) => {
    d.limits = limits;
    return `limits ${JSON.stringify(limits)}`;
  });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wb-http-limits-'));
  cpSync(path.join(ROOT, 'examples/board'), dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  board = await Board.open(dir);
  await addAgent(board, 'test', 'second');
  await setLimits({ maxUploadBytes: MAX_UPLOAD, runDataBytes: 16 * 1024 });
  service = await Service.open(board);
  reviewer = (await createToken(board.store, 'reviewer', new Date())).token;
  second = (await createToken(board.store, 'second', new Date())).token;
});
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(options: Partial<HttpLimits> = {}): Promise<{ port: number; server: Server }> {
  const server = createHttpServer(service, 'test', options);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, server };
}

const rpc = (name: string, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
const headers = (token: string | null) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

/** One tool call over plain fetch: the HTTP status and the tool's {ok, ...} result. */
async function call(port: number, token: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: headers(token), body: rpc(name, args) });
  const json = (await res.json()) as { result: { structuredContent: { ok: boolean } } };
  return { status: res.status, result: json.result.structuredContent };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

function answer(res: http.IncomingMessage): Promise<Answer> {
  return new Promise((resolve) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => (text += d));
    res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text === '' ? null : JSON.parse(text) }));
  });
}

/** A request on its own socket whose body we send (or not) ourselves. */
function open(port: number, method: string, hdrs: Record<string, string | number>) {
  const req = http.request({ host: '127.0.0.1', port, method, path: '/mcp', headers: hdrs, agent: false });
  req.on('error', () => {}); // the server may close while we still send: that is the point
  const response = new Promise<Answer>((resolve) => req.once('response', (res) => void answer(res).then(resolve)));
  return { req, response };
}

/** A raw socket: every byte the server sent until it closed the connection. */
function rawSocket(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let got = '';
  socket.on('data', (d) => (got += String(d)));
  socket.on('error', () => {});
  const closed = new Promise<string>((r) => socket.once('close', () => r(got)));
  return { socket, closed };
}

describe('request bodies are bounded by maxUploadBytes', () => {
  it('a streamed body over the limit gets 413 naming the limit before the client has sent it, and the server goes on answering', async () => {
    const { port } = await serve();
    const { req, response } = open(port, 'POST', headers(reviewer)); // no Content-Length: chunked
    const total = 256 * LIMIT; // 32 MiB
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    let answered = false;
    void response.then(() => (answered = true));
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
    const a = await response;
    expect(a.status).toBe(413);
    expect(a.headers.connection).toBe('close');
    expect(a.body).toEqual({ error: `the request body is over the limit of ${LIMIT} bytes (an upload of maxUploadBytes, base64-encoded, plus 65536 bytes)`, limitBytes: LIMIT });
    expect(sent).toBeLessThan(total);
    req.destroy();
    const next = await call(port, reviewer, 'describe', {});
    expect(next).toMatchObject({ status: 200, result: { ok: true } });
  });

  it('a Content-Length over the limit gets 413 without the body being sent; with Expect: 100-continue, no 100 is sent', async () => {
    const { port } = await serve();
    for (const expect100 of [false, true]) {
      const { req, response } = open(port, 'POST', { ...headers(reviewer), 'content-length': LIMIT + 1, ...(expect100 ? { expect: '100-continue' } : {}) });
      let continued = false;
      req.on('continue', () => (continued = true));
      req.flushHeaders(); // headers only: not one byte of the body
      const a = await response;
      expect(a.status).toBe(413);
      expect(a.body.limitBytes).toBe(LIMIT);
      expect(continued).toBe(false);
      req.destroy();
    }
  });

  it('an upload of exactly maxUploadBytes fits; a body that is not JSON is 400', async () => {
    const { port } = await serve();
    const up = await call(port, reviewer, 'upload', {
      fileName: 'max.bin',
      contentType: 'application/octet-stream',
      contentBase64: Buffer.alloc(MAX_UPLOAD, 7).toString('base64'),
      requestId: 'lim-up-1',
    });
    expect(up).toMatchObject({ status: 200, result: { ok: true } });
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: headers(reviewer), body: '{"jsonrpc": "2.0", oops' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'the request body is not JSON' });
  });

  it('the limit follows WORK.md, re-read on each request', async () => {
    const { port } = await serve();
    await setLimits({ maxUploadBytes: 3 * 1024, runDataBytes: 16 * 1024 }); // now the run data is the larger: 16 KiB + 64 KiB
    try {
      const { req, response } = open(port, 'POST', { ...headers(reviewer), 'content-length': 80 * 1024 + 1 });
      req.flushHeaders();
      expect((await response).body.limitBytes).toBe(80 * 1024);
      req.destroy();
    } finally {
      await setLimits({ maxUploadBytes: MAX_UPLOAD, runDataBytes: 16 * 1024 });
    }
  });
});

describe('requests that cannot be answered, and connections that say nothing', () => {
  it('GET and DELETE /mcp get 405 with Allow: POST at once; without a known token 401 comes first', async () => {
    const { port } = await serve();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method, headers: { ...headers(reviewer), accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({ error: 'method not allowed; MCP here is POST /mcp only (stateless, no server-initiated stream)' });
      for (const token of [null, 'wb_forged']) {
        const anon = await fetch(`http://127.0.0.1:${port}/mcp`, { method, headers: headers(token) });
        expect(anon.status).toBe(401);
        expect(await anon.json()).toEqual({ error: 'unauthorized' });
      }
    }
  });

  it("the SDK's own client opens its server stream with GET, gets 405, and goes on working", async () => {
    const { port, server } = await serve();
    const sawGet = new Promise<void>((r) => server.prependListener('request', (req: http.IncomingMessage) => req.method === 'GET' && r()));
    const c = new Client({ name: 'test', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${reviewer}` } } }));
    await sawGet;
    const r = await c.callTool({ name: 'describe', arguments: {} });
    expect((r.structuredContent as { ok: boolean }).ok).toBe(true);
    await c.close();
  });

  it('a connection that sends nothing gets 408 and is closed (headersTimeout)', async () => {
    const { port } = await serve({ headersTimeoutMs: 200, idleTimeoutMs: 60_000 });
    const { closed } = rawSocket(port);
    expect(await closed).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('headers and then a stalled body: the socket is closed (idle timeout)', async () => {
    const { port } = await serve({ idleTimeoutMs: 200 });
    const { socket, closed } = rawSocket(port);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${reviewer}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"json`);
    expect(await closed).toBe('');
  });

  it('headers and then a body trickling in: 408 and closed (requestTimeout)', async () => {
    // requestTimeout is raised to what a body of the limit needs at 256 KiB/s: 128 KiB → 500 ms.
    const { port } = await serve({ headersTimeoutMs: 400, requestTimeoutMs: 100, idleTimeoutMs: 60_000 });
    const { socket, closed } = rawSocket(port);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${reviewer}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`);
    const trickle = setInterval(() => socket.write(' '), 20);
    try {
      expect(await closed).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    } finally {
      clearInterval(trickle);
    }
  });
});

describe('connections per identity and in all', () => {
  it('the 17th request in flight of one identity gets 429 with Retry-After while another identity is served; unauthenticated ones never count', async () => {
    const { port } = await serve();
    const body = rpc('describe', {});
    const slow = (token: string) => open(port, 'POST', { ...headers(token), 'content-length': Buffer.byteLength(body), expect: '100-continue' });
    // Unauthenticated requests are refused on their headers, before any body, and hold nothing.
    const anon = Array.from({ length: 20 }, () => open(port, 'POST', { ...headers('wb_forged'), 'content-length': 1000 }));
    for (const a of anon) a.req.flushHeaders();
    for (const a of anon) expect((await a.response).status).toBe(401);
    // 100 Continue is sent once a request holds its slot: 16 held, each waiting for its body.
    const held = Array.from({ length: 16 }, () => slow(reviewer));
    await Promise.all(held.map((h) => new Promise((r) => (h.req.once('continue', r), h.req.flushHeaders()))));
    const extra = slow(reviewer);
    extra.req.flushHeaders();
    const refused = await extra.response;
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toEqual({ error: 'too many requests in flight for reviewer: at most 16 at once' });
    expect(await call(port, second, 'describe', {})).toMatchObject({ status: 200, result: { ok: true } });
    // The held ones finish; their slots come back.
    for (const h of held) h.req.end(body);
    for (const h of held) expect((await h.response).status).toBe(200);
    expect(await call(port, reviewer, 'describe', {})).toMatchObject({ status: 200, result: { ok: true } });
  });

  it('sockets beyond maxConnections are dropped at once', async () => {
    const { port, server: s } = await serve({ maxConnections: 2 });
    const accepted = new Promise<void>((r) => {
      let n = 0;
      s.on('connection', () => ++n === 2 && r());
    });
    const a = rawSocket(port);
    const b = rawSocket(port);
    await accepted;
    const dropped = new Promise((r) => s.once('drop', r));
    const c = rawSocket(port);
    expect(await c.closed).toBe('');
    await dropped;
    a.socket.destroy();
    b.socket.destroy();
  });
});

describe('workboard serve --http on an address it cannot have', () => {
  it('exits 1 with one clear line when the port is taken, and does not keep running', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const child = spawn(process.execPath, [BIN, '--board', dir, 'serve', '--http', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      const code = await new Promise((r) => child.once('close', r));
      expect(code).toBe(1);
      expect(err).toBe(`error: cannot listen on 127.0.0.1:${port}: the address is already in use (another workboard serve?)\n`);
      expect(out).toBe('');
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });
});

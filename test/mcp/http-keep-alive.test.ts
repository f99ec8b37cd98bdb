/**
 * A request sent in time on a kept-alive connection is answered, even when
 * the server's event loop stalls past the keep-alive timeout before reading
 * it (issue 39, item 9: under load, 4 calls of 15,602 failed with `fetch
 * failed`). After a stall node runs due timers before it reads sockets, so
 * its own keep-alive close reset such a request. Real sockets on 127.0.0.1:
 * the server in this process (so the test can stall its loop), the client a
 * child process with a keep-alive agent (one socket, reused).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { createHttpServer } from '../../src/http/server.js';
import { Service } from '../../src/service/service.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Announced as `Keep-Alive: timeout=2`; node's agent reuses a socket for 1 s less than announced, and node's
 * server closes it 1 s after.
 */
const KEEP_ALIVE_MS = 2000;
const NODE_BUFFER_MS = 1000;

let dir: string;
let server: Server;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wb-keep-alive-'));
  cpSync(path.join(ROOT, 'examples/board'), dir, { recursive: true });
  rmSync(path.join(dir, '.work'), { recursive: true, force: true });
  const service = await Service.open(await Board.open(dir));
  server = createHttpServer(service, 'test', { keepAliveTimeoutMs: KEEP_ALIVE_MS });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/** Two GETs on one kept-alive socket, the second 100 ms after the first answer; each outcome a line on stdout. */
const CLIENT = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const get = (n, then) => http.get({ host: '127.0.0.1', port: ${'${PORT}'}, path: '/signin', agent }, (res) => {
  res.resume();
  res.on('end', () => { console.log(n + ' ' + res.statusCode + (req.reusedSocket ? ' reused' : ' new')); then(); });
}).on('error', (e) => { console.log(n + ' error ' + e.code); process.exit(0); });
let req;
req = get('first', () => setTimeout(() => { req = get('second', () => agent.destroy()); }, 100));
`;

it('answers a request sent in time on a kept-alive socket while the server was stalled past its keep-alive timeout, and still closes an idle one', async () => {
  const child = spawn(process.execPath, ['-e', CLIENT.replace('${PORT}', String(port))], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stalled = 0;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (stalled === 0 && out.includes('first ')) {
      // Stall this process's loop (the server's) past the socket's close time; the client sends its second request meanwhile.
      const until = Date.now() + KEEP_ALIVE_MS + NODE_BUFFER_MS + 600;
      while (Date.now() < until) stalled++;
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  expect(stalled).toBeGreaterThan(0);
  expect(out.trim().split('\n')).toEqual(['first 200 new', 'second 200 reused']);

  // And a kept-alive socket left idle is still closed by the server.
  const raw = net.connect(port, '127.0.0.1');
  raw.write('GET /signin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  let answer = '';
  raw.on('data', (d: Buffer) => (answer += d.toString()));
  await new Promise((resolve) => raw.once('close', resolve));
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  expect(answer).toMatch(/keep-alive: timeout=2/i);
}, 30_000);

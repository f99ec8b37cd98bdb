/**
 * The one HTTP server `workboard serve --http` listens with: `/mcp` for
 * agents (src/mcp/http.ts) and the people's web app (src/web/app.ts) on
 * every other path, mounted side by side so neither knows of the other.
 * Paths with `/.well-known/` go to MCP: its clients probe OAuth discovery there.
 * Slack's interactivity requests go to `/slack/interactions` (slack.ts).
 *
 * The server bounds every connection: complete headers within a time, a
 * body at the rate MCP's body limit needs, idle sockets closed, at most
 * MAX_CONNECTIONS sockets in all.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { bodyLimit, createMcpHandler, DEFAULT_MCP_LIMITS, requestTimeoutFor, type McpLimits } from '../mcp/http.js';
import type { Service } from '../service/service.js';
import { createWebApp } from '../web/app.js';
import { requestUrl } from '../web/request.js';
import { requestScope } from '../core/log.js';
import { OPS_PATHS } from './ops-answer.js';
import type { OpsHandler } from './ops.js';
import { createSlackEndpoint, SLACK_PATH } from './slack.js';

/** Sockets in all: file descriptors and memory stay bounded whatever clients do. */
export const MAX_CONNECTIONS = 256;

export interface HttpLimits extends McpLimits {
  /** Complete headers must arrive within this; a connection that sends nothing is closed after it. */
  headersTimeoutMs: number;
  /** An idle kept-alive connection between two requests. */
  keepAliveTimeoutMs: number;
  /** A socket silent this long while we wait for the client is closed. */
  idleTimeoutMs: number;
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  ...DEFAULT_MCP_LIMITS,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  maxConnections: MAX_CONNECTIONS,
};

/** What serve adds: `ops` answers /healthz, /readyz and /metrics (ops.ts; without it they go to the web app like any path); `log` takes the web app's lines. */
export interface HttpExtras {
  ops?: OpsHandler;
  log?: (line: string) => void;
}

/** A request id a client or proxy sent, when it is short and plain; else one of ours. */
const GIVEN_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function createHttpServer(service: Service, version: string, options: Partial<HttpLimits> = {}, extras: HttpExtras = {}): HttpServer {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options };
  const { ops } = extras;
  const web = createWebApp(service, extras.log ? { log: extras.log } : {});
  const slack = createSlackEndpoint(service, extras.log ?? (() => undefined));
  // This server's request ids: a random prefix, then a count (unique enough to find one request in a day's log).
  const prefix = randomBytes(3).toString('hex');
  let requests = 0;
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: requestTimeoutFor(limits, bodyLimit(service.board.manifest.settings)),
      // How often node looks for connections past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    (req, res) => void scoped(req, res, false),
  );
  const mcp = createMcpHandler(service, version, limits, server);
  /** Each connection's latest request, so a timeout can tell whether one came in since. */
  const latest = new WeakMap<Socket, IncomingMessage>();
  /** Every line logged while the request is answered names it (core/log.ts); the answer says its id too. */
  function scoped(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && GIVEN_ID.test(given) ? given : `${prefix}-${(++requests).toString(36)}`;
    res.setHeader('x-request-id', id);
    return requestScope.run({ req: id }, () => handle(req, res, expectsContinue));
  }
  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    latest.set(req.socket, req);
    // A target no URL parser takes goes to the web app, which answers 400.
    const pathname = requestUrl(req)?.pathname ?? '';
    if (pathname === '/mcp' || pathname.includes('/.well-known/')) return mcp(req, res, pathname, expectsContinue);
    if (ops && OPS_PATHS.has(pathname)) return ops(req, res, pathname);
    if (pathname === SLACK_PATH) return slack.handle(req, res);
    if (expectsContinue) res.writeContinue();
    return web.handle(req, res);
  }
  // Answer `Expect: 100-continue` ourselves, so a refused body is never sent at all.
  server.on('checkContinue', (req, res) => void scoped(req, res, true));
  // Live pages hold their streams open: end them as the server begins to close, or it would wait for them forever.
  const closeServer = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    web.close();
    slack.close();
    return closeServer(cb);
  };
  // A socket that timed out (idle between kept-alive requests, or silent mid-request) is closed one turn of
  // the event loop later, not at once, unless a request came in on it in that turn. After the loop stalls
  // (a busy machine), timers run before sockets are read, so node's own close would reset a request the
  // client sent in time on a kept-alive connection: under load, calls failed with `fetch failed` (issue 39).
  server.on('timeout', (socket: Socket) => {
    const before = latest.get(socket);
    setImmediate(() => {
      if (latest.get(socket) === before) socket.destroy();
    });
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.timeout = limits.idleTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
}

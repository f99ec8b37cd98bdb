/**
 * The one HTTP server `workboard serve --http` listens with: `/mcp` for
 * agents (src/mcp/http.ts) and the people's web app (src/web/app.ts) on
 * every other path, mounted side by side so neither knows of the other.
 * Paths with `/.well-known/` go to MCP: its clients probe OAuth discovery there.
 *
 * The server bounds every connection: complete headers within a time, a
 * body at the rate MCP's body limit needs, idle sockets closed, at most
 * MAX_CONNECTIONS sockets in all.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { bodyLimit, createMcpHandler, DEFAULT_MCP_LIMITS, requestTimeoutFor, type McpLimits } from '../mcp/http.js';
import type { Service } from '../service/service.js';
import { createWebApp } from '../web/app.js';
import { requestUrl } from '../web/request.js';

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

export function createHttpServer(service: Service, version: string, options: Partial<HttpLimits> = {}): HttpServer {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options };
  const web = createWebApp(service);
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: requestTimeoutFor(limits, bodyLimit(service.board.manifest.settings)),
      // How often node looks for connections past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    (req, res) => void handle(req, res, false),
  );
  const mcp = createMcpHandler(service, version, limits, server);
  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    // A target no URL parser takes goes to the web app, which answers 400.
    const pathname = requestUrl(req)?.pathname ?? '';
    if (pathname === '/mcp' || pathname.includes('/.well-known/')) return mcp(req, res, pathname, expectsContinue);
    if (expectsContinue) res.writeContinue();
    return web.handle(req, res);
  }
  // Answer `Expect: 100-continue` ourselves, so a refused body is never sent at all.
  server.on('checkContinue', (req, res) => void handle(req, res, true));
  // Live pages hold their streams open: end them as the server begins to close, or it would wait for them forever.
  const closeServer = server.close.bind(server);
  server.close = ((cb?: (err?: Error) => void) => {
    web.close();
    return closeServer(cb);
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.timeout = limits.idleTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
}

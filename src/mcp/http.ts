/**
 * MCP over Streamable HTTP for remote agents and people, as the handler
 * src/http/server.ts mounts at `/mcp`. Every request needs
 * `Authorization: Bearer <token>`; a missing or unknown token gets 401 and
 * nothing else. Stateless: each request gets its own MCP server bound to the
 * token's identity, so rights follow the caller, checked in the service.
 * Tokens are checked against `.work/tokens.json` as it is now (a revoke or an
 * expiry applies to the next request); an address that keeps failing is
 * answered 429 for a while (core/throttle.ts); the OAuth discovery paths MCP
 * clients probe answer 404, so they fall back to the configured header.
 *
 * Bounded: a body over the largest legitimate one gets 413 before it is read
 * (Content-Length) or as soon as it passes the limit; the server's request
 * timeout grows with that limit; one identity has at most
 * MAX_IN_FLIGHT_PER_IDENTITY requests in flight (429 beyond). A refused
 * request's body is never read.
 */
import type { IncomingMessage, OutgoingHttpHeaders, Server as HttpServer, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Settings } from '../board/manifest.js';
import { BearerTokens } from '../service/credentials.js';
import { resolveActor } from '../service/identity.js';
import type { Service } from '../service/service.js';
import { clientAddress, trustedProxies } from '../core/client-address.js';
import { addressKey, MAX_THROTTLED_KEYS, Throttle } from '../core/throttle.js';
import { answerDirect, directCall } from './direct-call.js';
import { createMcpServer } from './server.js';

/** Room beside the payload for the JSON-RPC envelope, a file name, a content type and a request id. */
const BODY_MARGIN = 64 * 1024;

/** The slowest upload we wait for (2 Mbit/s): the request timeout grows with the body limit at this rate. */
const MIN_BODY_BYTES_PER_SECOND = 256 * 1024;

/**
 * An agent's loop makes one call at a time, a few in parallel at most; 16
 * leaves room for that while one identity (a runaway loop, a leaked token)
 * can hold at most 16 of the MAX_CONNECTIONS sockets, never all of them.
 */
export const MAX_IN_FLIGHT_PER_IDENTITY = 16;

export interface McpLimits {
  /** Headers and body must arrive within this, raised to what a body of the limit needs at MIN_BODY_BYTES_PER_SECOND. */
  requestTimeoutMs: number;
  maxInFlightPerIdentity: number;
  /** Failed authentications one address may make at once, and how often it earns one more (see core/throttle.ts). */
  authFailureBurst: number;
  authFailureRefillMs: number;
  /** Answer a plain tools/call without building an SDK server for it (direct-call.ts); false sends every request through the SDK. */
  directCalls: boolean;
}

export const DEFAULT_MCP_LIMITS: McpLimits = {
  requestTimeoutMs: 30_000,
  maxInFlightPerIdentity: MAX_IN_FLIGHT_PER_IDENTITY,
  authFailureBurst: 30,
  authFailureRefillMs: 1000,
  directCalls: true,
};

/** The largest legitimate body: an upload of maxUploadBytes (base64 is 4/3 of it) or a submit carrying a whole run's data. */
export function bodyLimit(s: Pick<Settings, 'maxUploadBytes' | 'runDataBytes'>): number {
  return Math.max(4 * Math.ceil(s.maxUploadBytes / 3), s.runDataBytes) + BODY_MARGIN;
}

export function requestTimeoutFor(limits: Pick<McpLimits, 'requestTimeoutMs'>, maxBody: number): number {
  return Math.max(limits.requestTimeoutMs, Math.ceil((maxBody / MIN_BODY_BYTES_PER_SECOND) * 1000));
}

/** An error answer. It ends the connection: otherwise node would read and discard whatever body the client still sends. */
function deny(res: ServerResponse, status: number, body: Record<string, unknown>, headers: OutgoingHttpHeaders = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
    ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
    ...headers,
  });
  res.end(text);
}

function tooLarge(res: ServerResponse, max: number) {
  deny(res, 413, { error: `the request body is over the limit of ${max} bytes (an upload of maxUploadBytes, base64-encoded, plus ${BODY_MARGIN} bytes)`, limitBytes: max });
}

/** The body, or 'too large' as soon as it passes `max` (the rest is left unread), or 'gone' if the client or a timeout ended it first. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too large' | 'gone'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (v: Buffer | 'too large' | 'gone') => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      resolve(v);
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
      else {
        req.pause(); // stop pulling the rest off the wire
        done('too large');
      }
    };
    const onEnd = () => done(Buffer.concat(chunks, size));
    const onClose = () => done('gone');
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
  });
}

/** A request to `/mcp`, answered on `server`, whose request timeout follows WORK.md's body limit. */
export type McpHandler = (req: IncomingMessage, res: ServerResponse, pathname: string, expectsContinue: boolean) => Promise<void>;

export function createMcpHandler(service: Service, version: string, limits: McpLimits, server: Pick<HttpServer, 'requestTimeout'>): McpHandler {
  const inFlight = new Map<string, number>();
  const tokens = new BearerTokens(service.board);
  const throttle = new Throttle({ burst: limits.authFailureBurst, refillMs: limits.authFailureRefillMs, maxKeys: MAX_THROTTLED_KEYS });
  const trusted = trustedProxies();

  return async (req, res, pathname, expectsContinue) => {
    try {
      // MCP clients probe OAuth discovery first; 404 (not 401) tells them to use the configured header.
      if (pathname.includes('/.well-known/')) return deny(res, 404, { error: 'not found; this server takes a bearer token in the Authorization header (no OAuth)' });
      // Behind a proxy named in WORKBOARD_TRUST_PROXY, the client it forwards for; else the socket's peer.
      const address = addressKey(clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], trusted));
      const wait = throttle.waitMs(address, Date.now());
      if (wait > 0) return deny(res, 429, { error: `too many failed authentications from this address; retry in ${Math.ceil(wait / 1000)} s` }, { 'retry-after': String(Math.ceil(wait / 1000)) });
      const unauthorized = (body: Record<string, unknown> = { error: 'unauthorized' }) => {
        throttle.failed(address, Date.now());
        deny(res, 401, body);
      };
      const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
      const presented = m ? tokens.check(m[1]!, new Date()) : null;
      if (!presented?.ok) return unauthorized(presented?.reason === 'expired' ? { error: 'unauthorized', reason: 'this token has expired; make a new one with workboard token rotate' } : undefined);
      const identity = presented.token.identity;
      await service.board.refresh();
      const who = resolveActor(service.board.manifest, identity);
      if (!who.ok) return unauthorized();
      // Stateless: there is no server-initiated stream to GET and no session to DELETE.
      if (req.method !== 'POST') return deny(res, 405, { error: 'method not allowed; MCP here is POST /mcp only (stateless, no server-initiated stream)' }, { allow: 'POST' });
      // WORK.md may have changed the limit since the last request.
      const max = bodyLimit(service.board.manifest.settings);
      server.requestTimeout = requestTimeoutFor(limits, max);
      const declared = req.headers['content-length'];
      if (declared !== undefined && Number(declared) > max) return tooLarge(res, max);
      const held = inFlight.get(identity) ?? 0;
      if (held >= limits.maxInFlightPerIdentity) {
        return deny(res, 429, { error: `too many requests in flight for ${identity}: at most ${limits.maxInFlightPerIdentity} at once` }, { 'retry-after': '1' });
      }
      inFlight.set(identity, held + 1);
      res.once('close', () => {
        const n = (inFlight.get(identity) ?? 1) - 1;
        if (n === 0) inFlight.delete(identity);
        else inFlight.set(identity, n);
      });
      if (expectsContinue) res.writeContinue();
      const raw = await readBody(req, max);
      if (raw === 'gone') return;
      if (raw === 'too large') return tooLarge(res, max);
      // From here the wait is ours (a lock, a check-1 evaluator), not the client's.
      req.socket.setTimeout(0);
      let body: unknown;
      try {
        body = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'));
      } catch {
        return deny(res, 400, { error: 'the request body is not JSON' });
      }
      const direct = limits.directCalls ? directCall(req, body) : null;
      if (direct) return await answerDirect(res, direct, () => service.callWire(direct.name, direct.arguments ?? {}, who.actor, { held: true, transport: 'mcp' }));
      const mcp = createMcpServer(service, who.actor, version);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) deny(res, 500, { error: e instanceof Error ? e.message : 'internal error' });
    }
  };
}

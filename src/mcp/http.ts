/**
 * MCP over Streamable HTTP for remote agents and people. Every request needs
 * `Authorization: Bearer <token>`; a missing or unknown token gets 401 and
 * nothing else. Stateless: each request gets its own MCP server bound to the
 * token's identity, so rights follow the caller, checked in the service.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { identityFor } from '../service/credentials.js';
import { resolveActor } from '../service/identity.js';
import type { Service } from '../service/service.js';
import { createMcpServer } from './server.js';

const MAX_BODY = 64 * 1024 * 1024;

function deny(res: ServerResponse, status: number, message: string) {
  res.writeHead(status, { 'content-type': 'application/json', ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
  res.end(JSON.stringify({ error: message }));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

export function createHttpServer(service: Service, version: string): HttpServer {
  return createServer(async (req, res) => {
    try {
      const auth = req.headers.authorization ?? '';
      const m = /^Bearer (\S+)$/.exec(auth);
      const identity = m ? await identityFor(service.board.store, m[1]!) : null;
      if (!identity) return deny(res, 401, 'unauthorized');
      await service.board.refresh();
      const who = resolveActor(service.board.manifest, identity);
      if (!who.ok) return deny(res, 401, 'unauthorized');
      if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return deny(res, 404, 'not found; MCP is served at /mcp');
      let body: unknown;
      try {
        body = req.method === 'POST' ? await readBody(req) : undefined;
      } catch {
        return deny(res, 400, 'the request body is not JSON');
      }
      const server = createMcpServer(service, who.actor, version);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) deny(res, 500, e instanceof Error ? e.message : 'internal error');
    }
  });
}

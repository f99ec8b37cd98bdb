/**
 * The request an agent's loop is made of, one `tools/call`, answered without
 * building an SDK server, transport and web Request and Response for it.
 * Stateless MCP over HTTP builds all of these for every request
 * (src/mcp/http.ts), which cost serve more CPU than most tools do
 * (docs/performance.md). Only a request that the SDK would answer with a plain result
 * is taken here: a single JSON-RPC request of `tools/call` with a name and
 * plain arguments, headers the SDK accepts, no task asked for. The answer is
 * the same JSON-RPC response the SDK writes, with the same status and content
 * type, built from the same `toolResult`. Anything else (initialize,
 * tools/list, notifications, batches, tasks, a header the SDK refuses) goes to
 * the SDK as before, so its refusals stay its own. test/mcp/direct-call.test.ts
 * holds both paths to the same bytes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../service/results.js';
import { toolResult } from './server.js';

export interface DirectCall {
  id: string | number;
  name: string;
  arguments: Record<string, unknown> | undefined;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
/** The `_meta` key that ties a request to a task: such a request is the SDK's to answer. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** JSON-RPC's code for a failure inside the method, as the SDK answers a handler that throws. */
const INTERNAL_ERROR = -32603;

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyKeys(o: Record<string, unknown>, allowed: Set<string>): boolean {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
}

/** A string or a whole number: what the SDK takes as a request id, and as a progress token. */
function isIdLike(v: unknown): v is string | number {
  return typeof v === 'string' || Number.isInteger(v);
}

/**
 * The call in `body`, when it is one the direct path answers as the SDK would;
 * null for anything the SDK should see.
 */
export function directCall(req: IncomingMessage, body: unknown): DirectCall | null {
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return null;
  const contentType = req.headersDistinct['content-type'];
  if (contentType?.length !== 1 || !isJsonContentType(contentType[0])) return null;
  const version = req.headersDistinct['mcp-protocol-version'];
  if (version !== undefined && (version.length !== 1 || !SUPPORTED_PROTOCOL_VERSIONS.includes(version[0]!))) return null;
  if (!isPlain(body) || !onlyKeys(body, REQUEST_KEYS)) return null;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || !isIdLike(id)) return null;
  if (!isPlain(params) || !onlyKeys(params, PARAM_KEYS) || typeof params.name !== 'string') return null;
  const args = params.arguments;
  if (args !== undefined && !isPlain(args)) return null;
  const meta = params._meta;
  if (meta !== undefined && (!isPlain(meta) || RELATED_TASK in meta || (meta.progressToken !== undefined && !isIdLike(meta.progressToken)))) return null;
  return { id, name: params.name, arguments: args };
}

/** Answer a direct call with `run`'s result, as the SDK would: 200 and the JSON-RPC response, or its error when `run` throws. */
export async function answerDirect(res: ServerResponse, call: DirectCall, run: () => Promise<ToolResult>): Promise<void> {
  let message: Record<string, unknown>;
  try {
    message = { result: toolResult(await run()), jsonrpc: '2.0', id: call.id };
  } catch (e) {
    message = { jsonrpc: '2.0', id: call.id, error: { code: INTERNAL_ERROR, message: e instanceof Error ? e.message : 'Internal error' } };
  }
  // A client that left gets nothing, as the SDK's aborted request does.
  if (res.destroyed) return;
  const text = JSON.stringify(message);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

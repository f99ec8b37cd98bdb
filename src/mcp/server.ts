/**
 * MCP for agents: the fourteen tools with our JSON Schemas as input schemas.
 * Each result is the tool's `{ok, data}` / `{ok: false, error}` object, carried
 * both as `structuredContent` and as JSON text so any client can read it.
 * A thin shell: every rule lives in the service.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Actor } from '../engine/types.js';
import { TOOLS, type Tool } from '../protocol/offer.js';
import { argumentSchema } from '../service/schemas.js';
import type { ToolResult } from '../service/results.js';
import type { Service } from '../service/service.js';

export const INSTRUCTIONS = `This server runs processes (PROCESS.md) step by step. Your loop:
1. get_work: ready steps you may claim, oldest first, each with the exact claim call.
2. claim: you get a token, the step's instructions and requirements, the process body, the run data and a handoff (what an earlier attempt left).
3. Do the work with your own tools. renew before expiresAt if you need longer (new token; the old one dies); add progress notes.
4. upload files you must attach as file evidence, then submit: output, evidence, a short summary, and next + reason when the step offers routes.
5. escalate with a note if you cannot finish: a person takes over.
Some steps have a model check: issues reading "check: <question> → <answer>" mean it judged your submission wrong (the handoff keeps its verdict); an ok submit can leave the step waiting on a person when the check was unsure.
Errors: invalid = fix the call; not_accepted = fix the work and submit again (every issue is listed); stale = stop, call get_work again; conflict = move on (run_ended, claimed_by_other, already_decided); forbidden = stop (a claim token works only for the agent that claimed); not_found = stop; retry = retry with the same requestId, waiting a little longer each time; a retry whose issues include internal_fault will not mend itself: try at most twice more, then stop and report its incident id (the server answers conflict after that).
Every write takes a fresh requestId; repeating it returns the original result (use that after a lost response). In a run with mode "test", cause no real external effects.`;

function inputSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _s, $id: _i, title: _t, description: _d, ...schema } = argumentSchema(tool);
  return schema;
}

export function toolList(offered: readonly string[]) {
  return TOOLS.filter((t) => offered.includes(t)).map((t) => {
    const { description } = argumentSchema(t);
    return { name: t, description: typeof description === 'string' ? description : t, inputSchema: inputSchema(t) };
  });
}

/**
 * One validator for every server of this process. The SDK makes one per server by
 * default, a fresh Ajv each time, and HTTP makes a server per request; it is used
 * only for elicitation, which we never ask for.
 */
let validator: AjvJsonSchemaValidator | undefined;

export function createMcpServer(service: Service, actor: Actor, version: string): Server {
  validator ??= new AjvJsonSchemaValidator();
  const server = new Server({ name: 'workboard', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator });
  const offered = [...service.offer.tools];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList(offered) }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    // An identity removed from WORK.md loses this open connection at once, not at its next login.
    return toolResult(await service.callWire(req.params.name, req.params.arguments ?? {}, actor, { held: true, transport: 'mcp' }));
  });
  return server;
}

/** A tool's answer as MCP carries it: the same object as structured content and as JSON text. */
export function toolResult(result: ToolResult) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(result) }],
    structuredContent: result as unknown as Record<string, unknown>,
    isError: !result.ok,
  };
}

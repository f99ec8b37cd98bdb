/**
 * The demo's scripted agent: a real MCP client that starts `workboard mcp`
 * over stdio as the agent `reviewer`, exactly as an MCP client
 * configuration would, and reviews one expense claim of the example board
 * up to finance's approval: get_work, claim, submit with evidence and a
 * route. What it sends is fixed; what it reads comes from the server.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const DEMO_AGENT = 'reviewer';

export interface WorkedClaim {
  runId: string;
  workItemId: string;
  snapshot: string;
}

type Result = { ok: true; data: Record<string, unknown> } | { ok: false; error: { code: string; message: string; issues?: string[] } };

export async function reviewClaim(launcher: { node: string; bin: string }, boardRoot: string, runId: string): Promise<WorkedClaim> {
  const client = new Client({ name: 'workboard-demo-agent', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: launcher.node, args: [launcher.bin, 'mcp', '--as', DEMO_AGENT, '--board', boardRoot], stderr: 'pipe' }));
  const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const r = (await client.callTool({ name, arguments: args })).structuredContent as Result;
    if (!r.ok) throw new Error(`the demo agent's ${name} was refused: ${r.error.code}: ${r.error.message}${r.error.issues?.length ? ` (${r.error.issues.join('; ')})` : ''}`);
    return r.data;
  };
  try {
    const work = await call('get_work', { process: 'expense-approval' });
    const ready = (work.items as { runId: string; claim: { tool: string; arguments: Record<string, unknown> } }[]).find((i) => i.runId === runId);
    if (!ready) throw new Error(`the demo agent found no ready step on ${runId}`);
    const lease = await call(ready.claim.tool, { ...ready.claim.arguments, requestId: randomUUID() });
    const done = await call('submit', {
      token: lease.token,
      output: { withinPolicy: true, notes: 'Second-class rail fare Berlin–Hamburg return, within the travel policy limit of 250 EUR.' },
      evidence: [{ kind: 'link', ref: 'https://example.com/policy/travel#rail' }],
      summary: 'Read the receipt and checked it against the travel policy: within policy.',
      next: 'approve',
      reason: 'The claim is within policy.',
      requestId: randomUUID(),
    });
    const item = (done.workItems as { id: string; snapshot: string }[])[0];
    if (!item) throw new Error(`run ${runId} has no work item for finance after the review`);
    return { runId, workItemId: item.id, snapshot: item.snapshot };
  } finally {
    await client.close();
  }
}

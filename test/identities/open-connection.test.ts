/**
 * An identity removed from WORK.md loses a connection it already holds: a
 * `workboard mcp --as <agent>` process started before the removal answers its
 * next call `forbidden` (identity: removed), not only its next login.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, expect, it } from 'vitest';
import { BIN } from '../support/cli-run.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { boardWith } from './support.js';

afterAll(cleanupTmp);

type Result = { ok: boolean; data?: unknown; error?: { code: string; message: string; issues?: string[] } };

it('a stdio MCP connection of an agent removed meanwhile is refused from its next call', async () => {
  const { dir, wb } = await boardWith({ agents: ['spare', 'helper'] });
  const client = new Client({ name: 'open-connection-test', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--as', 'spare', '--board', dir], stderr: 'ignore' }));
  try {
    const call = async () => (await client.callTool({ name: 'get_work', arguments: {} })).structuredContent as Result;
    expect((await call()).ok).toBe(true);
    const removed = await wb('agent', 'remove', 'spare');
    expect(removed.code).toBe(0);
    const after = await call();
    expect(after).toMatchObject({ ok: false, error: { code: 'forbidden', issues: ['identity: removed'] } });
    expect(after.error!.message).toContain('spare');
  } finally {
    await client.close();
  }
});

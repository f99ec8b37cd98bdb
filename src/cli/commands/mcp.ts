import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { resolveActor } from '../../service/identity.js';
import { Service } from '../../service/service.js';
import { BoardError } from '../../board/errors.js';
import type { Cli } from '../cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

export function register(program: Command, cli: Cli): void {
  program
    .command('mcp')
    .description('serve MCP over stdio for one local agent (launch this from your MCP client configuration)')
    .addHelpText('after', '\nExample (MCP client config):\n  { "command": "npx", "args": ["workboard", "mcp", "--as", "reviewer", "--board", "/path/to/board"] }')
    .action(async () => {
      const as = cli.explicitAs();
      if (!as) cli.usage('workboard mcp needs --as <agent-id>: the agent this server acts as');
      const opts = { as };
      const board = await cli.board();
      const who = resolveActor(board.manifest, opts.as);
      if (!who.ok) throw new BoardError('invalid', `${who.message}; add it with workboard agent add ${opts.as}`);
      if (who.actor.kind !== 'agent') throw new BoardError('invalid', `${opts.as} is a person; workboard mcp acts only as an agent, so a person's decisions stay human`);
      // Loaded here so every other command starts without the MCP SDK.
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const { createMcpServer } = await import('../../mcp/server.js');
      const service = await Service.open(board);
      const server = createMcpServer(service, who.actor, pkg.version);
      await server.connect(new StdioServerTransport());
      await new Promise<void>((resolve) => {
        server.onclose = () => resolve();
        process.stdin.on('end', () => resolve());
      });
    });
}

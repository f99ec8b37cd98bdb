import type { Command } from 'commander';
import { evaluate } from '../../evaluator/evaluator.js';
import { resolveActor } from '../../service/identity.js';
import { Service } from '../../service/service.js';
import { BoardError } from '../../board/errors.js';
import type { Cli } from '../cli.js';
import { EXIT } from '../output.js';
import { VERSION } from '../version.js';
import { boundHeapGrowth } from '../heap-growth.js';

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
      boundHeapGrowth();
      const service = await Service.open(board, { evaluate });
      // This process lives as long as its agent: get_work then reuses what it read of each open run, as serve does.
      const stopWatching = service.watchOpenRuns();
      const server = createMcpServer(service, who.actor, VERSION);
      // One JSON-RPC line must fit the largest upload the board allows (base64 is 4/3 of the bytes), with room to spare.
      const maxBufferSize = Math.ceil(board.manifest.settings.maxUploadBytes / 3) * 4 + 1024 * 1024;
      let failure: Error | null = null;
      server.onerror = (e) => {
        failure = e;
        process.stderr.write(`workboard mcp: ${e.message}\n`);
      };
      await server.connect(new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize }));
      await new Promise<void>((resolve) => {
        server.onclose = () => resolve();
        process.stdin.on('end', () => resolve());
      });
      stopWatching();
      // The transport closes itself on a line over its limit: say so, and exit non-zero.
      if (failure && (failure as Error).message.includes('exceeded maximum size')) cli.exit(EXIT.refused);
    });
}

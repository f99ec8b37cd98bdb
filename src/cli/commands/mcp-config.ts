/** `workboard mcp-config <agent>`: the MCP client configuration to paste, with this machine's absolute paths. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import { createToken } from '../../service/credentials.js';
import { resolveActor } from '../../service/identity.js';
import { CLIENTS, mcpConfig, WHERE, type Client, type Target } from '../mcp-config.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

/** This installation's own launcher: whatever started us, the client starts the same files. */
export const BIN = fileURLToPath(new URL('../../../bin/workboard.js', import.meta.url));

export function register(program: Command, cli: Cli): void {
  program
    .command('mcp-config')
    .description('print paste-ready MCP client configuration for an agent: stdio by absolute paths, or --http with a bearer token')
    .argument('<agent>', 'the agent id, declared in WORK.md')
    .option('--client <client>', `${CLIENTS.join(', ')}`, 'json')
    .option('--http [url]', 'configure MCP over HTTP (workboard serve --http) instead of stdio; default URL http://127.0.0.1:7420/mcp')
    .option('--token <token>', 'the bearer token for --http (default: a new one is created for the agent and shown only here)')
    .addHelpText(
      'after',
      '\nExamples:\n  workboard mcp-config reviewer --client claude | sh\n  workboard mcp-config reviewer --client vscode > .vscode/mcp.json\n  workboard mcp-config reviewer --client cursor --http http://127.0.0.1:7420/mcp',
    )
    .action(async (agent: string, o: { client: string; http?: string | boolean; token?: string }) => {
      if (!(CLIENTS as readonly string[]).includes(o.client)) cli.usage(`--client is one of ${CLIENTS.join(', ')}, not "${o.client}"`);
      if (o.token !== undefined && o.http === undefined) cli.usage('--token goes with --http');
      const board = await cli.board();
      const who = resolveActor(board.manifest, agent);
      if (!who.ok) throw new BoardError('invalid', `${who.message}; add it with workboard agent add ${agent}`);
      if (who.actor.kind !== 'agent') throw new BoardError('invalid', `${agent} is a person; MCP clients act as agents, so a person's decisions stay human`);
      let target: Target;
      if (o.http === undefined) target = { kind: 'stdio', node: process.execPath, bin: BIN, agent, board: path.resolve(board.root) };
      else {
        let token = o.token;
        if (token === undefined) {
          token = (await createToken(board.store, agent, new Date())).token;
          process.stderr.write(`created a bearer token for ${agent}; it is shown only in this configuration\n`);
        }
        target = { kind: 'http', url: typeof o.http === 'string' ? o.http : 'http://127.0.0.1:7420/mcp', token };
      }
      const text = mcpConfig(o.client as Client, target);
      if (cli.json()) printJson({ ok: true, data: { client: o.client, transport: target.kind, config: text } });
      else {
        process.stdout.write(text);
        process.stderr.write(color.dim(`${o.client}: ${WHERE[o.client as Client]}\n`));
      }
      cli.exit(EXIT.ok);
    });
}

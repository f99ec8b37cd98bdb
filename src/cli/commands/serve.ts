import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import { createToken } from '../../service/credentials.js';
import { resolveActor } from '../../service/identity.js';
import { Service } from '../../service/service.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

export function register(program: Command, cli: Cli): void {
  const token = program.command('token').description('bearer tokens for MCP over HTTP');
  token
    .command('create')
    .argument('<identity>', 'an agent id or a person email declared in WORK.md')
    .description('make a token for an identity; it is shown once and only its hash is kept (in .work/)')
    .addHelpText('after', '\nExample:\n  workboard token create reviewer')
    .action(async (identity: string) => {
      const board = await cli.board();
      const who = resolveActor(board.manifest, identity);
      if (!who.ok) throw new BoardError('invalid', who.message);
      const t = await createToken(board.store, identity, new Date());
      if (cli.json()) printJson({ ok: true, data: { id: t.id, identity, token: t.token } });
      else process.stdout.write(`${t.token}\n${color.dim(`token ${t.id} for ${identity}; shown once, store it now`)}\n`);
      cli.exit(EXIT.ok);
    });

  program
    .command('serve')
    .description('serve MCP over Streamable HTTP at /mcp (bearer tokens from workboard token create)')
    .option('--http <host:port>', 'where to listen; loopback unless told otherwise', '127.0.0.1:7420')
    .addHelpText('after', '\nExample:\n  workboard serve --http 127.0.0.1:7420')
    .action(async (o: { http: string }) => {
      const m = /^(.*):(\d+)$/.exec(o.http);
      if (!m) cli.usage(`--http expects host:port, got "${o.http}"`);
      const board = await cli.board();
      const service = await Service.open(board);
      const { createHttpServer } = await import('../../mcp/http.js');
      const server = createHttpServer(service, pkg.version);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(Number(m[2]), m[1]!.replace(/^\[|\]$/g, ''), () => resolve());
      });
      const addr = server.address();
      const where = typeof addr === 'object' && addr ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}/mcp` : o.http;
      process.stdout.write(`workboard serving ${board.manifest.name} at ${where}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => server.close(() => resolve());
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}

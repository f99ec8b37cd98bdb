import type { Command } from 'commander';
import { BoardError } from '../../board/errors.js';
import { createToken } from '../../service/credentials.js';
import { resolveActor } from '../../service/identity.js';
import { Service } from '../../service/service.js';
import { color, EXIT, printJson } from '../output.js';
import type { Cli } from '../cli.js';
import { VERSION } from '../version.js';

/** Why the address could not be had, in words a person can act on. */
function cannotListen(e: NodeJS.ErrnoException, where: string): string {
  const why =
    e.code === 'EADDRINUSE' ? 'the address is already in use (another workboard serve?)'
    : e.code === 'EACCES' ? 'permission denied (ports below 1024 need privileges; pick a higher port)'
    : e.code === 'EADDRNOTAVAIL' ? 'no network interface of this machine has that address'
    : e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' ? 'the host name does not resolve'
    : e.message;
  return `cannot listen on ${where}: ${why}`;
}

export function register(program: Command, cli: Cli): void {
  const token = program.command('token').description('bearer tokens for MCP over HTTP')
    .addHelpText('after', '\nExample:\n  workboard token create reviewer');
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
    .description('the long-running coordinator: timers on time, hand edits adopted or refused as they land, and MCP over HTTP with --http')
    .option('--git-commit <seconds>', 'commit board changes to git at most once per this many seconds (never .work/)')
    .option('--http <host:port>', 'also serve MCP over Streamable HTTP at /mcp (bearer tokens from workboard token create); binds to loopback unless told otherwise')
    .addHelpText('after', '\nExample:\n  workboard serve --http 127.0.0.1:7420')
    .action(async (o: { http?: string; gitCommit?: string }) => {
      const gitSeconds = o.gitCommit === undefined ? undefined : Number(o.gitCommit);
      if (gitSeconds !== undefined && !(gitSeconds >= 1)) cli.usage(`--git-commit expects a number of seconds, got "${o.gitCommit}"`);
      const m = o.http === undefined ? null : /^(.*):(\d+)$/.exec(o.http);
      if (o.http !== undefined && !m) cli.usage(`--http expects host:port, got "${o.http}"`);
      const board = await cli.board();
      const service = await Service.open(board);
      const { Daemon } = await import('../../daemon/daemon.js');
      const daemon = new Daemon(board, service, gitSeconds ? { gitCommitMs: gitSeconds * 1000 } : {});
      await daemon.start();
      let server: import('node:http').Server | null = null;
      if (m) {
        const { createHttpServer } = await import('../../mcp/http.js');
        const http = createHttpServer(service, VERSION);
        const failed = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
          http.once('error', resolve);
          http.listen(Number(m[2]), m[1]!.replace(/^\[|\]$/g, ''), () => {
            http.off('error', resolve);
            resolve(null);
          });
        });
        if (failed) {
          // Without HTTP this serve is not what was asked for: stop the daemon and say why.
          await daemon.stop();
          process.stderr.write(`${color.red('error')}: ${cannotListen(failed, o.http!)}\n`);
          cli.exit(EXIT.refused);
        }
        server = http;
      }
      process.stdout.write(`workboard coordinating board ${board.manifest.name} in ${board.root}\n`);
      if (server) {
        const addr = server.address();
        const where = typeof addr === 'object' && addr ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}/mcp` : o.http;
        process.stdout.write(`MCP over HTTP at ${where} (Authorization: Bearer <token from workboard token create>)\n`);
      }
      await new Promise<void>((resolve) => {
        const stop = async () => {
          await daemon.stop();
          if (server) server.close(() => resolve());
          else resolve();
        };
        process.once('SIGINT', () => void stop());
        process.once('SIGTERM', () => void stop());
      });
    });
}

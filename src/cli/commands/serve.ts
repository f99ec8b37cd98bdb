import type { Command } from 'commander';
import type { Board } from '../../board/board.js';
import { boardBaseUrl } from '../../core/public-url.js';
import { clearServedAt, recordServedAt } from '../../board/served-at.js';
import { evaluate } from '../../evaluator/evaluator.js';
import { trackCalls, type Closer } from '../../mcp/graceful-close.js';
import { Service } from '../../service/service.js';
import { color, EXIT } from '../output.js';
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
  program
    .command('serve')
    .description('the long-running coordinator: timers on time, hand edits adopted or refused as they land, and MCP over HTTP with --http')
    .option('--git-commit <seconds>', 'commit board changes to git at most once per this many seconds (never .work/)')
    .option('--git-sync <seconds>', 'every this many seconds, workboard sync: commit, pull and merge run by run, push')
    .option('--git-timeout <seconds>', 'how long one fetch or push of --git-sync may take before the remote counts as unreachable (default 60)')
    .option('--http <host:port>', 'also serve MCP over Streamable HTTP at /mcp (bearer tokens from workboard token create); binds to loopback unless told otherwise')
    .addHelpText('after', '\nExample:\n  workboard serve --http 127.0.0.1:7420')
    .action(async (o: { http?: string; gitCommit?: string; gitSync?: string; gitTimeout?: string }) => {
      const gitSeconds = o.gitCommit === undefined ? undefined : Number(o.gitCommit);
      if (gitSeconds !== undefined && !(gitSeconds >= 1)) cli.usage(`--git-commit expects a number of seconds, got "${o.gitCommit}"`);
      const syncSeconds = o.gitSync === undefined ? undefined : Number(o.gitSync);
      if (syncSeconds !== undefined && !(syncSeconds >= 1)) cli.usage(`--git-sync expects a number of seconds, got "${o.gitSync}"`);
      const timeoutSeconds = o.gitTimeout === undefined ? undefined : Number(o.gitTimeout);
      if (timeoutSeconds !== undefined && !(timeoutSeconds > 0)) cli.usage(`--git-timeout expects a number of seconds, got "${o.gitTimeout}"`);
      await serveBoard(cli, await cli.board(), { http: o.http, gitSeconds, syncSeconds, timeoutSeconds });
    });
}

/**
 * Coordinate `board` until SIGINT or SIGTERM: the daemon, and MCP over HTTP
 * when `http` (host:port) is given. `announce` is told the MCP URL once
 * everything listens. On a signal it stops accepting and ends within a
 * second, letting calls in flight finish (graceful-close.ts).
 */
export async function serveBoard(cli: Cli, board: Board, o: { http?: string; gitSeconds?: number; syncSeconds?: number; timeoutSeconds?: number }, announce?: (mcpUrl: string | null) => void | Promise<void>): Promise<void> {
  const m = o.http === undefined ? null : /^(.*):(\d+)$/.exec(o.http);
  if (o.http !== undefined && !m) cli.usage(`--http expects host:port, got "${o.http}"`);
  const service = await Service.open(board, { evaluate });
  const { Daemon } = await import('../../daemon/daemon.js');
  const daemon = new Daemon(board, service, { ...(o.gitSeconds ? { gitCommitMs: o.gitSeconds * 1000 } : {}), ...(o.syncSeconds ? { gitSyncMs: o.syncSeconds * 1000 } : {}), ...(o.timeoutSeconds ? { gitTimeoutMs: o.timeoutSeconds * 1000 } : {}) });
  await daemon.start();
  let server: import('node:http').Server | null = null;
  let closer: Closer | null = null;
  if (m) {
    const { createHttpServer } = await import('../../http/server.js');
    const http = createHttpServer(service, VERSION);
    closer = trackCalls(http);
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
  let mcpUrl: string | null = null;
  if (server) {
    const addr = server.address();
    mcpUrl = typeof addr === 'object' && addr ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}/mcp` : `http://${o.http}/mcp`;
    process.stdout.write(`MCP over HTTP at ${mcpUrl} (Authorization: Bearer <token from workboard token create>)\n`);
    const web = new URL('/', mcpUrl).href;
    await recordServedAt(board.state, new URL(web).origin);
    const people = boardBaseUrl(board.manifest, { served: new URL(web).origin });
    process.stdout.write(`web app at ${web}${new URL('/', people).href === web ? '' : ` (people's links point to ${people})`}\n`);
  }
  await announce?.(mcpUrl);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = async () => {
      // A second signal while stopping means now.
      if (stopping) process.exit(EXIT.ok);
      stopping = true;
      // Stop taking requests first, so nothing new starts while the daemon winds down.
      const closed = closer ? closer.close(GRACE_MS) : Promise.resolve();
      await daemon.stop();
      await closed;
      await clearServedAt(board.state).catch(() => undefined);
      // Whatever still holds the event loop (a watcher, a timer of a library) must not keep a stopped serve alive.
      setTimeout(() => process.exit(process.exitCode ?? EXIT.ok), EXIT_AFTER_MS).unref();
      resolve();
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
  });
}

/** How long a stopping serve waits for answers still being sent before it closes their connections. */
const GRACE_MS = 800;
/** How long a stopped serve lets its event loop drain before it exits anyway. */
const EXIT_AFTER_MS = 500;

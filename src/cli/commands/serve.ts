import type { Command } from 'commander';
import type { Board } from '../../board/board.js';
import { boardBaseUrl } from '../../core/public-url.js';
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
    .option('--http <host:port>', 'also serve MCP over Streamable HTTP at /mcp (bearer tokens from workboard token create), the web app, /healthz, /readyz and /metrics; binds to loopback unless told otherwise')
    .option('--no-metrics', 'answer /metrics with 404 and keep no metrics')
    .option('--outbox-stuck <seconds>', '/readyz fails once a notification has waited this long past its time', String(DEFAULT_OUTBOX_STUCK_S))
    .addHelpText('after', '\nExample:\n  workboard serve --http 127.0.0.1:7420\n\n/metrics answers loopback callers, or any caller with WORKBOARD_METRICS_TOKEN as a bearer token.')
    .action(async (o: { http?: string; gitCommit?: string; gitSync?: string; metrics: boolean; outboxStuck: string }) => {
      const seconds = (flag: string, v: string | undefined, min: number) => {
        const n = v === undefined ? undefined : Number(v);
        if (n !== undefined && !(n >= min)) cli.usage(`${flag} expects a number of seconds, got "${v}"`);
        return n;
      };
      const gitSeconds = seconds('--git-commit', o.gitCommit, 1);
      const syncSeconds = seconds('--git-sync', o.gitSync, 1);
      const outboxStuck = seconds('--outbox-stuck', o.outboxStuck, 0)!;
      await serveBoard(cli, await cli.board(), { http: o.http, gitSeconds, syncSeconds, metrics: o.metrics, outboxStuckMs: outboxStuck * 1000 });
    });
}

/**
 * Coordinate `board` until SIGINT or SIGTERM: the daemon, and MCP over HTTP
 * when `http` (host:port) is given. `announce` is told the MCP URL once
 * everything listens. On a signal it stops accepting and ends within a
 * second, letting calls in flight finish (graceful-close.ts).
 */
export async function serveBoard(cli: Cli, board: Board, o: ServeOptions, announce?: (mcpUrl: string | null) => void | Promise<void>): Promise<void> {
  const m = o.http === undefined ? null : /^(.*):(\d+)$/.exec(o.http);
  if (o.http !== undefined && !m) cli.usage(`--http expects host:port, got "${o.http}"`);
  // Metrics are kept only where /metrics can be asked for them.
  const metricsOn = m !== null && o.metrics !== false;
  let metrics: import('../../http/metrics.js').Metrics | null = null;
  const service = await Service.open(board, { evaluate, ...(metricsOn ? { observe: (c) => metrics?.call(c) } : {}) });
  const { Daemon } = await import('../../daemon/daemon.js');
  const daemon = new Daemon(board, service, { ...(o.gitSeconds ? { gitCommitMs: o.gitSeconds * 1000 } : {}), ...(o.syncSeconds ? { gitSyncMs: o.syncSeconds * 1000 } : {}) });
  await daemon.start();
  let server: import('node:http').Server | null = null;
  let closer: Closer | null = null;
  let stopping = false;
  if (m) {
    const { createHttpServer } = await import('../../http/server.js');
    const { createOpsHandler } = await import('../../http/ops.js');
    if (metricsOn) metrics = new (await import('../../http/metrics.js')).Metrics(service, daemon);
    const ops = createOpsHandler({
      service,
      daemon,
      metrics,
      outboxStuckMs: o.outboxStuckMs ?? DEFAULT_OUTBOX_STUCK_S * 1000,
      stopping: () => stopping,
      metricsToken: process.env.WORKBOARD_METRICS_TOKEN || null,
    });
    const http = createHttpServer(service, VERSION, {}, ops);
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
    const people = boardBaseUrl(board.manifest);
    process.stdout.write(`web app at ${web}${new URL('/', people).href === web ? '' : ` (people's links point to ${people})`}\n`);
  }
  await announce?.(mcpUrl);
  await new Promise<void>((resolve) => {
    const stop = async () => {
      // A second signal while stopping means now.
      if (stopping) process.exit(EXIT.ok);
      stopping = true;
      // Stop taking requests first, so nothing new starts while the daemon winds down.
      const closed = closer ? closer.close(GRACE_MS) : Promise.resolve();
      await daemon.stop();
      await closed;
      // Whatever still holds the event loop (a watcher, a timer of a library) must not keep a stopped serve alive.
      setTimeout(() => process.exit(process.exitCode ?? EXIT.ok), EXIT_AFTER_MS).unref();
      resolve();
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
  });
}

export interface ServeOptions {
  http?: string;
  gitSeconds?: number;
  syncSeconds?: number;
  /** false: `--no-metrics`. */
  metrics?: boolean;
  outboxStuckMs?: number;
}

/** How long a notification may wait past its time before /readyz says the outbox is stuck. */
const DEFAULT_OUTBOX_STUCK_S = 300;

/** How long a stopping serve waits for answers still being sent before it closes their connections. */
const GRACE_MS = 800;
/** How long a stopped serve lets its event loop drain before it exits anyway. */
const EXIT_AFTER_MS = 500;

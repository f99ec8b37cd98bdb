import type { Command } from 'commander';
import type { Board } from '../../board/board.js';
import { CommitLog } from '../../board/commit-log.js';
import { boardBaseUrl } from '../../core/public-url.js';
import { clearServedAt, recordServedAt } from '../../board/served-at.js';
import { evaluate } from '../../evaluator/evaluator.js';
import { trackCalls, type Closer } from '../../mcp/graceful-close.js';
import { Service, type CallRecord } from '../../service/service.js';
import { createLogger, LOG_LEVELS, logSettings, type Logger } from '../../core/log.js';
import type { LineLog } from '../../daemon/daemon.js';
import { actorName } from '../../engine/types.js';
import { color, EXIT } from '../output.js';
import type { Cli } from '../cli.js';
import { VERSION } from '../version.js';
import { STATE_DIR } from '../../board/layout.js';
import { stopNetworkGit } from '../../git/repo.js';
import { boundHeapGrowth } from '../heap-growth.js';

/** Why the address could not be had, in words a person can act on. */
function cannotListen(e: NodeJS.ErrnoException, where: string): string {
  const why =
    e.code === 'EADDRINUSE'
      ? 'the address is already in use (another workboard serve?)'
      : e.code === 'EACCES'
        ? 'permission denied (ports below 1024 need privileges; pick a higher port)'
        : e.code === 'EADDRNOTAVAIL'
          ? 'no network interface of this machine has that address'
          : e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN'
            ? 'the host name does not resolve'
            : e.message;
  return `cannot listen on ${where}: ${why}`;
}

export function register(program: Command, cli: Cli): void {
  program
    .command('serve')
    .description('the long-running coordinator: timers on time, hand edits adopted or refused as they land, and MCP over HTTP with --http')
    .option('--git-commit <seconds>', `commit board changes to git at most once per this many seconds (never ${STATE_DIR}/)`)
    .option('--git-sync <seconds>', 'every this many seconds, workboard sync: commit, pull and merge run by run, push')
    .option('--git-timeout <seconds>', 'how long one fetch or push of --git-sync may take before the remote counts as unreachable (default 60)')
    .option(
      '--git-clock <seconds>',
      "with --git-sync: how long the board's clock stays with this clone after a sync carried its lease (default 300, at least 3 syncs); another clone takes it once it runs out (docs/git.md)",
    )
    .option(
      '--http <host:port>',
      'also serve MCP over Streamable HTTP at /mcp (bearer tokens from workboard token create), the web app, /healthz, /readyz and /metrics; binds to loopback unless told otherwise',
    )
    .option(
      '--ops <host:port>',
      'answer /healthz, /readyz and /metrics on this address too, from a thread of their own, so probes are answered at once however busy serve is; binds to loopback unless told otherwise',
    )
    .option('--no-metrics', 'answer /metrics with 404 and keep no metrics')
    .option('--outbox-stuck <seconds>', '/readyz fails once a notification has waited this long past its time', String(DEFAULT_OUTBOX_STUCK_S))
    .option('--stop-grace <seconds>', 'on SIGTERM or SIGINT, how long calls and a git sync in flight may take to finish (a second signal stops at once)', String(DEFAULT_STOP_GRACE_S))
    .option('--log-format <format>', 'json (one JSON object a line) or text (words); default WORKBOARD_LOG_FORMAT, else text')
    .option('--log-level <level>', `${LOG_LEVELS.join(', ')}: the least a line must be to be written (debug adds every read); default WORKBOARD_LOG_LEVEL, else info`)
    .addHelpText('after', '\nExample:\n  workboard serve --http 127.0.0.1:7420\n\n/metrics answers loopback callers, or any caller with WORKBOARD_METRICS_TOKEN as a bearer token.')
    .action(
      async (o: {
        http?: string;
        ops?: string;
        gitCommit?: string;
        gitSync?: string;
        gitTimeout?: string;
        gitClock?: string;
        metrics: boolean;
        outboxStuck: string;
        stopGrace: string;
        logFormat?: string;
        logLevel?: string;
      }) => {
        const logging = logSettings({ format: o.logFormat, level: o.logLevel });
        if ('problems' in logging) cli.usage(logging.problems.join('; '));
        const seconds = (flag: string, v: string | undefined, min: number) => {
          const n = v === undefined ? undefined : Number(v);
          if (n !== undefined && !(n >= min)) cli.usage(`${flag} expects a number of seconds, got "${v}"`);
          return n;
        };
        const gitSeconds = seconds('--git-commit', o.gitCommit, 1);
        const syncSeconds = seconds('--git-sync', o.gitSync, 1);
        const timeoutSeconds = seconds('--git-timeout', o.gitTimeout, 0.001);
        const clockSeconds = seconds('--git-clock', o.gitClock, 1);
        const outboxStuck = seconds('--outbox-stuck', o.outboxStuck, 0)!;
        const stopGrace = seconds('--stop-grace', o.stopGrace, 0)!;
        await serveBoard(cli, await cli.board(), {
          http: o.http,
          ops: o.ops,
          gitSeconds,
          syncSeconds,
          timeoutSeconds,
          clockSeconds,
          metrics: o.metrics,
          outboxStuckMs: outboxStuck * 1000,
          stopGraceMs: stopGrace * 1000,
          log: createLogger(logging),
        });
      },
    );
}

/**
 * Coordinate `board` until SIGINT or SIGTERM: the daemon, and MCP over HTTP
 * when `http` (host:port) is given. `announce` is told the MCP URL once
 * everything listens. On a signal it stops accepting and ends within a
 * second, letting calls in flight finish (graceful-close.ts).
 */
export async function serveBoard(cli: Cli, board: Board, o: ServeOptions, announce?: (mcpUrl: string | null) => void | Promise<void>): Promise<void> {
  boundHeapGrowth();
  /** `--http` or `--ops`: where to listen, as host (IPv6 without its brackets) and port. */
  const address = (flag: string, v: string | undefined) => {
    if (v === undefined) return null;
    const at = /^(.*):(\d+)$/.exec(v);
    if (!at) return cli.usage(`${flag} expects host:port, got "${v}"`);
    return { host: (at[1] ?? '').replace(/^\[|\]$/g, ''), port: Number(at[2]), as: v };
  };
  const m = address('--http', o.http);
  const opsAt = address('--ops', o.ops);
  // Metrics are kept only where /metrics can be asked for them.
  const metricsOn = (m !== null || opsAt !== null) && o.metrics !== false;
  let metrics: import('../../http/metrics.js').Metrics | null = null;
  const log = o.log ?? createLogger({ format: 'text', level: 'info' });
  const line: LineLog = (text, level) => log[level ?? 'info'](text);
  const observe = (c: CallRecord) => {
    metrics?.call(c);
    logCall(log, c);
  };
  const { serveClock } = await import('../../daemon/clock.js');
  const clock = serveClock();
  const service = await Service.open(board, { evaluate, observe, now: () => clock.now() });
  const { Daemon } = await import('../../daemon/daemon.js');
  const daemon = new Daemon(board, service, {
    log: line,
    clock,
    ...(o.gitSeconds ? { gitCommitMs: o.gitSeconds * 1000 } : {}),
    ...(o.syncSeconds ? { gitSyncMs: o.syncSeconds * 1000 } : {}),
    ...(o.timeoutSeconds ? { gitTimeoutMs: o.timeoutSeconds * 1000 } : {}),
    ...(o.clockSeconds ? { gitClockMs: o.clockSeconds * 1000 } : {}),
  });
  await daemon.start();
  let server: import('node:http').Server | null = null;
  let closer: Closer | null = null;
  let opsListener: import('../../http/ops-listener.js').OpsListener | null = null;
  let stopping = false;
  /** Without what was asked for this serve is not it: stop the daemon and say why. */
  const refuse = async (failed: NodeJS.ErrnoException, address: string): Promise<never> => {
    await opsListener?.close();
    await daemon.stop();
    process.stderr.write(`${color.red('error')}: ${cannotListen(failed, address)}\n`);
    return cli.exit(EXIT.refused);
  };
  if (m || opsAt) {
    const { createOpsHandler, factsGatherer, metricsReader } = await import('../../http/ops.js');
    if (metricsOn) metrics = new (await import('../../http/metrics.js')).Metrics(service, daemon);
    const opsOptions = {
      service,
      daemon,
      metrics,
      outboxStuckMs: o.outboxStuckMs ?? DEFAULT_OUTBOX_STUCK_S * 1000,
      stopping: () => stopping,
      metricsToken: process.env.WORKBOARD_METRICS_TOKEN || null,
    };
    if (opsAt) {
      const { startOpsListener } = await import('../../http/ops-listener.js');
      opsListener = await startOpsListener({
        host: opsAt.host,
        port: opsAt.port,
        facts: factsGatherer(opsOptions),
        metrics: metricsReader(metrics),
        metricsToken: opsOptions.metricsToken,
        log: line,
      }).catch((e: NodeJS.ErrnoException) => refuse(e, opsAt.as));
    }
    if (m) {
      const { createHttpServer } = await import('../../http/server.js');
      const http = createHttpServer(service, VERSION, {}, { ops: createOpsHandler(opsOptions), log: line });
      closer = trackCalls(http);
      const failed = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
        http.once('error', resolve);
        http.listen(m.port, m.host, () => {
          http.off('error', resolve);
          resolve(null);
        });
      });
      if (failed) await refuse(failed, m.as);
      server = http;
    }
  }
  const graceMs = o.stopGraceMs ?? DEFAULT_STOP_GRACE_S * 1000;
  // The signals are ours before the first line says where serve listens: a SIGTERM sent on seeing it
  // must stop serve the graceful way, never by the default action.
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  // Where serve is reached, once recorded: a stop that came first clears it only after.
  let served: Promise<void> = Promise.resolve();
  const stop = async () => {
    // A second signal while stopping means now: every answered call's commit is already flushed in the
    // commit log, and one cut short after its flush is rolled forward at the next start.
    if (stopping) {
      log.warn('a second signal: stopping at once');
      process.exit(EXIT.ok);
    }
    stopping = true;
    opsListener?.tell();
    log.info(`stopping: no new connections; calls in flight have ${graceMs / 1000} s to finish`);
    const deadline = Date.now() + graceMs;
    // Stop taking requests first, so nothing new starts while the daemon winds down.
    const closed = closer ? closer.close(graceMs) : Promise.resolve();
    await daemon.stop(graceMs);
    // A fetch or push still under way when the grace ran out is stopped with its helpers: nothing of serve outlives it.
    await stopNetworkGit();
    await closed;
    // A call whose client hung up still runs to its commit: wait for it, within the grace.
    let late: NodeJS.Timeout | undefined;
    await Promise.race([service.settled(), new Promise((r) => (late = setTimeout(r, Math.max(0, deadline - Date.now()))))]);
    clearTimeout(late);
    // Make what was committed durable in the files themselves, so the next start has no log to replay.
    await CommitLog.of(board.root)
      .checkpoint()
      .catch((e: unknown) => log.warn(`the last checkpoint failed (the next start replays the commit log): ${e instanceof Error ? e.message : String(e)}`));
    await served.catch(() => undefined);
    await clearServedAt(board.state).catch(() => undefined);
    await opsListener?.close();
    log.info('stopped');
    // Whatever still holds the event loop (a watcher, a timer of a library) must not keep a stopped serve alive.
    setTimeout(() => process.exit(process.exitCode ?? EXIT.ok), EXIT_AFTER_MS).unref();
    resolveStopped();
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  log.info(`workboard ${VERSION} coordinating board ${board.manifest.name} in ${board.root}`);
  let mcpUrl: string | null = null;
  if (server) {
    const addr = server.address();
    mcpUrl = typeof addr === 'object' && addr ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}/mcp` : `http://${o.http}/mcp`;
    log.info(`MCP over HTTP at ${mcpUrl} (Authorization: Bearer <token from workboard token create>)`);
    const web = new URL('/', mcpUrl).href;
    served = recordServedAt(board.state, new URL(web).origin);
    await served;
    const people = boardBaseUrl(board.manifest, { served: new URL(web).origin });
    log.info(`web app at ${web}${new URL('/', people).href === web ? '' : ` (people's links point to ${people})`}; /healthz, /readyz${metrics ? ', /metrics' : ''}`);
  }
  if (opsListener) log.info(`/healthz, /readyz${metrics ? ', /metrics' : ''} also at http://${opsListener.address}, answered by a thread of their own`);
  await announce?.(mcpUrl);
  await stopped;
}

export interface ServeOptions {
  http?: string;
  /** `--ops host:port`: the ops paths on a listener and thread of their own (ops-listener.ts). */
  ops?: string;
  gitSeconds?: number;
  syncSeconds?: number;
  /** `--git-timeout`: how long one fetch or push of `--git-sync` may take. */
  timeoutSeconds?: number;
  /** `--git-clock`: how long the board's clock lease lasts. */
  clockSeconds?: number;
  /** false: `--no-metrics`. */
  metrics?: boolean;
  outboxStuckMs?: number;
  /** How long a stopping serve lets calls in flight finish. */
  stopGraceMs?: number;
  /** Where its lines go; text at info when not given. */
  log?: Logger;
}

/** Tools that only read: their successful calls are logged at debug, so an info log holds every change and every refusal. */
const READS: ReadonlySet<string> = new Set(['describe', 'list_processes', 'get_run', 'get_work', 'list_runs']);

/** One line for a tool call that ended: what, its answer, who, its own requestId, how long. */
function logCall(log: Logger, c: CallRecord): void {
  const level = c.code === 'ok' && READS.has(c.tool ?? '') ? 'debug' : 'info';
  if (!log.enabled(level)) return;
  log[level](`${c.tool ?? 'unknown tool'}: ${c.code}`, { by: actorName(c.actor), ...(c.requestId ? { call: c.requestId } : {}), via: c.transport, ms: Math.round(c.seconds * 10_000) / 10 });
}

/** How long a notification may wait past its time before /readyz says the outbox is stuck. */
const DEFAULT_OUTBOX_STUCK_S = 300;

/** How long a stopping serve waits for calls in flight, and answers still being sent, before it closes their connections. */
const DEFAULT_STOP_GRACE_S = 10;
/** How long a stopped serve lets its event loop drain before it exits anyway. */
const EXIT_AFTER_MS = 500;

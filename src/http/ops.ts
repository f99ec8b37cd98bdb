/**
 * What an operator's tools ask serve over HTTP (docs/operations.md):
 * `/healthz` (the process answers: its event loop runs), `/readyz` (the board
 * is open, recovered, its commit log writable, its outbox and sync not
 * stuck: readiness.ts), both without a token and telling nothing of the
 * board's content; and `/metrics` (metrics.ts), for loopback callers that
 * came through no proxy, or for anyone with WORKBOARD_METRICS_TOKEN as a
 * bearer token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CommitLog } from '../board/commit-log.js';
import { WORK_FILE } from '../board/layout.js';
import type { Daemon } from '../daemon/daemon.js';
import type { Service } from '../service/service.js';
import type { Metrics } from './metrics.js';
import { readiness } from './readiness.js';

export const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface OpsOptions {
  service: Service;
  daemon: Daemon;
  /** null: `serve --no-metrics`, and /metrics answers 404. */
  metrics: Metrics | null;
  /** How long a notification may stay due before /readyz counts the outbox as stuck. */
  outboxStuckMs: number;
  /** Whether serve has begun to stop (/readyz then fails at once). */
  stopping: () => boolean;
  /** The bearer token /metrics takes from any address (WORKBOARD_METRICS_TOKEN); null: loopback only. */
  metricsToken: string | null;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

function answer(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...headers });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  answer(res, status, 'application/json', `${JSON.stringify(value)}\n`);
}

function sameToken(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** May this request read /metrics? A loopback peer with no proxy's forwarding headers, or the metrics token. */
export function metricsAllowed(req: Pick<IncomingMessage, 'headers'> & { socket: { remoteAddress?: string | undefined } }, token: string | null): boolean {
  const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  if (token !== null && m) return sameToken(m[1]!, token);
  // A proxy on this machine connects from loopback: what it forwards is not local.
  const proxied = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined || req.headers['x-real-ip'] !== undefined;
  return !proxied && LOOPBACK.test(req.socket.remoteAddress ?? '');
}

function boardThere(service: Service): boolean {
  try {
    return service.board.listing.stat(WORK_FILE) !== null;
  } catch {
    return false; // its folder cannot be read any more
  }
}

export type OpsHandler = (req: IncomingMessage, res: ServerResponse, pathname: string) => Promise<void>;

/** Answer an ops path; the caller routes only OPS_PATHS here. */
export function createOpsHandler(o: OpsOptions): OpsHandler {
  const log = CommitLog.of(o.service.board.root);
  return async (req, res, pathname) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, 'text/plain', 'GET only\n', { allow: 'GET, HEAD' });
    if (pathname === '/healthz') return json(res, 200, { status: 'ok' });
    if (pathname === '/readyz') {
      const probe = log.probe();
      const r = readiness({
        now: Date.now(),
        boardThere: boardThere(o.service),
        running: o.daemon.ready,
        stopping: o.stopping(),
        commitLog: probe ?? log.failure,
        outboxOldestDueAt: o.daemon.outbox.backlog.oldestDueAt,
        outboxStuckMs: o.outboxStuckMs,
        syncFailingInARow: o.daemon.syncing ? o.daemon.syncs.failingInARow : null,
      });
      return json(res, r.ready ? 200 : 503, { status: r.ready ? 'ready' : 'not ready', failed: r.failed, checks: r.checks });
    }
    if (!o.metrics) return json(res, 404, { error: 'metrics are off (serve --no-metrics)' });
    if (!metricsAllowed(req, o.metricsToken)) {
      return json(res, 403, { error: o.metricsToken === null ? 'metrics answer loopback callers only; set WORKBOARD_METRICS_TOKEN to allow others with a bearer token' : 'metrics need the bearer token set in WORKBOARD_METRICS_TOKEN' });
    }
    return answer(res, 200, o.metrics.contentType, await o.metrics.text());
  };
}

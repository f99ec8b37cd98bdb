/**
 * What an operator's tools ask serve over HTTP (docs/operations.md):
 * `/healthz` (the process answers: its event loop runs), `/readyz` (the board
 * is open, recovered, its commit log writable, its outbox and sync not
 * stuck: readiness.ts), both without a token and telling nothing of the
 * board's content; and `/metrics` (metrics.ts), for loopback callers that
 * came through no proxy, or for anyone with WORKBOARD_METRICS_TOKEN as a
 * bearer token. This file gathers the facts on serve's main thread; they are
 * answered here on serve's own address, and on the ops listener's thread
 * (ops-listener.ts) from what it is sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CommitLog } from '../board/commit-log.js';
import { WORK_FILE } from '../board/layout.js';
import type { Daemon } from '../daemon/daemon.js';
import type { Service } from '../service/service.js';
import type { Metrics } from './metrics.js';
import { answerOps, type MetricsText } from './ops-answer.js';
import type { ReadinessFacts } from './readiness.js';

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

function boardThere(service: Service): boolean {
  try {
    return service.board.listing.stat(WORK_FILE) !== null;
  } catch {
    return false; // its folder cannot be read any more
  }
}

/**
 * The readiness facts as this (main) thread sees them now: its loop is
 * turning, since it is asking. `probe` false reuses the commit log's last
 * probe (the ops listener asks four times a second and probes once).
 */
export function factsGatherer(o: OpsOptions): (probe?: boolean) => ReadinessFacts {
  const log = CommitLog.of(o.service.board.root);
  let probed: string | null = null;
  return (probe = true) => ({
    now: Date.now(),
    boardThere: boardThere(o.service),
    running: o.daemon.ready,
    stopping: o.stopping(),
    commitLog: (probe ? (probed = log.probe()) : probed) ?? log.failure,
    outboxOldestDueAt: o.daemon.outbox.backlog.oldestDueAt,
    outboxStuckMs: o.outboxStuckMs,
    syncFailingInARow: o.daemon.syncing ? o.daemon.syncs.failingInARow : null,
    loopStalledMs: 0,
  });
}

/** /metrics' text from serve's registry, or null with `--no-metrics`. */
export function metricsReader(metrics: Metrics | null): (() => Promise<MetricsText>) | null {
  return metrics && (async () => ({ contentType: metrics.contentType, text: await metrics.text() }));
}

export type OpsHandler = (req: IncomingMessage, res: ServerResponse, pathname: string) => Promise<void>;

/** Answer an ops path on serve's own address; the caller routes only OPS_PATHS here. */
export function createOpsHandler(o: OpsOptions): OpsHandler {
  const gather = factsGatherer(o);
  const src = { facts: () => gather(), metrics: metricsReader(o.metrics), metricsToken: o.metricsToken };
  return (req, res, pathname) => answerOps(req, res, pathname, src);
}

/**
 * How /healthz, /readyz and /metrics are answered, wherever they are asked:
 * on serve's own HTTP address (ops.ts) or on the ops listener's thread
 * (ops-thread.ts). Each place says where its facts come from; the answers,
 * the access rule for /metrics and the words are this file's alone
 * (docs/operations.md "Health and readiness").
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { health, readiness, type ReadinessFacts } from './readiness.js';

export const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** /metrics as Prometheus reads it. */
export interface MetricsText {
  contentType: string;
  text: string;
}

export interface OpsSource {
  /** The readiness facts as of now. */
  facts(): ReadinessFacts;
  /** null: `serve --no-metrics`, and /metrics answers 404. */
  metrics: (() => Promise<MetricsText>) | null;
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

/** Answer one of OPS_PATHS (the caller routes only those here). */
export async function answerOps(req: IncomingMessage, res: ServerResponse, pathname: string, src: OpsSource): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, 'text/plain', 'GET only\n', { allow: 'GET, HEAD' });
  if (pathname === '/healthz') {
    const h = health(src.facts().loopStalledMs);
    return json(res, h.live ? 200 : 503, h.body);
  }
  if (pathname === '/readyz') {
    const r = readiness(src.facts());
    return json(res, r.ready ? 200 : 503, { status: r.ready ? 'ready' : 'not ready', failed: r.failed, checks: r.checks });
  }
  if (!src.metrics) return json(res, 404, { error: 'metrics are off (serve --no-metrics)' });
  if (!metricsAllowed(req, src.metricsToken)) {
    return json(res, 403, {
      error:
        src.metricsToken === null
          ? 'metrics answer loopback callers only; set WORKBOARD_METRICS_TOKEN to allow others with a bearer token'
          : 'metrics need the bearer token set in WORKBOARD_METRICS_TOKEN',
    });
  }
  const m = await src.metrics();
  return answer(res, 200, m.contentType, m.text);
}

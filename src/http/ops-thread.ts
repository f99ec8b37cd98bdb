/**
 * The ops listener's thread (`serve --ops <host:port>`): /healthz, /readyz
 * and /metrics on an address of their own, answered by an event loop no tool
 * call shares, so a supervisor's probe is answered at once however busy
 * serve is (docs/operations.md "The ops listener"). It learns how serve's
 * main thread is from the facts that thread sends every tick: a loop that
 * has sent none for a while is stalled, and /healthz says so. /metrics is
 * asked of the main thread, whose registry it is.
 */
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { answerOps, OPS_PATHS, type MetricsText } from './ops-answer.js';
import type { ReadinessFacts } from './readiness.js';
import type { FromOpsThread, ToOpsThread } from './ops-messages.js';

const { host, port, tickMs, metricsOn, metricsToken } = workerData as { host: string; port: number; tickMs: number; metricsOn: boolean; metricsToken: string | null };
if (!parentPort) throw new Error('ops-thread.ts runs as a worker thread of serve');
const main = parentPort;
const say = (m: FromOpsThread) => main.postMessage(m);

let last: { facts: ReadinessFacts; at: number } | null = null;
const asked = new Map<number, (m: MetricsText) => void>();
let nextAsk = 0;

main.on('message', (m: ToOpsThread) => {
  if (m.kind === 'facts') last = { facts: m.facts, at: Date.now() };
  else if (m.kind === 'metrics') {
    asked.get(m.id)?.(m.metrics);
    asked.delete(m.id);
  } else server.close(() => process.exit(0));
});

/** The facts as of now: the last ones sent, and how long the main loop has been late with the next. */
function facts(): ReadinessFacts {
  const now = Date.now();
  if (!last) return { now, boardThere: true, running: false, stopping: false, commitLog: null, outboxOldestDueAt: null, outboxStuckMs: Infinity, syncFailingInARow: null, loopStalledMs: 0 };
  return { ...last.facts, now, loopStalledMs: Math.max(0, now - last.at - tickMs) };
}

const metrics = metricsOn
  ? () =>
      new Promise<MetricsText>((resolve) => {
        const id = nextAsk++;
        asked.set(id, resolve);
        say({ kind: 'metrics', id });
      })
  : null;

const server = createServer((req, res) => {
  const pathname = new URL(req.url ?? '/', 'http://ops').pathname;
  if (!OPS_PATHS.has(pathname)) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('the ops listener answers /healthz, /readyz and /metrics only\n');
    return;
  }
  answerOps(req, res, pathname, { facts, metrics, metricsToken }).catch((e: unknown) => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(`${e instanceof Error ? e.message : String(e)}\n`);
  });
});
server.once('error', (e: NodeJS.ErrnoException) => say({ kind: 'failed', code: e.code ?? 'error', message: e.message }));
server.listen(port, host, () => {
  const a = server.address();
  say({ kind: 'listening', address: typeof a === 'object' && a ? `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : `${host}:${port}` });
});

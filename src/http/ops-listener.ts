/**
 * `serve --ops <host:port>`: the ops paths on a listener of their own, in a
 * thread of their own (ops-thread.ts), so a liveness probe is never queued
 * behind tool calls and a busy serve is not taken for a dead one
 * (docs/operations.md "The ops listener"). This side sends the thread the
 * readiness facts every tick (the tick is also the heartbeat: a main loop
 * that stops turning stops sending) and answers its asks for /metrics.
 */
import { Worker } from 'node:worker_threads';
import type { MetricsText } from './ops-answer.js';
import type { FromOpsThread, ToOpsThread } from './ops-messages.js';
import type { ReadinessFacts } from './readiness.js';

/** How often the main thread sends its facts; a stall is counted from one tick after the last. */
const TICK_MS = 250;
/** The commit-log probe makes a file: once a second is enough for readiness. */
const PROBE_EVERY = 4;

export const OPS_THREAD = new URL('./ops-thread.js', import.meta.url);

export interface OpsListenerOptions {
  host: string;
  port: number;
  /** The main thread's facts as of now, probing the commit log when `probe` (ops.ts `factsGatherer`). */
  facts: (probe: boolean) => ReadinessFacts;
  metrics: (() => Promise<MetricsText>) | null;
  metricsToken: string | null;
  log: (line: string) => void;
}

export interface OpsListener {
  /** host:port it listens on. */
  address: string;
  /** Send the facts now (serve calls it as it starts to stop, so /readyz fails at once). */
  tell(): void;
  close(): Promise<void>;
}

/** Start the thread and resolve once it listens; reject with the listener's error (an address in use, a host that is not ours). */
export function startOpsListener(o: OpsListenerOptions): Promise<OpsListener> {
  const worker = new Worker(OPS_THREAD, { workerData: { host: o.host, port: o.port, tickMs: TICK_MS, metricsOn: o.metrics !== null, metricsToken: o.metricsToken } });
  const send = (m: ToOpsThread) => worker.postMessage(m);
  let ticks = 0;
  const tell = () => send({ kind: 'facts', facts: o.facts(ticks++ % PROBE_EVERY === 0) });
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    worker.on('message', (m: FromOpsThread) => {
      if (m.kind === 'listening') {
        tell();
        timer = setInterval(tell, TICK_MS);
        timer.unref();
        resolve({
          address: m.address,
          tell,
          close: async () => {
            clearInterval(timer);
            send({ kind: 'close' });
            await new Promise((r) => worker.once('exit', r));
          },
        });
      } else if (m.kind === 'failed') {
        void worker.terminate();
        reject(Object.assign(new Error(m.message), { code: m.code }));
      } else if (o.metrics) {
        o.metrics()
          .then((metrics) => send({ kind: 'metrics', id: m.id, metrics }))
          .catch((e: unknown) => send({ kind: 'metrics', id: m.id, metrics: { contentType: 'text/plain', text: `# metrics failed: ${e instanceof Error ? e.message : String(e)}\n` } }));
      }
    });
    worker.on('error', (e) => {
      o.log(`the ops listener's thread failed: ${e.message}`);
      reject(e);
    });
    worker.unref();
  });
}

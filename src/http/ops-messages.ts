/** What serve's main thread and the ops listener's thread (ops-thread.ts) tell each other. */
import type { MetricsText } from './ops-answer.js';
import type { ReadinessFacts } from './readiness.js';

export type ToOpsThread = { kind: 'facts'; facts: ReadinessFacts } | { kind: 'metrics'; id: number; metrics: MetricsText } | { kind: 'close' };

export type FromOpsThread = { kind: 'listening'; address: string } | { kind: 'failed'; code: string; message: string } | { kind: 'metrics'; id: number };

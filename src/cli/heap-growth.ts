/**
 * V8's sizing for a process that runs for days (`serve`, `workboard mcp`).
 * By default old space may grow to up to four times what is live before a
 * full collection; under load V8 moves towards that, and serve's RSS rose
 * with it for as long as the load lasted while its live heap stayed flat
 * (docs/performance.md "Serve's memory"). Capped at one and a half times,
 * the RSS is flat, and the soak spent no more time collecting. Node refuses
 * this flag in NODE_OPTIONS, so the process sets it itself, before its heap grows.
 */
import { setFlagsFromString } from 'node:v8';

export function boundHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=50');
}

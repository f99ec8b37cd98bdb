/**
 * A setup file of the `shared` project (vitest.config.ts), run before each of
 * its test files. That project's files share one module graph per worker
 * (`isolate: false`), so nothing a file leaves behind may reach the next:
 * the helpers' per-file records start empty, and what a file may change of
 * the process (environment variables, the working folder, fake timers,
 * spies and stubs) is put back when it ends. Files that need modules of
 * their own (`vi.mock`) run in the `isolated` project instead.
 */
import { afterAll, vi } from 'vitest';
import { forgetClones } from './git-clones.js';
import { forgetRecords } from './svc-harness.js';

forgetRecords();
forgetClones();
const env = { ...process.env };
const cwd = process.cwd();

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (process.env[k] !== v) process.env[k] = v;
  if (process.cwd() !== cwd) process.chdir(cwd);
});

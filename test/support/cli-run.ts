/**
 * Run the real `workboard` binary (bin/workboard.js, which imports dist/) in a
 * child process. `ensureBuilt` builds (scripts/build.mjs) first unless dist/ was
 * built from the sources there are now; concurrent test files serialise the
 * build with an exclusive lock directory so none of them imports a half-written dist/.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsCurrent } from '../../scripts/build.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'workboard.js');

/** Set once this process has seen dist/ current: the sources do not change under a test run, and hashing them costs tens of milliseconds. */
let seenCurrent = false;

/** Compile src/ into dist/ unless dist/ is already current. Safe to call from parallel test files. */
export async function ensureBuilt(): Promise<void> {
  if (seenCurrent || (seenCurrent = distIsCurrent(ROOT))) return;
  const lock = path.join(os.tmpdir(), `workboard-test-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await fs.mkdir(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        const st = await fs.stat(lock);
        if (Date.now() - st.mtimeMs > 120_000) await fs.rm(lock, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    if ((seenCurrent = distIsCurrent(ROOT))) return;
    // The whole build, not tsc alone: bin/workboard.js runs the bundle, and would fall back past a stale one.
    const r = await node([path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT });
    if (r.code !== 0) throw new Error(`the build failed:\n${r.stdout}${r.stderr}`);
    seenCurrent = true;
  } finally {
    await fs.rm(lock, { recursive: true, force: true });
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** How long one CLI call may take before it is stopped as hung (code -1): a guard, not a speed goal; a sync took over 30 s at load 30. */
const CLI_HANG_MS = 180_000;

/**
 * Run `node bin/workboard.js ...args` in `cwd`. The environment is this
 * process's minus any WORKBOARD_* variable (so a developer's settings never
 * leak in), with NO_COLOR set, plus `env`.
 */
export function workboard(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return node([BIN, ...args], opts);
}

/**
 * Set-up commands, one after another in one process (test/support/cli-batch.mjs),
 * in the environment `workboard` gives a call (plus `env`): each command's stdout, or the
 * first failure's code and words. Only for fixtures: a command under test runs
 * as a process of its own, through `workboard`.
 */
export async function workboardBatch(commands: { cwd: string; args: string[] }[], env?: Record<string, string>): Promise<string[]> {
  const r = await node([path.join(ROOT, 'test/support/cli-batch.mjs'), JSON.stringify(commands)], { cwd: ROOT, ...(env ? { env } : {}) });
  if (r.code !== 0) throw new Error(`set-up commands failed (exit ${r.code}):\n${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

/** `node ...args` in `cwd`, in this process's environment minus WORKBOARD_*, with NO_COLOR set, plus `env`. */
function node(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKBOARD_')) env[k] = v;
  env.NO_COLOR = '1';
  Object.assign(env, opts.env ?? {});
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: opts.cwd, env, maxBuffer: 16 * 1024 * 1024, timeout: CLI_HANG_MS }, (err, stdout, stderr) => {
      let code = 0;
      if (err) {
        const c = (err as { code?: unknown }).code;
        code = typeof c === 'number' ? c : -1;
      }
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

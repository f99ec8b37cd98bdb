/**
 * Run the real `workboard` binary (bin/workboard.js, which imports dist/) in a
 * child process. `ensureBuilt` builds (`npm run build`) first when dist/ is missing or
 * older than a source file; concurrent test files serialise the build with an
 * exclusive lock directory so none of them imports a half-written dist/.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'workboard.js');

async function newestMtime(dir: string, ext: string): Promise<{ newest: number; files: string[] }> {
  let newest = 0;
  const files: string[] = [];
  const walk = async (d: string) => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const abs = path.join(d, e.name);
      if (e.isDirectory()) await walk(abs);
      // A declaration file (.d.ts) compiles to nothing, so it has no dist/ twin to compare.
      else if (e.name.endsWith(ext) && !e.name.endsWith('.d.ts')) {
        files.push(abs);
        newest = Math.max(newest, (await fs.stat(abs)).mtimeMs);
      }
    }
  };
  await walk(dir);
  return { newest, files };
}

/**
 * Every source file has a newer twin in dist/, and the whole build ended after
 * the newest of them: `npm run build` writes dist/built last. Without that
 * stamp a file would find dist/ current once tsc had written it, and start
 * the CLI while the bundle was still being replaced (the bundle's chunks
 * then went missing under it: "Cannot find module dist/bundle/chunk-…").
 */
async function distIsCurrent(): Promise<boolean> {
  const src = await newestMtime(path.join(ROOT, 'src'), '.ts');
  const built = await fs.stat(path.join(ROOT, 'dist', 'built')).catch(() => null);
  if (built === null || built.mtimeMs < src.newest) return false;
  for (const f of src.files) {
    const rel = path.relative(path.join(ROOT, 'src'), f).replace(/\.ts$/, '.js');
    try {
      const st = await fs.stat(path.join(ROOT, 'dist', rel));
      if (st.mtimeMs < (await fs.stat(f)).mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Compile src/ into dist/ unless dist/ is already current. Safe to call from parallel test files. */
export async function ensureBuilt(): Promise<void> {
  if (await distIsCurrent()) return;
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
    if (await distIsCurrent()) return;
    // The whole build, not tsc alone: bin/workboard.js runs the bundle, and would fall back past a stale one.
    const r = await run('npm', ['run', 'build', '--silent'], ROOT);
    if (r.code !== 0) throw new Error(`npm run build failed:\n${r.stdout}${r.stderr}`);
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
 * in the environment `workboard` gives a call: each command's stdout, or the
 * first failure's code and words. Only for fixtures: a command under test runs
 * as a process of its own, through `workboard`.
 */
export async function workboardBatch(commands: { cwd: string; args: string[] }[]): Promise<string[]> {
  const r = await node([path.join(ROOT, 'test/support/cli-batch.mjs'), JSON.stringify(commands)], { cwd: ROOT });
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

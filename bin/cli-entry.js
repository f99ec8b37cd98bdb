// Which build of the CLI runs a command line, for bin/workboard.js and the
// tests' batch runner alike (docs/architecture.md "How a CLI call starts").
// The bundles in dist/bundle/ (scripts/bundle.mjs) start faster than tsc's
// modules in dist/cli/: a CommonJS one, with V8's code cache, for every
// command but the few that bring large libraries (HEAVY_COMMANDS in
// src/cli/command-table.ts), and the split ESM one for those, help and
// anything unknown. A bundle older than tsc's output would be stale code:
// then dist/cli/ runs.
import { readFileSync, statSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const dist = (rel) => fileURLToPath(new URL(`../dist/${rel}`, import.meta.url));
const builtAt = (rel) => statSync(dist(rel), { throwIfNoEntry: false })?.mtimeMs;
/** Built at or after `than` (default: tsc's output). */
const current = (rel, than = builtAt('cli/main.js') ?? 0) => (builtAt(rel) ?? -1) >= than;

export const LIGHT = 'bundle/light.cjs';
export const LIGHT_CACHE = 'bundle/light.cjs.cache';

/**
 * The light bundle, compiled with `cachedData` (V8's code cache of it,
 * scripts/light-cache.mjs) when given, and run as CommonJS. The script is
 * returned too: it says whether V8 took the cache, and makes one.
 */
export function loadLight(cachedData) {
  const file = dist(LIGHT);
  const script = new vm.Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  return { main: module.exports.main, script };
}

/** The CLI's `main(argv)` for this command line (`args`: process.argv without node and the script; none: every command). */
export async function loadMain(args = []) {
  const { runsLight } = await import('../dist/cli/command-table.js');
  if (runsLight(args) && current(LIGHT)) {
    // Node maps stack traces to src/ only for what require() loads: with --enable-source-maps, no code cache.
    if (process.sourceMapsEnabled) return createRequire(import.meta.url)(dist(LIGHT)).main;
    // V8 checks a cache against the source's length only: one older than the bundle is not offered.
    return loadLight(current(LIGHT_CACHE, builtAt(LIGHT)) ? readFileSync(dist(LIGHT_CACHE)) : undefined).main;
  }
  return (await import(current('bundle/main.js') ? '../dist/bundle/main.js' : '../dist/cli/main.js')).main;
}

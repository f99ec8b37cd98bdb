// Which build of the CLI runs a command line, for bin/workboard.js and the
// tests' batch runner alike. The bundles in dist/bundle/ (scripts/bundle.mjs)
// start faster than tsc's modules in dist/cli/: a CommonJS one for every
// command but the few that bring large libraries (HEAVY_COMMANDS in
// src/cli/command-table.ts), and the split ESM one for those, help and
// anything unknown. A bundle older than tsc's output would be stale code:
// then dist/cli/ runs.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';

const builtAt = (rel) => statSync(new URL(`../dist/${rel}`, import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
const current = (rel) => {
  const at = builtAt(rel);
  return at !== undefined && at >= (builtAt('cli/main.js') ?? 0);
};

/** The CLI's `main(argv)` for this command line (`args`: process.argv without node and the script; none: every command). */
export async function loadMain(args = []) {
  const { runsLight } = await import('../dist/cli/command-table.js');
  if (args.length > 0 && runsLight(args) && current('bundle/light.cjs')) return createRequire(import.meta.url)('../dist/bundle/light.cjs').main;
  return (await import(current('bundle/main.js') ? '../dist/bundle/main.js' : '../dist/cli/main.js')).main;
}

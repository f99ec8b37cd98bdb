// Which build of the CLI to run, for bin/workboard.js and the tests' batch
// runner alike: the bundle in dist/bundle/ (scripts/bundle.mjs), which starts
// faster, unless tsc has rebuilt dist/ since (it would be stale code); else
// the compiled modules in dist/cli/.
import { statSync } from 'node:fs';

const builtAt = (rel) => statSync(new URL(`../dist/${rel}`, import.meta.url), { throwIfNoEntry: false })?.mtimeMs;

/** The address of the CLI's entry module (it exports `main(argv)`). */
export function cliEntry() {
  const bundledAt = builtAt('bundle/main.js');
  return new URL(bundledAt !== undefined && bundledAt >= (builtAt('cli/main.js') ?? 0) ? '../dist/bundle/main.js' : '../dist/cli/main.js', import.meta.url).href;
}

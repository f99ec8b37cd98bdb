#!/usr/bin/env node
// The `workboard` command: the compiled CLI in dist/, found beside this file
// whether it runs from a clone, a global install or `npm link` (which build of
// it: cli-entry.js).
import { readFileSync } from 'node:fs';
import { loadMain } from './cli-entry.js';

// `--version` alone needs nothing but package.json: answer it before loading the CLI, so it starts like `node` does.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}

let main;
try {
  main = await loadMain(args);
} catch (e) {
  // Only a missing module of dist/ itself means it is not built (a dependency missing from it is another error).
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !/Cannot find module '[^']*\/dist\/cli\/[^']*'/.test(String(e.message))) throw e;
  process.stderr.write('workboard: dist/ is not built; run `npm run build` (or `npm install`) in the workboard folder\n');
  process.exit(70);
}
process.exitCode = await main(process.argv);

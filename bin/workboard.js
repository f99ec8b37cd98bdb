#!/usr/bin/env node
// The `workboard` command: the compiled CLI in dist/, found beside this file
// whether it runs from a clone, a global install or `npm link`.
let main;
try {
  ({ main } = await import('../dist/cli/main.js'));
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('dist/cli/main.js')) throw e;
  process.stderr.write('workboard: dist/ is not built; run `npm run build` (or `npm install`) in the workboard folder\n');
  process.exit(70);
}
process.exitCode = await main(process.argv);

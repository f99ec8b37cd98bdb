// Writes V8's code cache of dist/bundle/light.cjs (bin/cli-entry.js offers it
// to V8 at every light command): the bundle is loaded, every light command
// module is loaded and its help made, so each module's code is compiled, and
// the cache of all that compiled code is written beside the bundle. Run by
// scripts/bundle.mjs in a process of its own, with node's default flags, as
// the CLI runs (V8 refuses a cache made under other flags).
import { writeFileSync } from 'node:fs';
import { COMMAND_MODULES, HEAVY_COMMANDS } from '../dist/cli/command-table.js';
import { LIGHT_CACHE, loadLight } from '../bin/cli-entry.js';

const { main, script } = loadLight();
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;
try {
  process.stdout.setMaxListeners(0);
  for (const [names] of COMMAND_MODULES) if (!HEAVY_COMMANDS.includes(names[0])) await main(['node', 'workboard', 'help', names[0]]);
} finally {
  process.stdout.write = write;
}
writeFileSync(new URL(`../dist/${LIGHT_CACHE}`, import.meta.url), script.createCachedData());

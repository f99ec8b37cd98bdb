// Bundles the compiled CLI (dist/cli/main.js, what it imports and the libraries
// it uses) into dist/bundle/ with esbuild, which bin/workboard.js prefers to a
// few hundred modules to resolve, so each call starts sooner. Two builds:
// - main.js: ESM, split at the lazy import() of each command, so a command
//   loads only its own code and shared chunks; it runs every command;
// - light.cjs: one CommonJS file of every command but HEAVY_COMMANDS
//   (src/cli/command-table.ts), which a process loads in about a fifth less
//   CPU than main.js's chunks, and less again with V8's code cache of it
//   (light.cjs.cache, scripts/light-cache.mjs); bin/cli-entry.js sends those
//   commands to it.
// Source maps chain through tsc's to src/*.ts (`NODE_OPTIONS=--enable-source-maps`
// names them in stack traces). Run by `npm run build` after tsc; `--out <dir>` writes elsewhere.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { HEAVY_COMMANDS } from '../dist/cli/command-table.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(dist, 'bundle');

/**
 * Our modules find files beside themselves through import.meta.url (schemas,
 * the prebuilt validators, web assets, package.json, the example board). In
 * a bundle that would be the bundle's address (and CommonJS has none), so
 * each of our files that uses it gets its own dist/ address back, relative
 * to the bundle's (`here`: that address, as an expression of the output format).
 */
const ownImportMetaUrl = (here) => ({
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + path.sep)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const rel = path.relative(out, args.path).split(path.sep).join('/');
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, ${here}).href`), loader: 'js' };
    });
  },
});

/**
 * light.cjs leaves out the heavy commands' modules: each becomes a module
 * whose register() says where the command runs. bin/cli-entry.js never sends
 * one there; if it ever did, the error names the reason. Counted, so a heavy
 * command whose module was renamed fails the build instead of coming along.
 */
const stubbed = new Set();
const leaveOutHeavy = {
  name: 'leave-out-heavy-commands',
  setup(b) {
    const heavy = new RegExp(`^\\./commands/(${HEAVY_COMMANDS.join('|')})\\.js$`);
    b.onResolve({ filter: heavy }, (args) => ({ path: heavy.exec(args.path)[1], namespace: 'heavy-command' }));
    b.onLoad({ filter: /.*/, namespace: 'heavy-command' }, (args) => {
      stubbed.add(args.path);
      return { contents: `export function register() { throw new Error(${JSON.stringify(`workboard ${args.path} runs from dist/bundle/main.js, not light.cjs`)}); }`, loader: 'js' };
    });
  },
};

// Chunk names carry content hashes: start empty so no old chunk is left behind.
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: { main: path.join(dist, 'cli/main.js') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  sourcesContent: false,
  // The CommonJS libraries in the bundle require() Node's own modules.
  banner: { js: "import { createRequire as __workboardRequire } from 'node:module'; const require = __workboardRequire(import.meta.url);" },
  // elkjs is loaded only to draw a map and is one file already: taken from node_modules, not copied (3 MB).
  external: ['elkjs', 'elkjs/*'],
  logLevel: 'warning',
  plugins: [ownImportMetaUrl('import.meta.url')],
});

await build({
  entryPoints: [path.join(dist, 'cli/main.js')],
  outfile: path.join(out, 'light.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  sourcesContent: false,
  // Libraries a light command loads only now and then (a map's layout, a file's media type) stay in node_modules,
  // loaded on first use instead of parsed by every call...
  external: ['elkjs', 'elkjs/*', 'mime-types'],
  // ...through require() (both are CommonJS): import() from a vm script needs Node 20's experimental loader option,
  // which warns on stderr, and with the code cache it still failed ("A dynamic import callback was not specified").
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
  // A module of ours may name its own `require` (createRequire): the bundle's address is taken before any can.
  banner: { js: "const __workboardBundle = require('node:url').pathToFileURL(__filename);" },
  plugins: [ownImportMetaUrl('__workboardBundle'), leaveOutHeavy],
});
const missing = HEAVY_COMMANDS.filter((c) => !stubbed.has(c));
if (missing.length > 0) throw new Error(`light.cjs: no module commands/<name>.js was met for ${missing.join(', ')} (HEAVY_COMMANDS in src/cli/command-table.ts)`);
// Its code cache, for dist/bundle/ only: the cache is made from the bundle bin/cli-entry.js loads.
if (out === path.join(dist, 'bundle')) execFileSync(process.execPath, [path.join(root, 'scripts/light-cache.mjs')], { stdio: 'inherit' });

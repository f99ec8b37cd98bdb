// Bundles the compiled CLI (dist/cli/main.js, what it imports and the libraries
// it uses) into dist/bundle/ with esbuild, which bin/workboard.js prefers: one
// file per command module and shared chunks instead of a few hundred modules
// to resolve, so each call starts sooner. ESM, split at the lazy import() of
// each command, so a command still loads only its own code. Source maps chain
// through tsc's to src/*.ts (`NODE_OPTIONS=--enable-source-maps` names them in
// stack traces). Run by `npm run build` after tsc; `--out <dir>` writes elsewhere.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(dist, 'bundle');

/**
 * Our modules find files beside themselves through import.meta.url (schemas,
 * the prebuilt validators, web assets, package.json, the example board). In
 * a chunk that would be the chunk's address, so each of our files that uses
 * it gets its own dist/ address back, relative to the chunk.
 */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + path.sep)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const rel = path.relative(out, args.path).split(path.sep).join('/');
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'js' };
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
  plugins: [ownImportMetaUrl],
});

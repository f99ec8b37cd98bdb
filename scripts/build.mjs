// Builds dist/: tsc, the schemas' standalone validators, the CLI bundle, the
// web assets and the maps' fonts, then writes dist/built with a hash of
// everything the build reads. `npm run build` always builds; `--if-stale`
// (what `npm install`, `npm start`, `npm test` and the tests' `ensureBuilt`
// use) builds only when that hash changed, so the second of `npm install &&
// npm test` does not spend a whole build making the same files again.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What the build reads: folders walked whole, and single files. A dependency's new version shows in the lockfile. */
const INPUT_DIRS = ['src', 'schemas'];
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build.mjs', 'scripts/validators.mjs', 'scripts/bundle.mjs', 'scripts/light-cache.mjs', 'bin/cli-entry.js'];

function filesUnder(root, rel) {
  const abs = path.join(root, rel);
  let entries;
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const child = path.posix.join(rel, e.name);
    return e.isDirectory() ? filesUnder(root, child) : e.isFile() ? [child] : [];
  });
}

/** A hash of every input's path and bytes, in a fixed order: the same sources give the same hash on every machine. */
export function inputHash(root = ROOT) {
  const h = createHash('sha256');
  const files = [...INPUT_DIRS.flatMap((d) => filesUnder(root, d)), ...INPUT_FILES].sort();
  for (const rel of files) {
    let bytes;
    try {
      bytes = readFileSync(path.join(root, rel));
    } catch {
      bytes = null; // an optional input (a clone without a lockfile) hashes as absent
    }
    h.update(`${rel}\0${bytes === null ? '-' : bytes.length}\0`);
    if (bytes !== null) h.update(bytes);
  }
  return h.digest('hex');
}

/** Whether dist/ was built from exactly the inputs there are now: dist/built holds their hash, and it is written last. */
export function distIsCurrent(root = ROOT) {
  try {
    const stamp = readFileSync(path.join(root, 'dist', 'built'), 'utf8');
    return stamp.split('\n')[1] === inputHash(root) && statSync(path.join(root, 'dist', 'bundle', 'main.js')).isFile();
  } catch {
    return false;
  }
}

/** The whole build, then the stamp: a build cut short leaves the old stamp (or none), so the next one runs again. */
export function build(root = ROOT) {
  const hash = inputHash(root);
  const node = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  node([path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
  node(['scripts/validators.mjs']);
  node(['scripts/bundle.mjs']);
  cpSync(path.join(root, 'src/web/assets'), path.join(root, 'dist/web/assets'), { recursive: true });
  cpSync(path.join(root, 'src/map/fonts'), path.join(root, 'dist/map/fonts'), { recursive: true });
  writeFileSync(path.join(root, 'dist', 'built'), `${new Date().toISOString()}\n${hash}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!(process.argv.includes('--if-stale') && distIsCurrent())) {
    try {
      build();
    } catch (e) {
      // tsc and the scripts have printed their own errors; this says which step stopped.
      process.stderr.write(`build failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
      process.exit(1);
    }
  }
}

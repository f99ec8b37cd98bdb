// Writes every schema under schemas/board and schemas/tools as standalone
// validator code (CommonJS, ajv's standalone output) to dist/validators/, with
// the options src/board/validators.ts compiles them with; run by `npm run
// build` after tsc. `--out <dir>` writes elsewhere (a test compares the two).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { AJV_OPTIONS } = await import(path.join(root, 'dist/board/validators.js'));
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, 'dist/validators');

for (const group of ['board', 'tools']) {
  const dir = path.join(root, 'schemas', group);
  mkdirSync(path.join(out, group), { recursive: true });
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    // One ajv per schema: the standalone code of each then holds only its own schema.
    const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { source: true } });
    (addFormats.default ?? addFormats)(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
    writeFileSync(path.join(out, group, file.replace(/\.json$/, '.cjs')), standaloneCode.default(ajv, validate));
  }
}

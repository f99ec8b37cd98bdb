// Writes src/protocol/tool-args.ts: one TypeScript type per tool's argument
// schema (schemas/tools/*.arguments.json), so the service reads checked
// arguments without casts. `--check` exits 1 when the file is out of date
// (a test runs it that way).
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, 'schemas/tools');
const out = path.join(root, 'src/protocol/tool-args.ts');

const pascal = (tool) => tool.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('');

export async function render() {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.arguments.json')).sort();
  const parts = [
    '/**\n * The tools\' arguments as TypeScript types, generated from their JSON Schemas\n * (schemas/tools/) by scripts/tool-arg-types.mjs. Do not edit by hand: change\n * the schema and run `node scripts/tool-arg-types.mjs`.\n */',
  ];
  const map = [];
  for (const f of files) {
    const tool = f.replace('.arguments.json', '');
    const schema = JSON.parse(await readFile(path.join(dir, f), 'utf8'));
    const name = `${pascal(tool)}Args`;
    delete schema.$id;
    const ts = await compile({ ...schema, title: name }, name, { bannerComment: '', format: true, unknownAny: true, strictIndexSignatures: true, style: { singleQuote: true, printWidth: 120 } });
    parts.push(ts.trim());
    map.push(`  ${tool}: ${name};`);
  }
  parts.push(`/** Each tool's arguments by tool name. */\nexport interface ToolArgs {\n${map.join('\n')}\n}`);
  return parts.join('\n\n') + '\n';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await render();
  if (process.argv.includes('--check')) {
    const now = await readFile(out, 'utf8').catch(() => '');
    if (now !== text) {
      console.error('src/protocol/tool-args.ts is out of date: run node scripts/tool-arg-types.mjs');
      process.exit(1);
    }
  } else await writeFile(out, text);
}

// Writes the tools' TypeScript types from their JSON Schemas, so code reads
// checked values without casts:
// - src/protocol/tool-args.ts: one type per argument schema (schemas/tools/*.arguments.json);
// - src/protocol/tool-results.ts: one type per result schema (schemas/results/*.result.json)
//   and per shape they share (schemas/results/shapes.json), named once.
// `--check` exits 1 when either file is out of date (a test runs it that way).
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argDir = path.join(root, 'schemas/tools');
const resultDir = path.join(root, 'schemas/results');
const OUT = { args: path.join(root, 'src/protocol/tool-args.ts'), results: path.join(root, 'src/protocol/tool-results.ts') };
const OPTIONS = { bannerComment: '', format: true, unknownAny: true, strictIndexSignatures: true, style: { singleQuote: true, printWidth: 120 } };

const pascal = (name) =>
  name
    .split('_')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
const banner = (what, from) =>
  `/**\n * The tools' ${what} as TypeScript types, generated from their JSON Schemas\n * (${from}) by scripts/tool-types.mjs. Do not edit by hand: change\n * the schema and run \`node scripts/tool-types.mjs\`.\n */`;

async function schemasIn(dir, suffix) {
  const files = (await readdir(dir)).filter((f) => f.endsWith(suffix)).sort();
  return Promise.all(files.map(async (f) => ({ tool: f.slice(0, -suffix.length), schema: JSON.parse(await readFile(path.join(dir, f), 'utf8')) })));
}

export async function renderArgs() {
  const parts = [banner('arguments', 'schemas/tools/')];
  const map = [];
  for (const { tool, schema } of await schemasIn(argDir, '.arguments.json')) {
    const name = `${pascal(tool)}Args`;
    delete schema.$id;
    parts.push((await compile({ ...schema, title: name }, name, OPTIONS)).trim());
    map.push(`  ${tool}: ${name};`);
  }
  parts.push(`/** Each tool's arguments by tool name. */\nexport interface ToolArgs {\n${map.join('\n')}\n}`);
  return parts.join('\n\n') + '\n';
}

/** A reference into shapes.json, rewritten to point into the one document the types are compiled from. */
function local(value) {
  if (Array.isArray(value)) return value.map(local);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^shapes\.json#/, '#') : local(v);
  return out;
}

/**
 * A shape that extends an open one (`$ref` plus `unevaluatedProperties:
 * false`, as stepData extends completionFields) as one closed object, since
 * the type generator would read it as open.
 */
function closed(node, defs) {
  if (Array.isArray(node)) return node.map((n) => closed(n, defs));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) out[k] = closed(v, defs);
  if (typeof out.$ref !== 'string' || out.unevaluatedProperties !== false) return out;
  const { $ref, unevaluatedProperties, ...own } = out;
  const base = defs[$ref.replace('#/$defs/', '')];
  const required = [...(base.required ?? []), ...(own.required ?? [])];
  return { ...own, type: 'object', additionalProperties: false, properties: { ...base.properties, ...own.properties }, ...(required.length > 0 ? { required } : {}) };
}

/**
 * Every result and shared shape compiled as one document, so a shape many
 * results share (the run view) is one named type, not a copy per tool; a
 * result that is a shared shape is typed by that shape's name.
 */
export async function renderResults() {
  const shapes = local(JSON.parse(await readFile(path.join(resultDir, 'shapes.json'), 'utf8')));
  const defs = {};
  for (const [name, def] of Object.entries(shapes.$defs)) defs[name] = { ...closed(def, shapes.$defs), title: pascal(name) };
  const results = await schemasIn(resultDir, '.result.json');
  const props = {};
  for (const { tool, schema } of results) {
    const { $schema, $id, title, description, ...body } = local(schema);
    if (Object.keys(body).length === 1 && body.$ref) props[tool] = { $ref: body.$ref };
    else {
      defs[`${tool}Result`] = { ...closed(body, shapes.$defs), description, title: `${pascal(tool)}Result` };
      props[tool] = { $ref: `#/$defs/${tool}Result` };
    }
  }
  const doc = {
    title: 'ToolResults',
    description: "Each tool's answer on success (the `data` of `{ ok: true, data }`) by tool name.",
    type: 'object',
    additionalProperties: false,
    properties: { ...props },
    required: results.map((r) => r.tool),
    $defs: defs,
  };
  // Plain arrays, not tuples, for minItems: the code builds these lists as arrays.
  const ts = await compile(doc, 'ToolResults', { ...OPTIONS, declareExternallyReferenced: true, ignoreMinAndMaxItems: true });
  // Nothing above refers to a refusal's shape: it is compiled on its own.
  const failure = await compile(defs.toolFailure, 'ToolFailure', OPTIONS);
  return `${banner('results', 'schemas/results/')}\n\n${ts.trim()}\n\n${failure.trim()}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const texts = { args: await renderArgs(), results: await renderResults() };
  for (const [which, text] of Object.entries(texts)) {
    const rel = path.relative(root, OUT[which]);
    if (process.argv.includes('--check')) {
      const now = await readFile(OUT[which], 'utf8').catch(() => '');
      if (now !== text) {
        console.error(`${rel} is out of date: run node scripts/tool-types.mjs`);
        process.exitCode = 1;
      }
    } else await writeFile(OUT[which], text);
  }
}

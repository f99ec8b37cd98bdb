// Counts the type assertions in src/: `as` casts (not `as const`) and non-null `!`,
// read from the TypeScript syntax tree, in total and for the files with the most.
// Issue 44 asks for these counts to fall where a type or a guard can say it instead.
// Usage: node scripts/count-assertions.mjs [--top=N] [--json]
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const top = Number(process.argv.find((a) => a.startsWith('--top='))?.slice(6) ?? 10);

function* sources(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (/\.tsx?$/.test(e.name)) yield p;
  }
}

function count(file) {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const n = { as: 0, nonNull: 0 };
  const visit = (node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const isConst = ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(sf) === 'const';
      if (!isConst) n.as++;
    } else if (ts.isNonNullExpression(node)) n.nonNull++;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return n;
}

const rows = [...sources(path.join(ROOT, 'src'))].map((f) => ({ file: path.relative(ROOT, f), ...count(f) }));
const total = rows.reduce((t, r) => ({ as: t.as + r.as, nonNull: t.nonNull + r.nonNull }), { as: 0, nonNull: 0 });
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify({ total, files: rows.filter((r) => r.as + r.nonNull > 0) }, null, 2)}\n`);
} else {
  process.stdout.write(`src/: ${total.as} \`as\` casts, ${total.nonNull} non-null \`!\` in ${rows.length} files\n`);
  const list = (key, label) => {
    const most = rows
      .filter((r) => r[key] > 0)
      .sort((a, b) => b[key] - a[key] || a.file.localeCompare(b.file))
      .slice(0, top);
    process.stdout.write(`\nmost ${label}:\n${most.map((r) => `  ${String(r[key]).padStart(4)}  ${r.file}`).join('\n')}\n`);
  };
  list('as', '`as`');
  list('nonNull', '`!`');
}

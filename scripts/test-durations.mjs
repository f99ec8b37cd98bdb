// Refreshes test/support/durations.json, the table `npm test` orders its files by
// (test/support/longest-first.ts), from a whole run's JSON report, and prints the
// files by duration with the estimated run time (their sum over the 2 workers).
// Usage: npx vitest run --reporter=default --reporter=json --outputFile=/tmp/report.json
//        node scripts/test-durations.mjs /tmp/report.json [--print]
// With --print the table is only printed, not written.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const TABLE = path.join(ROOT, 'test/support/durations.json');
const [report, ...flags] = process.argv.slice(2);
if (!report) {
  console.error('usage: node scripts/test-durations.mjs <vitest JSON report> [--print]');
  process.exit(2);
}

const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const measured = new Map();
for (const r of testResults) {
  const rel = path.relative(ROOT, r.name).split(path.sep).join('/');
  measured.set(rel, Math.round((r.endTime - r.startTime) / 100) / 10);
}
const rows = [...measured].sort((a, b) => b[1] - a[1]);
const sum = rows.reduce((s, [, t]) => s + t, 0);
for (const [file, t] of rows) console.log(`${t.toFixed(1).padStart(7)} s  ${file}`);
console.log(`${rows.length} files, ${sum.toFixed(1)} s in all: about ${(sum / 2).toFixed(0)} s on 2 workers`);

if (!flags.includes('--print')) {
  // Keep the files this report did not run (a partial run refreshes only its own).
  const table = JSON.parse(readFileSync(TABLE, 'utf8'));
  for (const [file, t] of measured) table[file] = t;
  const sorted = Object.fromEntries(Object.entries(table).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(TABLE, `${JSON.stringify(sorted, null, 2)}\n`);
  console.log(`wrote ${path.relative(ROOT, TABLE)}`);
}

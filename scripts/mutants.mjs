#!/usr/bin/env node
/**
 * Hand mutations, re-run with one command: each one breaks a rule the tests
 * must hold (four eyes, the audit chain, lock files, the journal, CSRF and
 * Origin, who is told, claim tokens, leases, replay, caches following
 * commits), the test files that
 * guard the rule run, and the mutant is killed when they fail. Nothing here
 * touches this checkout: the work happens in a clone of its HEAD (commit
 * first), whose node_modules come from `npm ci` and whose dist/ is built
 * once unmutated (some tests run helper processes from it; the mutated code
 * is what vitest loads from src/).
 *
 *   node scripts/mutants.mjs [--clone <dir>] [--only <id>,<id>]
 *
 * A mutation whose text is no longer in its file (the code moved on) is
 * reported as such, never counted as killed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTANTS } from './mutants-list.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function option(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

const clone = path.resolve(option('clone') ?? '/tmp/workboard-mutants');
const only = option('only')?.split(',');
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

if (clone === REPO) throw new Error('the clone must not be this checkout');
if (!existsSync(clone)) run('git', ['clone', '--quiet', REPO, clone], REPO);
run('git', ['fetch', '--quiet', REPO, 'HEAD'], clone);
run('git', ['checkout', '--quiet', '--force', 'FETCH_HEAD'], clone);
run('git', ['clean', '--quiet', '-fdx', '--exclude=node_modules'], clone);
// Installed again whenever package-lock.json is not the one the clone's node_modules came from.
const stamp = path.join(clone, 'node_modules', '.mutants-lock');
const lock = readFileSync(path.join(clone, 'package-lock.json'), 'utf8');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lock) {
  run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], clone);
  writeFileSync(stamp, lock);
}
run('npm', ['run', 'build', '--silent'], clone);
const commit = run('git', ['rev-parse', '--short', 'HEAD'], clone).trim();

const passes = (tests) => spawnSync('npx', ['vitest', 'run', ...tests], { cwd: clone, encoding: 'utf8', env: { ...process.env, CI: '1' }, timeout: 600_000 }).status === 0;
// A mutant counts as killed only by tests that pass without it.
const baseline = new Map();

const rows = [];
for (const [id, file, text, mutated, tests] of MUTANTS) {
  if (only && !only.includes(id)) continue;
  const key = tests.join(' ');
  if (!baseline.has(key)) baseline.set(key, passes(tests));
  if (!baseline.get(key)) {
    rows.push([id, file, `not measured: ${key} fails unmutated`]);
    continue;
  }
  const abs = path.join(clone, file);
  const original = readFileSync(abs, 'utf8');
  if (original.split(text).length !== 2) {
    rows.push([id, file, 'not applicable (text not found once)']);
    continue;
  }
  writeFileSync(abs, original.replace(text, mutated));
  try {
    rows.push([id, file, passes(tests) ? 'SURVIVED' : 'killed']);
  } finally {
    writeFileSync(abs, original);
  }
  process.stderr.write(`${rows.at(-1).join('  ')}\n`);
}

const killed = rows.filter((r) => r[2] === 'killed').length;
console.log(`Hand mutations at ${commit}: ${killed} of ${rows.length} killed\n`);
console.log('| mutation | file | result |\n| --- | --- | --- |');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
process.exitCode = killed === rows.length ? 0 : 1;

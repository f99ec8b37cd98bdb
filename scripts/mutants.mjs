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

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** [id, file, text, its mutation, the test files that must kill it] */
const MUTANTS = [
  ['four-eyes-earlier-completions', 'src/engine/rights.ts', '[...(st.current ? [st.current] : []), ...st.history]', '[...(st.current ? [st.current] : [])]', ['test/engine/rights.test.ts', 'test/identities/scopes-four-eyes.test.ts']],
  ['four-eyes-initiator', 'src/engine/rights.ts', 'if (initiator && mine.has(initiator.toLowerCase()))', 'if (initiator && false)', ['test/engine/rights.test.ts', 'test/identities/scopes-four-eyes.test.ts']],
  ['four-eyes-former-emails', 'src/engine/rights.ts', '[person.email, ...(person.formerEmails ?? [])]', '[person.email]', ['test/engine/rights.test.ts', 'test/identities/scopes-four-eyes.test.ts']],
  ['agent-scope-ignored', 'src/engine/rights.ts', "return actor.kind !== 'agent' || actor.processes === undefined || actor.processes.includes(process);", 'return true;', ['test/engine/rights.test.ts', 'test/identities/scopes-four-eyes.test.ts']],
  ['audit-seq-gap', 'src/board/audit.ts', 'if (expectedSeq !== undefined && ev.seq !== expectedSeq)', 'if (expectedSeq !== undefined && ev.seq !== expectedSeq && false)', ['test/board/audit.test.ts']],
  ['audit-prev-hash', 'src/board/audit.ts', 'if (expectedPrev !== undefined && ev.prevHash !== expectedPrev)', 'if (expectedPrev !== undefined && ev.prevHash !== expectedPrev && false)', ['test/board/audit.test.ts']],
  ['audit-line-hash', 'src/board/audit.ts', 'if (eventHash(rest) !== hash)', 'if (eventHash(rest) !== hash && false)', ['test/board/audit.test.ts']],
  ['audit-torn-line', 'src/board/audit.ts', "const torn = lines[lines.length - 1] !== '';", 'const torn = false;', ['test/board/audit.test.ts']],
  ['lock-release-any-of-this-host', 'src/board/lock.ts', "if (buf !== null && buf.toString('utf8') === JSON.stringify(info)) await removeIfExists(file);", "if (buf !== null && JSON.parse(buf.toString('utf8')).host === info.host) await removeIfExists(file);", ['test/board/lock.test.ts']],
  ['lock-break-live-pid', 'src/board/lock.ts', 'if (info.host === HOST) return !pidAlive(info.pid);', 'if (info.host === HOST) return true;', ['test/board/lock.test.ts']],
  ['journal-broken-dropped', 'src/board/journal.ts', "if (state === 'broken') {", "if (state === 'never') {", ['test/board/journal.test.ts']],
  ['journal-whole-dropped', 'src/board/journal.ts', 'if (record !== null) {', 'if (false) {', ['test/board/journal.test.ts']],
  ['csrf-any-of-right-length', 'src/web/security.ts', 'return want.length === got.length && timingSafeEqual(want, got);', 'return want.length === got.length;', ['test/web/post-guard.test.ts']],
  ['origin-any', 'src/web/security.ts', 'if (origin !== undefined) return origin === want;', 'if (origin !== undefined) return true;', ['test/web/post-guard.test.ts']],
  ['operators-group-nobody', 'src/notify/rules.ts', 'if (a.group === OPERATORS) return [...manifest.operators];', 'if (a.group === OPERATORS) return [];', ['test/notify/rules.test.ts']],
  ['group-members-nobody', 'src/notify/rules.ts', "return [...(manifest.groups[a.group ?? ''] ?? [])];", 'return [];', ['test/notify/rules.test.ts']],
  ['token-signature-unchecked', 'src/service/tokens.ts', 'if (sig.length !== want.length || !timingSafeEqual(sig, want)) return null;', 'if (sig.length !== want.length) return null;', ['test/abuse/tokens.test.ts']],
  ['lease-never-expires', 'src/engine/machine.ts', "offer(lease.expiresAt, () => this.endLease(lease, 'lease.expired'", "offer(null, () => this.endLease(lease, 'lease.expired'", ['test/engine/execute.test.ts', 'test/engine/engine.test.ts']],
  ['lease-renew-keeps-expiry', 'src/engine/commands.ts', "claimId: m.ctx.newId('c'),\n    expiresAt: new Date(now + m.ctx.limits.leaseSeconds * 1000).toISOString(),", "claimId: m.ctx.newId('c'),\n    expiresAt: old.expiresAt,", ['test/engine/execute.test.ts', 'test/engine/engine.test.ts']],
  ['lease-of-another-agent', 'src/engine/commands.ts', "if (actor.kind !== 'agent' || lease.agent !== actor.id) return", "if (actor.kind !== 'agent') return", ['test/engine/execute.test.ts']],
  ['token-of-another-agent', 'src/engine/commands.ts', "if (claimant !== undefined && (actor.kind !== 'agent' || actor.id !== claimant))", "if (claimant !== undefined && actor.kind !== 'agent')", ['test/engine/execute.test.ts', 'test/abuse/tokens.test.ts']],
  ['feed-transaction-untold', 'src/board/store.ts', "    this.feed.publish({ scope, source: 'transaction', files: [...plan.writes.map((w) => w.rel), ...plan.removes], events });\n", '', ['test/board/commit-feed.test.ts', 'test/service/commit-feed.test.ts']],
  ['feed-roll-forward-untold', 'src/board/store.ts', "if (journal === 'roll-forward') this.feed.publish({ scope, source: 'roll-forward', files: await this.journals.rollForward(scope), events: [] });", "if (journal === 'roll-forward') await this.journals.rollForward(scope);", ['test/board/commit-feed.test.ts']],
  ['feed-replay-untold', 'src/board/store.ts', "          this.feed.publish({ scope, source: 'replay', files: done.written, events: [] });\n", '', ['test/board/commit-feed.test.ts']],
  ['reader-write-keeps-last-valid', 'src/service/run-reader.ts', "if (as === 'tick') this.seenValid(runId, loaded);", 'this.seenValid(runId, loaded);', ['test/abuse/files.test.ts']],
  ['feed-merge-untold', 'src/board/store.ts', "        this.feed.publish({ scope: c.scope, source: 'merge', files: [...writes.map((w) => w.rel), ...removes], events: [] });\n", '', ['test/board/commit-feed.test.ts']],
  ['feed-one-listener-stops-the-rest', 'src/board/commit-feed.ts', 'try {\n        l(event);\n      } catch (e) {\n        errors.push(e);\n      }', 'l(event);', ['test/board/commit-feed.test.ts']],
  ['reader-keeps-a-committed-run', 'src/service/run-reader.ts', '    this.runCache.delete(runId);\n    if (c.events', '    if (c.events', ['test/service/commit-feed.test.ts']],
  ['reader-unsubscribed', 'src/service/run-reader.ts', 'board.store.onCommit((c) => this.committed(c));', 'void this.committed;', ['test/service/commit-feed.test.ts', 'test/architecture/cache-coherence.test.ts']],
  ['reader-keeps-ended-runs-open-state', 'src/service/run-reader.ts', "if (c.events.some((e) => e.action === 'run.ended' || e.action === 'run.cancelled')) this.lastGood.delete(runId);", '', ['test/service/commit-feed.test.ts', 'test/service/memory-bounds.test.ts']],
  ['index-ignores-commits', 'src/service/run-index.ts', "if (c.scope.kind === 'run') this.committed.add(c.scope.id);", 'void c;', ['test/service/commit-feed.test.ts']],
  ['replay-other-arguments', 'src/service/replay.ts', 'if (rec.fingerprint !== fingerprint(tool, a, actor)) {', 'if (false) {', ['test/service/idempotency.test.ts']],
];

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

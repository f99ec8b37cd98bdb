/**
 * A process killed while it wrote a sync's intent leaves a temp file in
 * `.work/journal/` (the write never became the intent). It is no pending
 * journal: it must not stop the board's commits, or every later sync of the
 * clone fails "changed while the merge was being made" (the 300-round sync
 * simulation met exactly this, and looped on it), and doctor does not call
 * it an interrupted commit. Real git, real CLI processes.
 */
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { JOURNAL_DIR, lockFile, SYNC_INTENT } from '../../src/board/layout.js';
import { ensureBuilt } from '../support/cli-run.js';
import { git, twoClones, wb } from '../support/git-clones.js';

beforeAll(async () => {
  await ensureBuilt();
}, 600_000);

it("a dead writer's temp file of the sync's intent neither blocks a sync nor shows as a pending journal", async () => {
  const { remote, a, b, run } = await twoClones();
  // Both sides move: B claims and syncs; A adds a person, so A's WORK.md is not yet committed.
  expect((await wb(b, '--as', 'writer-b', 'claim', run, 'draft')).code).toBe(0);
  expect((await wb(b, 'sync')).code).toBe(0);
  expect((await wb(a, '--as', 'ana@example.com', 'person', 'add', 'eli@example.com')).code).toBe(0);
  // What a sync killed in the middle of writing its intent leaves (a pid no process has).
  const temp = path.join(a, JOURNAL_DIR, `${path.basename(SYNC_INTENT)}.tmp-${hostname()}-999999999-0badcafe`);
  await fs.mkdir(path.dirname(temp), { recursive: true });
  await fs.writeFile(temp, JSON.stringify({ from: git(a, 'rev-parse', 'HEAD'), to: git(a, 'rev-parse', 'HEAD'), ref: 'refs/heads/main' }));

  const doctor = await wb(a, 'doctor');
  expect(doctor.stdout).not.toMatch(/interrupted/);
  const synced = await wb(a, 'sync');
  expect(synced.code, synced.stderr).toBe(0);
  expect(git(remote, 'rev-parse', 'main')).toBe(git(a, 'rev-parse', 'HEAD'));
  expect(git(a, 'status', '--porcelain', '--', 'WORK.md')).toBe('');
  expect(await fs.readFile(path.join(a, 'WORK.md'), 'utf8')).toContain('eli@example.com');
}, 600_000);

it("a writer killed holding a run's lock before its journal: the next sync breaks the lock, removes its temp file, and leaves the run as it was", async () => {
  const { remote, a, run } = await twoClones();
  const runFile = path.join(a, 'runs', run, 'RUN.md');
  const before = await fs.readFile(runFile, 'utf8');
  // What an agent's claim killed just after it took the run's lock and opened its temp file leaves (a pid no process has).
  const pid = 999999999;
  const lock = path.join(a, lockFile(`run-${run}`));
  await fs.mkdir(path.dirname(lock), { recursive: true });
  await fs.writeFile(lock, JSON.stringify({ host: hostname(), pid, acquiredAt: new Date().toISOString(), token: '0badcafe0badcafe' }));
  const temp = `${runFile}.tmp-${hostname()}-${pid}-0badcafe`;
  await fs.writeFile(temp, '');

  const synced = await wb(a, 'sync');
  expect(synced.code, synced.stderr).toBe(0);
  expect(await fs.readdir(path.join(a, 'runs', run))).not.toContain(path.basename(temp));
  expect(await fs.stat(lock).catch(() => null)).toBeNull();
  expect(await fs.readFile(runFile, 'utf8')).toBe(before);
  expect(git(a, 'status', '--porcelain')).toBe('');
  expect(git(remote, 'rev-parse', 'main')).toBe(git(a, 'rev-parse', 'HEAD'));
}, 600_000);

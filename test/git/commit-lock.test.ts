/**
 * `serve --git-commit` never commits a transition half applied (issue 39,
 * item 8). git is made to stop while the commit reads a run's files (in
 * `git add`, or in `git commit` when it names the paths), by a clean filter
 * on RUN.md (real git: it reads RUN.md first, then the chain and the step
 * files); meanwhile an agent submits on that run
 * through the CLI. Before the fix the commit held RUN.md from before the
 * submit and the chain from after it; with the scope's lock held from
 * staging to the commit, the submit waits, and the commit holds the run as
 * it was before, whole.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../support/cli-run.js';
import { draftSubmission, git, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

/** Blocks the first time `git add` or `git commit` runs it (its parent's command line says so) until the test says go; otherwise a plain `cat`. */
const FILTER = `#!/bin/sh
case "$(tr '\\0' ' ' < /proc/$PPID/cmdline)" in
  *" add "*|*" commit "*) if mkdir "$MARKS/commit.started" 2>/dev/null; then while [ ! -e "$MARKS/commit.go" ]; do sleep 0.05; done; fi ;;
esac
exec cat
`;

/** One process that opens the board and commits it to git once, as serve --git-commit does each interval. */
const COMMIT_ONCE = `const { Board } = await import(${JSON.stringify(path.join(ROOT, 'dist/board/board.js'))});
const { commitBoard } = await import(${JSON.stringify(path.join(ROOT, 'dist/git/commit.js'))});
const board = await Board.open(process.cwd());
process.stdout.write(String(await commitBoard(board)));`;

const exited = (child: ReturnType<typeof spawn>) => new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', r)));

/** A run's committed files in a commit, by name. */
function runAt(dir: string, commit: string, run: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of git(dir, 'ls-tree', '--name-only', `${commit}:runs/${run}`).split('\n')) out[name] = git(dir, 'show', `${commit}:runs/${run}/${name}`);
  return out;
}

/** A run's files in the work tree, by name, as git would commit them. */
async function runNow(dir: string, run: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await fs.readdir(path.join(dir, 'runs', run))).sort()) out[name] = (await fs.readFile(path.join(dir, 'runs', run, name), 'utf8')).trim();
  return out;
}

describe('a git commit of the board is never in the middle of a transition', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it.skipIf(process.platform !== 'linux')(
    'an agent submits while git commit reads the run: the commit holds the run before the submit or after it, whole',
    async () => {
      const { root, a, run } = await twoClones();
      const marks = path.join(root, 'marks');
      await fs.mkdir(marks);
      await fs.writeFile(path.join(root, 'filter.sh'), FILTER, { mode: 0o755 });
      await fs.appendFile(path.resolve(a, git(a, 'rev-parse', '--git-path', 'info/attributes')), 'runs/*/RUN.md filter=stall\n');
      git(a, 'config', 'filter.stall.clean', path.join(root, 'filter.sh'));
      const claim = await wb(a, '--as', 'writer-a', 'claim', run, 'draft');
      expect(claim.code, claim.stderr).toBe(0);
      const before = await runNow(a, run);
      const head = git(a, 'rev-parse', 'HEAD');

      const committer = spawn(process.execPath, ['--input-type=module', '-e', COMMIT_ONCE], { cwd: a, env: { ...process.env, MARKS: marks }, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      committer.stderr.on('data', (d: Buffer) => (err += d.toString()));
      await until(() => (existsSync(path.join(marks, 'commit.started')) ? true : undefined), 120_000);
      // git is inside the commit, RUN.md read: an agent submits on the run now.
      const submit = new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [path.join(ROOT, 'bin/workboard.js'), '--as', 'writer-a', ...draftSubmission(claim.stdout.trim(), 'Mid-commit.', 'Written.')],
          { cwd: a, env: { ...process.env, NO_COLOR: '1' } },
          (e, _out, stderr) => resolve({ code: e ? Number((e as { code?: unknown }).code ?? 1) : 0, stderr }),
        );
      });
      // Give the submit its chance to land (it does at once without the lock; with it, it waits for the commit).
      await Promise.race([submit, new Promise((r) => setTimeout(r, 15_000))]);
      await fs.writeFile(path.join(marks, 'commit.go'), '');
      expect(await exited(committer), err).toBe(0);
      const submitted = await submit;
      expect(submitted.code, submitted.stderr).toBe(0);
      const after = await runNow(a, run);
      expect(after['RUN.md']).not.toBe(before['RUN.md']);

      const commit = git(a, 'rev-parse', 'HEAD');
      expect(commit).not.toBe(head);
      const committed = runAt(a, commit, run);
      const whole = [before, after].some((state) => JSON.stringify(state) === JSON.stringify(committed));
      expect(
        whole,
        `committed RUN.md rev ${/rev: (\d+)/.exec(committed['RUN.md']!)?.[1]}, ${committed['audit.jsonl']!.split('\n').length} chain lines; before: rev ${/rev: (\d+)/.exec(before['RUN.md']!)?.[1]}, ${before['audit.jsonl']!.split('\n').length}; after: rev ${/rev: (\d+)/.exec(after['RUN.md']!)?.[1]}, ${after['audit.jsonl']!.split('\n').length}`,
      ).toBe(true);
    },
    600_000,
  );
});

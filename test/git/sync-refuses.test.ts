/**
 * What a collaborator's commit may never bring into a clone through `workboard
 * sync` (issue 39, items 2 and 5): files under `.work/` (a planted token or
 * web session would work here), and a tree entry `..` that names a path
 * outside the board. Sync refuses the commit, names every path, exits 1 and
 * changes nothing, on the fast-forward path and the merge path alike; once
 * the remote removes them, sync goes on.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { boardFiles, git, submitAs, twoClones, wb } from '../support/git-clones.js';

/** Everything of a clone sync could change: HEAD, the index and work tree's status, the board's committed files, its `.work/` records that matter. */
/** git with something on its stdin (mktree, hash-object, commit-tree). */
const execGit = (cwd: string, args: string[], input: string) => execFileSync('git', args, { cwd, input, encoding: 'utf8' }).trim();

async function snapshot(dir: string) {
  const read = (rel: string) => fs.readFile(path.join(dir, rel), 'utf8').catch(() => null);
  return {
    head: git(dir, 'rev-parse', 'HEAD'),
    status: git(dir, 'status', '--porcelain', '--ignored'),
    files: await boardFiles(dir),
    tokens: await read('.work/tokens.json'),
    sessions: await read('.work/web/sessions.json'),
  };
}

/** `a` syncs twice against the remote's `commit` holding `paths`: refused both times, naming them and the commit, changing nothing. */
async function refusedTwice(a: string, commit: string, paths: string[]) {
  const before = await snapshot(a);
  // The fast-forward path (A has nothing B lacks), then the merge path (A moved too).
  for (const diverge of [false, true]) {
    if (diverge) {
      git(a, 'commit', '-q', '--allow-empty', '-m', 'A moves on');
      Object.assign(before, await snapshot(a));
    }
    const r = await wb(a, 'sync');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    for (const p of paths) expect(r.stderr).toContain(p);
    expect(r.stderr).toContain('nothing was changed');
    expect(r.stderr).toContain(commit.slice(0, 8));
    expect(await snapshot(a)).toEqual(before);
    expect(existsSync(path.join(a, '.work/journal/sync.json'))).toBe(false);
    const doctor = await wb(a, 'doctor');
    expect(doctor.code, doctor.stdout).toBe(0);
  }
}

describe('workboard sync refuses what git must never bring', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it("a pushed .work/tokens.json and .work/web/sessions.json: refused by name, this clone's own tokens and sessions untouched", async () => {
    const { a, b, run } = await twoClones();
    await submitAs(b, run, 'writer-b', 'From B.');
    expect((await wb(a, 'token', 'create', 'writer-a', '--name', 'mine')).code).toBe(0);
    expect((await wb(b, 'token', 'create', 'ana@example.com', '--name', 'planted')).code).toBe(0);
    await fs.mkdir(path.join(b, '.work/web'), { recursive: true });
    await fs.writeFile(path.join(b, '.work/web/sessions.json'), '{"sessions":[]}\n');
    git(b, 'add', '-A');
    // A collaborator forces it past this clone's sparse rule (--sparse), as one whose clone never ran git-setup needs not.
    git(b, 'add', '-f', '--sparse', '.work/tokens.json', '.work/web/sessions.json');
    git(b, 'commit', '-qm', 'B moves the run, and plants state');
    git(b, 'push', '-q', 'origin', 'main');
    await refusedTwice(a, git(b, 'rev-parse', 'HEAD'), ['.work/tokens.json', '.work/web/sessions.json']);
    const tokens = await wb(a, 'token', 'list');
    expect(tokens.stdout).toContain('mine');
    expect(tokens.stdout).not.toContain('planted');

    // Removed on the remote in a new commit: sync goes on, and brings B's run with it, never the planted files.
    git(b, 'rm', '-q', '--cached', '--sparse', '.work/tokens.json', '.work/web/sessions.json');
    git(b, 'commit', '-qm', 'Unplant');
    git(b, 'push', '-q', 'origin', 'main');
    const r = await wb(a, 'sync');
    expect(r.code, r.stderr).toBe(0);
    expect(await fs.readFile(path.join(a, `runs/${run}/draft.md`), 'utf8')).toContain('From B.');
    expect((await wb(a, 'token', 'list')).stdout).not.toContain('planted');
    expect(git(a, 'ls-files', '.work')).toBe('');
  }, 600_000);

  it('a commit holding processes/../../escaped.txt (built with git mktree): refused by name, no intent left, nothing written outside', async () => {
    const { root, a, b } = await twoClones();
    // processes/../../escaped.txt: the tree `processes` holds a tree `..`, which holds a tree `..`, which holds the file.
    const file = execGit(b, ['hash-object', '-w', '--stdin'], 'escaped\n');
    const t1 = execGit(b, ['mktree'], `100644 blob ${file}\tescaped.txt\n`);
    const t2 = execGit(b, ['mktree'], `040000 tree ${t1}\t..\n`);
    const top = git(b, 'ls-tree', 'HEAD')
      .split('\n')
      .filter((l) => !l.endsWith('\tprocesses'));
    const processes = git(b, 'ls-tree', 'HEAD:processes');
    const p = execGit(b, ['mktree'], `${processes}\n040000 tree ${t2}\t..\n`);
    const tree = execGit(b, ['mktree'], `${[...top, `040000 tree ${p}\tprocesses`].join('\n')}\n`);
    const commit = execGit(b, ['commit-tree', tree, '-p', 'HEAD', '-m', 'Escape'], '');
    git(b, 'push', '-q', 'origin', `${commit}:refs/heads/main`);
    await refusedTwice(a, commit, ['processes/../../escaped.txt']);
    expect(existsSync(path.join(root, 'escaped.txt'))).toBe(false);
    expect(existsSync(path.join(path.dirname(root), 'escaped.txt'))).toBe(false);
  }, 600_000);
});

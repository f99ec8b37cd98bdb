/**
 * The look at git's index that spares most CLI calls a `git ls-files`
 * (src/git/tracked-state.ts): it may answer "names no `.work/` path" only
 * when git itself lists none there. Real repositories in each of the index's
 * shapes: versions 2, 3 and 4, a split index, a board in a subfolder, a
 * path that merely contains the word.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexMayNameState } from '../../src/git/at-work.js';
import { trackedState } from '../../src/git/tracked-state.js';
import { git } from '../support/git-clones.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

/** A repository with a board at `sub` (relative), some committed files, and `.work/` records under it tracked or not. */
async function repo(opts: { sub?: string; trackState?: boolean; version?: number; split?: boolean; sparse?: boolean; extra?: string } = {}): Promise<{ dir: string; board: string }> {
  const dir = await tmpDir('wb-tracked-');
  const board = path.join(dir, opts.sub ?? '');
  git(dir, 'init', '-q', '-b', 'main');
  await fs.mkdir(path.join(board, 'runs', 'r-1'), { recursive: true });
  await fs.mkdir(path.join(board, '.work'), { recursive: true });
  await fs.writeFile(path.join(board, 'WORK.md'), '---\nname: t\n---\n');
  await fs.writeFile(path.join(board, 'runs', 'r-1', 'RUN.md'), '---\nid: r-1\n---\n');
  await fs.writeFile(path.join(board, '.work', 'tokens.json'), '{}\n');
  await fs.writeFile(path.join(dir, '.gitignore'), '.work/\n');
  if (opts.extra) {
    await fs.mkdir(path.dirname(path.join(board, opts.extra)), { recursive: true });
    await fs.writeFile(path.join(board, opts.extra), 'x\n');
  }
  git(dir, 'add', '.');
  if (opts.trackState) git(dir, 'add', '-f', path.join(opts.sub ?? '', '.work', 'tokens.json'));
  if (opts.version) git(dir, 'update-index', '--index-version', String(opts.version));
  if (opts.split) git(dir, 'update-index', '--split-index');
  if (opts.sparse) {
    // A cone-mode sparse index that leaves the board's folder out collapses it to one entry: its paths are not in the index's bytes.
    git(dir, '-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-qm', 'board');
    await fs.mkdir(path.join(dir, 'other'), { recursive: true });
    await fs.writeFile(path.join(dir, 'other', 'x.txt'), 'x\n');
    git(dir, 'add', 'other');
    git(dir, '-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-qm', 'other');
    git(dir, 'sparse-checkout', 'init', '--cone', '--sparse-index');
    git(dir, 'sparse-checkout', 'set', 'other');
  }
  return { dir, board };
}

/** What the look says, beside what git lists. */
function both(r: { dir: string; board: string }) {
  return { may: indexMayNameState(path.join(r.dir, '.git')), listed: [...trackedState(r.board).keys()] };
}

afterAll(cleanupTmp);

describe("the look at git's index before asking git which .work/ records it tracks", () => {
  it('answers "none" for a board whose .work/ git ignores, at index versions 2 and 3', async () => {
    for (const version of [2, 3]) {
      const r = await repo({ version });
      expect(both(r), `index version ${version}`).toEqual({ may: false, listed: [] });
    }
  });

  it('answers "may" whenever git tracks a .work/ record, at the board root or in a subfolder', async () => {
    expect(both(await repo({ trackState: true }))).toEqual({ may: true, listed: ['.work/tokens.json'] });
    const sub = both(await repo({ sub: 'team/board', trackState: true }));
    expect(sub.may).toBe(true);
    expect(sub.listed).toEqual(['.work/tokens.json']);
  });

  it('answers "may" for an index it cannot read path by path: version 4, a split index, a sparse index', async () => {
    expect(both(await repo({ version: 4 })).may).toBe(true);
    expect(both(await repo({ trackState: true, version: 4 }))).toEqual({ may: true, listed: ['.work/tokens.json'] });
    expect(both(await repo({ split: true })).may).toBe(true);
    const sparse = await repo({ sub: 'team', trackState: true, sparse: true });
    expect((await fs.readFile(path.join(sparse.dir, '.git', 'index'))).includes('.work/'), 'the sparse index holds the path by name').toBe(false);
    expect(indexMayNameState(path.join(sparse.dir, '.git'))).toBe(true);
  });

  it('answers "may" when git is pointed at another index file', async () => {
    const r = await repo();
    process.env.GIT_INDEX_FILE = path.join(r.dir, 'elsewhere.index');
    try {
      expect(indexMayNameState(path.join(r.dir, '.git'))).toBe(true);
    } finally {
      delete process.env.GIT_INDEX_FILE;
    }
    expect(indexMayNameState(path.join(r.dir, '.git'))).toBe(false);
  });

  it('answers "may" for a path that only looks like .work/ (a spawn, never a miss), and git lists nothing there', async () => {
    expect(both(await repo({ extra: 'notes/x.work/readme.txt' }))).toEqual({ may: true, listed: [] });
  });

  it('answers "may" when there is no index to read', async () => {
    const dir = await tmpDir('wb-tracked-');
    git(dir, 'init', '-q');
    expect(indexMayNameState(path.join(dir, '.git'))).toBe(true);
  });
});

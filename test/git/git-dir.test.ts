/**
 * The board's repository folder is found on disk the way git finds it, without
 * spawning git: checked here against `git rev-parse --absolute-git-dir` itself
 * for a plain clone, a folder inside it, a linked worktree and no repository.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitDirOf } from '../../src/git/at-work.js';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
const gitsAnswer = (dir: string): string => realpathSync(git(dir, 'rev-parse', '--absolute-git-dir'));
const ours = (dir: string): string | null => {
  const found = gitDirOf(dir);
  return found === null ? null : realpathSync(found);
};

describe('gitDirOf', () => {
  const top = mkdtempSync(path.join(tmpdir(), 'wb-gitdir-'));
  const repo = path.join(top, 'repo');
  mkdirSync(path.join(repo, 'boards', 'team'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, '-c', 'user.email=a@example.com', '-c', 'user.name=A', 'commit', '-q', '--allow-empty', '-m', 'first');

  it('agrees with git in a clone and in a folder inside it', () => {
    expect(ours(repo)).toBe(gitsAnswer(repo));
    const inside = path.join(repo, 'boards', 'team');
    expect(ours(inside)).toBe(gitsAnswer(inside));
    expect(ours(inside)).toBe(realpathSync(path.join(repo, '.git')));
  });

  it("agrees with git in a linked worktree, whose .git is a file naming the worktree's own folder", () => {
    const linked = path.join(top, 'linked');
    git(repo, 'worktree', 'add', '-q', linked);
    expect(ours(linked)).toBe(gitsAnswer(linked));
    expect(ours(linked)).toBe(realpathSync(path.join(repo, '.git', 'worktrees', 'linked')));
  });

  it('answers null outside any repository', () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'wb-nogit-'));
    expect(() => git(outside, 'rev-parse', '--absolute-git-dir')).toThrow();
    expect(gitDirOf(outside)).toBeNull();
  });
});

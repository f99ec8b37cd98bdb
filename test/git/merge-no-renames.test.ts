/**
 * Issue 41, found by the 300-round simulation: a run changed on one side only
 * takes that side (docs/git.md "The merge rule"), whatever git's rename
 * detection makes of it. One side's merge kept the side of run X that
 * cancelled it (so X's `done.md` went) and the same side brought run Y, which
 * had ended (a `done.md` much like X's); the other side's merge had replaced
 * X's `done.md` with another clone's. git's merge took Y's `done.md` for X's
 * moved, and put the other side's change to X's into Y's: Y, touched by one
 * side only, came out with a file its chain does not vouch for, the clone's
 * `audit verify` failed, and its sync refused to push from then on. Real git
 * (a repository, commits and `merge-tree`), the sync's own merge.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeCommits } from '../../src/git/board-merge.js';
import { Repo } from '../../src/git/repo.js';

const X = 'r-01m94azae6e1whn7q3xa33fy3s';
const Y = 'r-01m94azrgg9nav71ypwstnx1da';
const done = (since: string) => `---\nid: done\nkind: finish\nstate: done\nrev: 1\nreadySince: "${since}"\n---\n`;
const runMd = (id: string, state: string) => `---\nid: ${id}\nprocess: timed\nversion: 1\nstate: ${state}\nrev: 3\n---\n`;

describe('the merge: a board file is never taken for another one moved', () => {
  it('a run only one side changed comes out as that side has it, though git sees a rename into it', async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wb-merge-renames-')));
    const env = {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
    const write = async (rel: string, text: string) => {
      await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await fs.writeFile(path.join(dir, rel), text);
    };
    const commit = (what: string) => {
      git('add', '-A');
      git('commit', '-q', '-m', what);
      return git('rev-parse', 'HEAD');
    };
    try {
      git('init', '-q', '-b', 'main');
      // Where both sides last agreed: X ended (approved on one clone).
      await write(`runs/${X}/RUN.md`, runMd(X, 'done'));
      await write(`runs/${X}/done.md`, done('2026-12-06T00:13:17.154Z'));
      const base = commit('X approved');
      // Ours: a merge here kept another clone's approval of X, so its done.md differs.
      await write(`runs/${X}/done.md`, done('2026-12-06T00:15:13.703Z'));
      const ours = commit('X: another approval kept');
      // Theirs: a merge there kept the side that cancelled X (no done.md), and Y arrived, ended.
      git('checkout', '-q', '-b', 'theirs', base);
      await write(`runs/${X}/RUN.md`, runMd(X, 'cancelled'));
      await fs.rm(path.join(dir, `runs/${X}/done.md`));
      await write(`runs/${Y}/RUN.md`, runMd(Y, 'done'));
      await write(`runs/${Y}/done.md`, done('2026-12-06T00:17:19.035Z'));
      const theirs = commit('X cancelled; Y approved');
      expect(git('diff', '--name-status', '-M', base, theirs), 'git sees a rename of X/done.md into Y').toMatch(new RegExp(`^R\\d+\\s+runs/${X}/done\\.md\\s+runs/${Y}/done\\.md`, 'm'));

      const repo = (await Repo.at(dir))!;
      for (const [a, b] of [
        [ours, theirs],
        [theirs, ours],
      ] as const) {
        const merged = await mergeCommits(repo, a, b);
        const yFiles = git('ls-tree', '-r', merged.tree, '--', `runs/${Y}`);
        expect(yFiles, `Y as the side that brought it has it (merge of ${a === ours ? 'theirs into ours' : 'ours into theirs'})`).toBe(git('ls-tree', '-r', theirs, '--', `runs/${Y}`));
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

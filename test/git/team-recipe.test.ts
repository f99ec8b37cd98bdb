/**
 * The team recipe of docs/git.md "A team: three people, one remote" (issue
 * 41, item 7), run literally: its shell blocks are read from the page and
 * run line by line (`/srv/git` is a temporary folder, `--git-sync 30` is
 * `--git-sync 2` and each serve gets a free port, so the test does not wait
 * on the clock). Then each person's agent drafts a run on their own clone
 * while the three serves sync, and every clone ends with the same board,
 * signed by the people who acted, and `audit verify --git` clean.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { freePort } from '../support/free-port.js';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, workboard } from '../support/cli-run.js';
import { boardFiles, git, submitAs, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

const PAGE = fileURLToPath(new URL('../../docs/git.md', import.meta.url));

/** The recipe's shell blocks, in order: Mira's, a newcomer's, everyone's. */
async function recipe(): Promise<string[][]> {
  const text = await fs.readFile(PAGE, 'utf8');
  const section = text.slice(text.indexOf('## A team: three people, one remote'), text.indexOf('## The merge rule'));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l !== ''),
  );
}

/** Shell words: spaces split, double quotes group. */
const words = (line: string): string[] => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

describe('the team recipe in docs/git.md, run as written', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('three people, one remote, each with a serve and an agent: one board on every clone, signed by its people', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'wb-team-'));
    const srv = path.join(root, 'srv/git');
    await fs.mkdir(srv, { recursive: true });
    const env = { HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Someone', GIT_COMMITTER_NAME: 'Someone' };
    // HOME has no git identity, so each clone's user.email is what the recipe sets.
    await fs.writeFile(path.join(root, '.gitconfig'), '[init]\n\tdefaultBranch = master\n');
    const serves: ChildProcess[] = [];
    let logs = '';
    const run = async (line: string, cwd: string, person: string): Promise<string> => {
      const argv = words(line.replace(/\/srv\/git/g, srv).replace(/jon/g, person));
      if (argv[0] === 'cd') return path.resolve(cwd, argv[1]!);
      if (argv[0] === 'workboard' && argv[1] === 'serve') {
        const args = argv.slice(2);
        args[args.indexOf('--http') + 1] = `127.0.0.1:${await freePort()}`;
        args[args.indexOf('--git-sync') + 1] = '2';
        const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout.on('data', (d: Buffer) => (logs += `[${person}] ${d.toString()}`));
        child.stderr.on('data', (d: Buffer) => (logs += `[${person}] ${d.toString()}`));
        serves.push(child);
        return cwd;
      }
      if (argv[0] === 'workboard') {
        const r = await workboard(argv.slice(1), { cwd, env });
        expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      } else {
        expect(argv[0], line).toBe('git');
        execFileSync('git', argv.slice(1), { cwd, env: { ...process.env, ...env }, stdio: 'ignore' });
      }
      return cwd;
    };
    const [first, joining, everyone] = await recipe();
    expect(first!.length).toBeGreaterThan(10);
    let cwd = root;
    for (const line of first!) cwd = await run(line, cwd, 'jon');
    const mira = cwd;
    // The first sync made origin/main the branch's upstream: plain git push and pull work.
    expect(git(mira, 'rev-parse', '--abbrev-ref', '@{upstream}')).toBe('origin/main');
    execFileSync('git', ['push', '-q'], { cwd: mira });
    const clones: Record<string, string> = { mira };
    for (const person of ['jon', 'ana']) {
      let at = path.join(root, person);
      await fs.mkdir(at);
      for (const line of joining!) at = await run(line, at, person);
      clones[person] = at;
      expect(git(at, 'config', 'user.email')).toBe(`${person}@example.com`);
    }
    try {
      for (const person of ['mira', 'jon', 'ana']) for (const line of everyone!) await run(line, clones[person]!, person);
      expect(serves).toHaveLength(3);
      // Jon and Ana each start a run as themselves (git's user.email), and their agents draft it on their own clone.
      const runs: Record<string, string> = {};
      for (const person of ['jon', 'ana']) {
        const started = await workboard(['start', 'hello', '--input', 'topic=Night trains', '--input', 'words=60'], { cwd: clones[person]!, env });
        expect(started.code, started.stderr).toBe(0);
        runs[person] = started.stdout.trim();
        await submitAs(clones[person]!, runs[person], `agent-${person}`, `From ${person}.`);
      }
      // Every serve's sync brings both runs, drafted, to every clone.
      await until(
        async () => {
          for (const dir of Object.values(clones))
            for (const id of Object.values(runs)) if (!(await fs.readFile(path.join(dir, `runs/${id}/draft.md`), 'utf8').catch(() => '')).includes('From')) return undefined;
          return true;
        },
        90_000,
        500,
      ).catch((e: unknown) => {
        throw new Error(
          `${String(e)}\n${logs
            .split('\n')
            .filter((l) => /sync|fail|error/i.test(l))
            .slice(-30)
            .join('\n')}`,
        );
      });
    } finally {
      for (const s of serves) s.kill('SIGTERM');
      await Promise.all(serves.map((s) => new Promise((r) => (s.exitCode !== null ? r(null) : s.once('close', r)))));
    }
    for (const dir of [clones.mira!, clones.jon!, clones.ana!, clones.mira!, clones.jon!]) {
      const r = await wb(dir, 'sync');
      expect(r.code, r.stderr).toBe(0);
    }
    const files = await boardFiles(clones.mira!);
    for (const dir of [clones.jon!, clones.ana!]) expect(await boardFiles(dir)).toEqual(files);
    const lines = Object.entries(files)
      .filter(([rel]) => /^runs\/[^/]+\/audit\.jsonl$/.test(rel))
      .flatMap(([, t]) =>
        t
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { actor: string; action: string }),
      );
    expect(
      lines
        .filter((l) => l.action === 'run.started')
        .map((l) => l.actor)
        .sort(),
    ).toEqual(['ana@example.com', 'jon@example.com']);
    expect(lines.filter((l) => l.actor.startsWith('user:'))).toEqual([]);
    for (const dir of Object.values(clones)) {
      const verify = await wb(dir, 'audit', 'verify', '--git');
      expect(verify.code, verify.stdout).toBe(0);
    }
    // A merge's content, as the page says to see it.
    const merges = git(clones.mira!, 'rev-list', '--merges', 'HEAD').split('\n').filter(Boolean);
    if (merges.length > 0) expect(git(clones.mira!, 'show', '--diff-merges=first-parent', '--stat', merges[0]!)).toMatch(/runs\/r-/);
  }, 900_000);
});

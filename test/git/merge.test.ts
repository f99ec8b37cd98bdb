/**
 * Boards in git: two clones change one run on two branches and merge through
 * the workboard merge driver; the higher rev wins, an equal rev with other
 * content takes one side alike either way round, never a conflict. Real git, real binary.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mergeBoardFile } from '../../src/git/merge.js';

const BIN = fileURLToPath(new URL('../../bin/workboard.js', import.meta.url));
const wb = (cwd: string, ...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
const hasGit = spawnSync('git', ['--version']).status === 0;

const step = (rev: number, note: string) => `---\nid: work\nkind: agent\nstate: ready\nrev: ${rev}\n---\n${note}\n`;

describe('mergeBoardFile', () => {
  it('takes the higher rev; equal revs with other content take the same side whichever way round, never a conflict', () => {
    expect(mergeBoardFile('runs/r/work.md', null, step(3, 'a'), step(5, 'b'))).toBe(step(5, 'b'));
    expect(mergeBoardFile('runs/r/work.md', null, step(6, 'a'), step(5, 'b'))).toBe(step(6, 'a'));
    const one = mergeBoardFile('runs/r/work.md', null, step(5, 'a'), step(5, 'b'));
    expect([step(5, 'a'), step(5, 'b')]).toContain(one);
    expect(mergeBoardFile('runs/r/work.md', null, step(5, 'b'), step(5, 'a'))).toBe(one);
    expect(mergeBoardFile('runs/r/work.md', null, 'not a board file', step(5, 'b'))).toBe(step(5, 'b'));
    expect(mergeBoardFile('runs/r/work.md', null, step(5, 'b'), 'not a board file')).toBe(step(5, 'b'));
  });

  it('merges WORK.md as data: people added on both sides both stay', () => {
    const work = (...emails: string[]) => `---\nschema: workboard/v1\nname: team\nrev: 2\npeople:\n${emails.map((e) => `  - email: ${e}\n`).join('')}---\n`;
    const merged = mergeBoardFile('WORK.md', work('ana@example.com'), work('ana@example.com', 'bo@example.com'), work('ana@example.com', 'cy@example.com'));
    for (const e of ['ana@example.com', 'bo@example.com', 'cy@example.com']) expect(merged).toContain(e);
    expect(merged).not.toContain('<<<<<<<');
  });
});

describe.skipIf(!hasGit)('two clones, two branches, one run', () => {
  it('merges through the driver: the higher rev wins; equal revs take one side alike either way, never a conflict marker', async () => {
    const root = await fs.mkdtemp(path.join(tmpdir(), 'wb-git-'));
    const origin = path.join(root, 'origin');
    await fs.mkdir(origin);
    git(origin, 'init', '-q', '-b', 'main');
    expect(wb(origin, 'init', 'board', '--name', 'team', '--git').status).toBe(0);
    wb(path.join(origin, 'board'), 'agent', 'add', 'bot');
    await fs.mkdir(path.join(origin, 'board/processes/chore'), { recursive: true });
    await fs.writeFile(
      path.join(origin, 'board/processes/chore/PROCESS.md'),
      '---\nname: chore\ndescription: One step.\nsteps:\n  - id: work\n    agent: Do it.\n  - id: done\n    finish: done\n---\nBody.\n',
    );
    expect(wb(path.join(origin, 'board'), 'publish', 'processes/chore').status).toBe(0);
    const start = wb(path.join(origin, 'board'), '--as', 'bot', '--json', 'start', 'chore');
    const runId = (JSON.parse(start.stdout) as { data: { run: { id: string } } }).data.run.id;
    git(origin, 'add', '-A');
    git(origin, 'commit', '-qm', 'board with one run');

    const clone = (name: string) => {
      const dir = path.join(root, name);
      git(root, 'clone', '-q', origin, name);
      wb(path.join(dir, 'board'), 'git-setup');
      return dir;
    };
    const a = clone('a');
    const b = clone('b');
    const file = (dir: string) => path.join(dir, 'board/runs', runId, 'work.md');
    const edit = async (dir: string, rev: number, note: string) => {
      const text = await fs.readFile(file(dir), 'utf8');
      await fs.writeFile(file(dir), `${text.replace(/^rev: \d+$/m, `rev: ${rev}`).trimEnd()}\n${note}\n`);
    };

    // Branch a raises the step to rev 3, branch b to rev 2: a's version wins whichever way we merge.
    git(a, 'checkout', '-q', '-b', 'ops');
    await edit(a, 3, 'note from ops');
    git(a, 'commit', '-qam', 'ops edit');
    git(a, 'push', '-q', 'origin', 'ops');
    git(b, 'checkout', '-q', '-b', 'desk');
    await edit(b, 2, 'note from desk');
    git(b, 'commit', '-qam', 'desk edit');
    git(b, 'fetch', '-q', 'origin');
    git(b, 'merge', '-q', '--no-edit', 'origin/ops');
    const merged = await fs.readFile(file(b), 'utf8');
    expect(merged).toMatch(/^rev: 3$/m);
    expect(merged).toContain('note from ops');
    expect(merged).not.toContain('note from desk');

    // Equal revs with different content: no conflict, and the same side whichever branch is merged into which.
    git(b, 'checkout', '-q', '-b', 'left', 'main');
    await edit(b, 4, 'left');
    git(b, 'commit', '-qam', 'left');
    git(b, 'checkout', '-q', '-b', 'right', 'main');
    await edit(b, 4, 'right');
    git(b, 'commit', '-qam', 'right');
    git(b, 'merge', '-q', '--no-edit', 'left');
    const intoRight = await fs.readFile(file(b), 'utf8');
    git(b, 'checkout', '-q', '-b', 'left2', 'left');
    git(b, 'merge', '-q', '--no-edit', 'right');
    const intoLeft = await fs.readFile(file(b), 'utf8');
    expect(intoLeft).toBe(intoRight);
    expect(intoLeft).not.toContain('<<<<<<<');
    expect(['left', 'right'].filter((n) => intoLeft.includes(`\n${n}\n`))).toHaveLength(1);
    await fs.rm(root, { recursive: true, force: true });
  }, 60_000);
});

describe.skipIf(!hasGit)('workboard serve --git-commit', () => {
  it("commits board changes in batches with a message in words, never .work/, and a renewal touches only its run's audit chain", async () => {
    const root = await fs.mkdtemp(path.join(tmpdir(), 'wb-gitc-'));
    git(root, 'init', '-q', '-b', 'main');
    expect(wb(root, 'init', 'board', '--name', 'team').status).toBe(0);
    const board = path.join(root, 'board');
    wb(board, 'agent', 'add', 'bot');
    await fs.mkdir(path.join(board, 'processes/chore'), { recursive: true });
    await fs.writeFile(
      path.join(board, 'processes/chore/PROCESS.md'),
      '---\nname: chore\ndescription: One step.\nsteps:\n  - id: work\n    agent: Do it.\n  - id: done\n    finish: done\n---\nBody.\n',
    );
    wb(board, 'publish', 'processes/chore');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'start');
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
    const { spawn } = await import('node:child_process');
    const daemon = spawn(process.execPath, [BIN, 'serve', '--git-commit', '1', '--board', board], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve) => daemon.stdout.on('data', (d) => String(d).includes('coordinating') && resolve()));
      const { Board } = await import('../../src/board/board.js');
      const { Service } = await import('../../src/service/service.js');
      const service = await Service.open(await Board.open(board));
      const bot = { kind: 'agent' as const, id: 'bot' };
      const started = (await service.call('start_run', { process: 'chore', inputs: {}, requestId: 'g1' }, bot)) as { ok: true; data: { run: { id: string } } };
      const runId = started.data.run.id;
      const claim = (await service.call('claim', { runId, stepId: 'work', requestId: 'g2' }, bot)) as { ok: true; data: { token: string } };
      const deadline = Date.now() + 15_000;
      let log = '';
      while (Date.now() < deadline) {
        log = git(root, 'log', '--format=%B');
        if (log.includes('bot claimed “Do it”')) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(log).toContain(`chore ${runId}`);
      expect(log).toMatch(/^- #0 \S+ \S+ bot started Chore v1$/m);
      expect(log).toMatch(/^- #2 \S+ \S+ bot claimed “Do it” \(until /m);
      expect(log).toMatch(/^Acted-by: agent bot$/m);
      expect(git(root, 'ls-files', '--', 'board/.work')).toBe('');
      expect(git(root, 'status', '--porcelain', '--', 'board')).toBe('');
      // A renewal's lease is coordinator state; only its audit line lands in the work tree (no step or run file moves).
      expect((await service.call('renew', { token: claim.data.token, progress: 'half', requestId: 'g3' }, bot)).ok).toBe(true);
      expect(git(root, 'status', '--porcelain', '--', 'board').replace(/\s+$/, '').split('\n')).toEqual([` M board/runs/${runId}/audit.jsonl`]);
      expect(git(root, 'diff', '--', `board/runs/${runId}/audit.jsonl`)).toMatch(/^\+\{.*"action":"step\.renewed"/m);
    } finally {
      const gone = new Promise((r) => daemon.once('close', r));
      daemon.kill();
      await gone;
    }
    await fs.rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }, 60_000);
});

/**
 * A writer that died past its commit point leaves its scope's journal, which
 * the scope's next writer rolls forward. A sync commits nothing while any
 * journal is pending, so a run nobody wrote again held every later sync back
 * for good: the four-clone simulation ended with one clone whose syncs all
 * answered "sync again", its runs never committed. Now a sync rolls such a
 * journal forward itself, then commits and pushes. Real processes: the crash
 * worker stopped inside a claim's commit and SIGKILLed there, the CLI, git
 * with a bare remote.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT, built, cleanup, cli, freshBoard, leftovers, PROCESS, RELEASE_DATE, said, spawnNode, tmp, WORKER } from './crash-support.js';
import { until } from '../support/until.js';

beforeAll(built, 300_000);
afterAll(cleanup);

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

describe('a sync on a clone where a writer died inside a commit', () => {
  it('rolls the dead journal forward, then commits and pushes what the living wrote since', async () => {
    const parent = await tmp('wb-dead-journal-');
    const root = await freshBoard(parent);
    const remote = path.join(parent, 'remote.git');
    git(parent, 'init', '-q', '--bare', '-b', 'main', remote);
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'config', 'user.email', 'mira@example.com');
    git(root, 'config', 'user.name', 'Mira');
    expect((await cli(root, ['git-setup'], { json: false })).code).toBe(0);
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'The board.');
    git(root, 'remote', 'add', 'origin', remote);
    const first = await cli(root, ['sync'], { json: false, as: 'mira@example.com' });
    expect(first.code, said(first)).toBe(0);

    // A worker starts a run and claims its first step; the claim's commit stops after one rename and is SIGKILLed.
    const w = spawnNode([WORKER, 'stop', root, AGENT, 'dead', 'claim', '1']);
    await until(() => (w.stdout().includes('stopped\n') ? true : w.child.exitCode !== null ? Promise.reject(new Error(w.stdout())) : undefined), 60_000, 20);
    w.child.kill('SIGKILL');
    expect((await w.done).signal).toBe('SIGKILL');
    expect((await leftovers(root)).journals).toHaveLength(1);

    // Someone else starts another run: a scope of its own, which does not roll that journal forward.
    const started = await cli(root, ['start', PROCESS, '--input', 'version=v-living', '--input', `releaseDate=${RELEASE_DATE}`], { as: AGENT });
    expect(started.code, said(started)).toBe(0);
    const living = String(started.json?.data.run.id);
    expect((await leftovers(root)).journals).toHaveLength(1);

    const r = await cli(root, ['sync'], { json: false, as: 'mira@example.com' });
    expect(r.code, said(r)).toBe(0);
    expect((await leftovers(root)).journals).toEqual([]);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'rev-parse', 'HEAD')).toBe(git(remote, 'rev-parse', 'main'));
    expect(git(remote, 'ls-tree', '-r', '--name-only', 'main', '--', `runs/${living}`)).toContain(`runs/${living}/RUN.md`);
    const v = await cli(root, ['audit', 'verify'], { json: false });
    expect(v.code, said(v)).toBe(0);
  }, 180_000);
});

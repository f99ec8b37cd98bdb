/**
 * A fetch or push runs as the leader of its own process group, which a
 * signal to workboard does not reach. A stopped sync must not leave it
 * talking to the remote: Ctrl-C stops it before the CLI ends, a serve past
 * its stop grace stops it before it exits, and after a SIGKILL the next sync
 * stops it before doing anything. The push is held by the remote's
 * pre-receive hook, a real process in the push's group that records its pid
 * and sleeps; real git, real processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isGitIn } from '../../src/git/process-probe.js';
import { Repo } from '../../src/git/repo.js';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { git, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

/** Running, as the process table says: a zombie nobody reaped yet has ended. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const held: number[] = [];
afterEach(() => {
  for (const pid of held.splice(0))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended, as it should have
    }
});

/** Two clones where A claimed (so its sync pushes), and the remote's pre-receive hook records its pid and sleeps for ten minutes. */
async function pushHeld() {
  const { remote, a, run } = await twoClones();
  const pidFile = path.join(remote, 'hook.pid');
  const hook = path.join(remote, 'hooks/pre-receive');
  await fs.writeFile(hook, `#!/bin/sh\necho $$ > "${pidFile}"\nexec sleep 600\n`, { mode: 0o755 });
  expect((await wb(a, '--as', 'writer-a', 'claim', run, 'draft')).code).toBe(0);
  /** The hook's pid, once the push reached it. */
  const hookPid = async (): Promise<number> => {
    const pid = await until(async () => Number((await fs.readFile(pidFile, 'utf8').catch(() => '')).trim()) || undefined, 120_000, 20);
    held.push(pid);
    return pid;
  };
  /** The hook lets pushes through from now on. */
  const release = () => fs.writeFile(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return { remote, a, hookPid, release };
}

function start(cwd: string, args: string[]): { child: ChildProcess; output: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('close', (code, signal) => r({ code, signal })));
  return { child, output: () => out, exited };
}

describe('no git left talking to the remote after a sync is stopped', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('Ctrl-C during a push: the push and its hook are stopped, sync exits 130 saying so, and the next sync pushes', async () => {
    const { remote, a, hookPid, release } = await pushHeld();
    const sync = start(a, ['sync']);
    const pid = await hookPid();
    sync.child.kill('SIGINT');
    const { code } = await sync.exited;
    expect(code, sync.output()).toBe(130);
    expect(sync.output()).toMatch(/^sync stopped \(SIGINT\): the next sync finishes what this one began$/m);
    expect(running(pid), 'the hook of the stopped push is still running').toBe(false);
    expect(existsSync(path.join(a, '.work/locks/sync.lock'))).toBe(false);
    await release();
    const next = await wb(a, 'sync');
    expect(next.code, next.stderr).toBe(0);
    expect(git(remote, 'rev-parse', 'main')).toBe(git(a, 'rev-parse', 'HEAD'));
  }, 600_000);

  it('Ctrl-C while the sync waits for its lock (no git under way): 130, saying so, and nothing committed once the lock is free', async () => {
    const { a, run } = await twoClones();
    expect((await wb(a, '--as', 'writer-a', 'claim', run, 'draft')).code).toBe(0);
    const head = git(a, 'rev-parse', 'HEAD');
    // Another sync of this host holds the lock: this test's own process, alive, so it is waited for.
    const lock = path.join(a, '.work/locks/sync.lock');
    await fs.mkdir(path.dirname(lock), { recursive: true });
    await fs.writeFile(lock, JSON.stringify({ host: os.hostname(), pid: process.pid, acquiredAt: new Date().toISOString(), token: 'held' }));
    const sync = start(a, ['sync']);
    // Time for the CLI to start and wait; a signal that came sooner would end it by default, as well.
    await new Promise((r) => setTimeout(r, 2000));
    sync.child.kill('SIGINT');
    await fs.rm(lock);
    const { code } = await sync.exited;
    expect(code, sync.output()).toBe(130);
    expect(sync.output()).toMatch(/^sync stopped \(SIGINT\): the next sync finishes what this one began$/m);
    expect(git(a, 'rev-parse', 'HEAD'), 'the stopped sync committed the board once the lock was free').toBe(head);
  }, 600_000);

  it('SIGKILL during a push: its git lives on, and the next sync stops it before it pushes itself', async () => {
    const { remote, a, hookPid, release } = await pushHeld();
    const sync = start(a, ['sync']);
    const pid = await hookPid();
    sync.child.kill('SIGKILL');
    await sync.exited;
    // Nothing of workboard is left to stop it: the dead sync's push waits on in the hook.
    expect(running(pid), 'the SIGKILL stopped the hook as well: nothing is left for the next sync to stop').toBe(true);
    await release();
    const next = await wb(a, 'sync');
    expect(next.code, next.stderr).toBe(0);
    expect(running(pid), "the next sync left the dead sync's push running").toBe(false);
    expect(git(remote, 'rev-parse', 'main')).toBe(git(a, 'rev-parse', 'HEAD'));
    expect(existsSync(path.join(a, '.work/git-network.json')), 'the record of the push is left after the sync').toBe(false);
  }, 600_000);

  it('serve stopped during a push that outlasts --stop-grace: the push is stopped before serve exits', async () => {
    const { a, hookPid } = await pushHeld();
    const serve = start(a, ['serve', '--git-sync', '1', '--stop-grace', '1']);
    const pid = await hookPid();
    serve.child.kill('SIGTERM');
    const { code } = await serve.exited;
    expect(code, serve.output()).toBe(0);
    expect(running(pid), `serve exited and left its push running:\n${serve.output()}`).toBe(false);
  }, 600_000);
});

describe('which recorded process the next sync may stop', () => {
  it('a git working in the clone, seen from a board in a subfolder (git moves to the top as it starts); never another process', async () => {
    const top = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wb-probe-')));
    git(top, 'init', '-q');
    const sub = path.join(top, 'board');
    await fs.mkdir(sub);
    const repo = (await Repo.at(sub))!;
    expect(repo.top).toBe(top);
    // `git cat-file --batch` waits on its stdin: a git that stays while it is looked at.
    const waiting = spawn('git', ['cat-file', '--batch'], { cwd: sub, stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      const pid = waiting.pid!;
      await until(() => (isGitIn(pid, [repo.cwd, repo.top]) ? true : undefined), 10_000, 20);
      expect(isGitIn(pid, [os.tmpdir()]), 'a git working elsewhere').toBe(false);
      expect(isGitIn(process.pid, [repo.cwd, repo.top]), 'a process that is not git').toBe(false);
    } finally {
      waiting.kill('SIGKILL');
    }
  });
});

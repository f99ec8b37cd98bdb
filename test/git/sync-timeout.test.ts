/**
 * A remote that accepts and never answers (issue 39, item 4): a real TCP
 * listener on 127.0.0.1 that takes the connection and says nothing. `sync`
 * stops the fetch (or the push) after its timeout, says so in one line and
 * exits 1, changing nothing it had not committed; `serve --git-sync` logs
 * the failure and keeps syncing on its timer.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { boardFiles, git, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

/** A git:// remote that accepts every connection and never writes a byte. */
async function silentRemote(): Promise<{ url: string; accepted: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((s) => {
    accepted++;
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `git://127.0.0.1:${port}/board.git`,
    accepted: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe('a remote that never answers', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('sync: the fetch is stopped after --timeout, one line, exit 1, nothing changed, the lock free for the next sync', async () => {
    const { a } = await twoClones();
    const silent = await silentRemote();
    closers.push(silent.close);
    git(a, 'remote', 'set-url', 'origin', silent.url);
    const head = git(a, 'rev-parse', 'HEAD');
    const before = await boardFiles(a);
    for (let i = 0; i < 2; i++) {
      const r = await wb(a, 'sync', '--timeout', '2');
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual(['sync failed: cannot reach origin: no answer in 2 s; nothing was changed']);
    }
    expect(silent.accepted()).toBe(2);
    expect(git(a, 'rev-parse', 'HEAD')).toBe(head);
    expect(await boardFiles(a)).toEqual(before);
    expect(existsSync(path.join(a, '.work/locks/sync.lock'))).toBe(false);
    expect((await wb(a, 'sync', '--timeout', '0')).code).toBe(2);
  }, 600_000);

  it('sync: a push to a remote that never answers is stopped the same way', async () => {
    const { a, run } = await twoClones();
    const silent = await silentRemote();
    closers.push(silent.close);
    git(a, 'remote', 'set-url', '--push', 'origin', silent.url);
    expect((await wb(a, '--as', 'writer-a', 'claim', run, 'draft')).code).toBe(0);
    const r = await wb(a, 'sync', '--timeout', '2');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual(['sync failed: cannot push to origin: no answer in 2 s']);
    expect(silent.accepted()).toBe(1);
  }, 600_000);

  it('serve --git-sync: each tick fails in its time and the next one runs, so serve never stalls', async () => {
    const { a } = await twoClones();
    const silent = await silentRemote();
    closers.push(silent.close);
    git(a, 'remote', 'set-url', 'origin', silent.url);
    const serve = spawn(process.execPath, [BIN, 'serve', '--git-sync', '1', '--git-timeout', '1'], { cwd: a, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
    serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await until(() => ((out.match(/git sync failed: cannot reach origin: no answer in 1 s/g) ?? []).length >= 3 ? true : undefined), 120_000);
      expect(silent.accepted()).toBeGreaterThanOrEqual(3);
    } finally {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('close', r));
    }
  }, 600_000);
});

/**
 * A stop asked for politely lets the git sync under way finish: SIGTERM
 * while `serve --git-sync` pushes (held by a pre-receive hook that sleeps)
 * ends serve only once the push is through, so the next command finds
 * nothing of it left to finish (docs/operations.md, "Stopping"). Real git,
 * a real hook, a real serve.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { SYNC_INTENT } from '../../src/board/layout.js';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { git, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

beforeAll(async () => {
  await ensureBuilt();
}, 600_000);

it('SIGTERM during a sync: serve ends after the push went through, and says it synced', async () => {
  const { remote, a, run } = await twoClones();
  const started = path.join(remote, 'push-started');
  const ended = path.join(remote, 'push-ended');
  await fs.writeFile(path.join(remote, 'hooks/pre-receive'), `#!/bin/sh\ntouch "${started}"\nsleep 2\ntouch "${ended}"\nexit 0\n`, { mode: 0o755 });
  expect((await wb(a, '--as', 'writer-a', 'claim', run, 'draft')).code).toBe(0);
  const serve = spawn(process.execPath, [BIN, 'serve', '--git-sync', '1'], { cwd: a, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
  serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; pushEnded: boolean }>((resolve) => serve.once('exit', (code) => resolve({ code, pushEnded: existsSync(ended) })));
  try {
    await until(() => (existsSync(started) ? true : undefined), 120_000, 20);
    serve.kill('SIGTERM');
    const { code, pushEnded } = await exited;
    expect(pushEnded, `serve ended while its push was under way:\n${out}`).toBe(true);
    expect(code, out).toBe(0);
  } finally {
    if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
  }
  expect(out).toMatch(/synced with origin\/main: .*pushed/);
  expect(git(remote, 'rev-parse', 'main')).toBe(git(a, 'rev-parse', 'HEAD'));
  // Nothing was left for the next command to finish.
  expect(existsSync(path.join(a, SYNC_INTENT))).toBe(false);
}, 600_000);

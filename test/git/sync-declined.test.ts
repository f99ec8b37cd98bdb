/**
 * A push the remote declines (issue 41, item 5): a bare remote whose
 * pre-receive hook refuses every push, as a protected branch does. `sync`
 * pushes once, shows the remote's own words, and exits 1, a code that does
 * not invite a retry; `serve --git-sync` backs off and keeps its state where
 * `workboard doctor` shows it. Real git, a real hook, real serve processes.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/cli-run.js';
import { git, twoClones, wb } from '../support/git-clones.js';
import { until } from '../support/until.js';

/** A pre-receive hook that declines with two lines of its own, counting its calls in `calls`. */
async function declineEveryPush(remote: string): Promise<{ calls: () => Promise<number>; lift: () => Promise<void> }> {
  const hook = path.join(remote, 'hooks/pre-receive');
  const count = path.join(remote, 'calls');
  await fs.writeFile(hook, `#!/bin/sh\necho x >> "${count}"\necho "main is protected: open a merge request" >&2\necho "ask Mira Okafor for the rights" >&2\nexit 1\n`, { mode: 0o755 });
  return {
    calls: async () => (await fs.readFile(count, 'utf8').catch(() => '')).split('\n').filter(Boolean).length,
    lift: () => fs.rm(hook),
  };
}

describe('a push the remote declines', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it("sync: one push, the remote's words, exit 1 (not 3), code declined; nothing moved on the remote", async () => {
    const { remote, a, run } = await twoClones();
    const hook = await declineEveryPush(remote);
    const before = git(remote, 'rev-parse', 'main');
    expect((await wb(a, '--as', 'writer-a', 'claim', run, 'draft')).code).toBe(0);
    const r = await wb(a, 'sync');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('sync failed: origin declined the push to main (pre-receive hook declined), saying: “main is protected: open a merge request” “ask Mira Okafor for the rights”');
    expect(r.stderr).not.toMatch(/kept moving|retry/i);
    expect(await hook.calls()).toBe(1);
    expect(git(remote, 'rev-parse', 'main')).toBe(before);
    const json = await wb(a, '--json', 'sync');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error.code).toBe('declined');
    expect(await hook.calls()).toBe(2);
    // Once the remote accepts, the same sync goes through.
    await hook.lift();
    expect((await wb(a, 'sync')).code).toBe(0);
    expect(git(remote, 'rev-parse', 'main')).toBe(git(a, 'rev-parse', 'HEAD'));
  }, 600_000);

  it('a push that met another at the remote (git: "cannot lock ref … is at X but expected Y"): behind, not declined; the sync fetches, merges and pushes again', async () => {
    const { remote, a, b, run } = await twoClones();
    const before = git(remote, 'rev-parse', 'main');
    // b's work reaches the remote under another name, and main goes back: the hook will move main to it in the middle of a's push, as a second push landing then would.
    expect((await wb(b, '--as', 'writer-b', 'claim', run, 'draft')).code).toBe(0);
    expect((await wb(b, 'sync')).code).toBe(0);
    const theirs = git(remote, 'rev-parse', 'main');
    git(remote, 'update-ref', 'refs/heads/other', theirs);
    git(remote, 'update-ref', 'refs/heads/main', before);
    await fs.writeFile(
      path.join(remote, 'hooks/pre-receive'),
      `#!/bin/sh\ncd "$GIT_DIR" || exit 1\nif [ ! -f raced ]; then touch raced; env -u GIT_QUARANTINE_PATH git update-ref refs/heads/main refs/heads/other; fi\nexit 0\n`,
      { mode: 0o755 },
    );
    expect((await wb(a, '--as', 'ana@example.com', 'person', 'add', 'eli@example.com')).code).toBe(0);
    const r = await wb(a, 'sync');
    expect(r.stderr).not.toMatch(/declined/);
    expect(r.code, r.stderr).toBe(0);
    expect(await fs.readFile(path.join(remote, 'raced'), 'utf8')).toBe('');
    expect(git(remote, 'rev-parse', 'main')).toBe(git(a, 'rev-parse', 'HEAD'));
    // What the other push brought is in what a pushed.
    git(a, 'merge-base', '--is-ancestor', theirs, 'HEAD');
  }, 600_000);

  it("serve --git-sync: backs off after each declined push, and doctor shows the last good sync, the failure in the remote's words and the next try", async () => {
    const { remote, a, run } = await twoClones();
    const hook = await declineEveryPush(remote);
    expect((await wb(a, '--as', 'writer-a', 'claim', run, 'draft')).code).toBe(0);
    const serve = spawn(process.execPath, [BIN, 'serve', '--git-sync', '1'], { cwd: a, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
    serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const record = async () =>
      JSON.parse(await fs.readFile(path.join(a, '.work/git-sync.json'), 'utf8').catch(() => 'null')) as {
        failingInARow: number;
        lastFailure: string;
        lastFailureAt: string;
        nextTryAt: string;
        lastGoodAt: string | null;
        declined: boolean;
      } | null;
    try {
      const third = await until(async () => (((await record())?.failingInARow ?? 0) >= 3 ? record() : undefined), 120_000);
      // Each failure doubles the wait (1 s, 2 s, 4 s, then 8 s), and each try pushed once: no blind retries.
      expect(Date.parse(third!.nextTryAt) - Date.parse(third!.lastFailureAt)).toBe(1000 * 2 ** third!.failingInARow);
      expect(third!.declined).toBe(true);
      expect(third!.lastFailure).toContain('“main is protected: open a merge request”');
      expect(await hook.calls()).toBe(third!.failingInARow);
      expect(out).toMatch(/git sync failed: origin declined the push to main \(pre-receive hook declined\), saying: “main is protected: open a merge request”.*; next try in \d+ s/);

      const doctor = await wb(a, 'doctor');
      expect(doctor.code, doctor.stdout).toBe(1);
      expect(doctor.stdout).toMatch(
        /^git-sync\s+serve --git-sync: failing: \d+ tries in a row; last failure (just now|.* ago) \(.*Z\): origin declined the push to main \(pre-receive hook declined\), saying: “main is protected: open a merge request” “ask Mira Okafor for the rights”.*; no sync has succeeded yet; next try (in|just now).*backing off to \d+ s after \d+ failures \(every 1 s while syncs succeed\)$/m,
      );
      expect(doctor.stdout).not.toMatch(/^git sync /m);

      await hook.lift();
      const good = await until(async () => ((await record())?.lastGoodAt ? record() : undefined), 120_000);
      expect(good!.failingInARow).toBe(0);
      expect(Date.parse(good!.nextTryAt) - Date.parse(good!.lastGoodAt!)).toBe(1000);
      const healthy = await wb(a, 'doctor');
      expect(healthy.stdout).not.toMatch(/^git-sync/m);
      expect(healthy.stdout).toMatch(/^git sync\s+last good sync (just now|\d+ \w+ ago) \(.*\); last failure .*; next try/m);
    } finally {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('close', r));
    }
    const stopped = await wb(a, 'doctor');
    expect(stopped.stdout).toMatch(/^git sync\s+.*serve --git-sync is not running here, so nothing will try again until it starts$/m);
  }, 600_000);
});

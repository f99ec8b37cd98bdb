/**
 * Crash suite: a board never opened before (no `.work/` yet) on a disk with
 * 0 KiB free (issue 39, item 9). Opening it must write `.work/`, which fails
 * before any tool runs; `start --json` must still answer as the contract says
 * for a full disk: `retry` naming `disk_full` in its issues, exit 5
 * (README, exit codes), and leave no run behind.
 *
 * Not root (or no tmpfs can be mounted): skipped, with the reason in the test's name.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { built, cleanup, cli, DISK_FULL_EXIT, freshBoard, OPERATOR, PROCESS, RELEASE_DATE, said, tmp, tmpfsProbe, unmount } from './crash-support.js';

const CAN = tmpfsProbe();

describe.skipIf(!CAN.ok)('a fresh board on a 1 MiB tmpfs with 0 KiB free', () => {
  let mnt = '';
  let mounted = false;
  let root = '';

  beforeAll(async () => {
    await built();
    mnt = path.join(await tmp('wb-crash-fresh-'), 'mnt');
    await fs.mkdir(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
    mounted = true;
    root = await freshBoard(mnt);
    // Fill every last block: `dd` stops at ENOSPC.
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${path.join(mnt, 'filler')}`, 'bs=4k'], { stdio: 'pipe' });
    } catch {
      // ENOSPC ends it, as meant
    }
    const s = await fs.statfs(mnt);
    expect(s.bavail).toBe(0);
  }, 60_000);

  afterAll(async () => {
    if (mounted) unmount(mnt);
    await cleanup();
  });

  it('start --json answers retry with disk_full in its issues and exits 5, starting nothing', async () => {
    const r = await cli(root, ['start', PROCESS, '--input', 'version=fresh', '--input', `releaseDate=${RELEASE_DATE}`], { as: OPERATOR });
    expect(r.json, said(r)).toMatchObject({ ok: false, error: { code: 'retry', issues: ['disk_full'] } });
    expect(r.json?.error?.message, said(r)).toMatch(/disk is full/);
    expect(r.code, said(r)).toBe(DISK_FULL_EXIT);
    expect(await fs.readdir(path.join(root, 'runs'))).toEqual(['.gitkeep']);
  });
});

if (!CAN.ok) it.skip(`a fresh board on a full disk: SKIPPED because ${CAN.reason} (it mounts a tmpfs, which needs root)`, () => undefined);

/**
 * Issue 41, the `clock-once` flake: two clones take the board's clock between
 * the same two syncs, and the one whose sync is slow, though it took the clock
 * first (or renewed its lease in time), gets to the remote second. The clock
 * file's merge kept the lease taken first, so that late push displaced the
 * lease the remote had already confirmed, and both clones wrote timers until
 * the next sync. Now the remote decides (docs/git.md "Timers once per
 * board"): the clone whose lease did not get there first gives its change up
 * before it merges. Real git (a bare remote, two clones), the coordinators'
 * own clock code (BoardClock) and `syncBoard`, in this process, so each step
 * happens in the order the test says.
 */
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { BoardClock, CLOCK_FILE, parseClock } from '../../src/git/clock.js';
import { syncBoard } from '../../src/git/sync.js';
import { ensureBuilt } from '../support/cli-run.js';
import { boardFiles, twoClones } from '../support/git-clones.js';

const LEASE = 5 * 60_000;
const MIN = 60_000;

/** The lease the remote's branch holds now. */
const remoteLease = (remote: string) => parseClock(execFileSync('git', ['show', `main:${CLOCK_FILE}`], { cwd: remote, encoding: 'utf8' }));

async function clonesWithClocks() {
  const { remote, a, b } = await twoClones();
  const [boardA, boardB] = await Promise.all([Board.open(a), Board.open(b)]);
  const keys = { a: await boardA.store.signingFingerprint(), b: await boardB.store.signingFingerprint() };
  // Both clones' key records reach the remote first, so what follows moves the clock file alone.
  for (const board of [boardA, boardB, boardA]) await syncBoard(board, { actor: 'serve' });
  return { remote, a, b, boardA, boardB, keys, clockA: new BoardClock(boardA, LEASE), clockB: new BoardClock(boardB, LEASE) };
}

describe('the board clock: the remote decides between two takes', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('a lease taken first but pushed second gives way to the one the remote confirmed', async () => {
    const { remote, a, b, boardA, boardB, keys, clockA, clockB } = await clonesWithClocks();
    const t0 = Date.now();
    // a's serve takes the clock first; its sync is slow and has not reached the remote yet.
    await clockA.beforeSync(new Date(t0));
    // b's serve takes it a second later, and its sync carries the lease to the remote: b holds the clock.
    await clockB.beforeSync(new Date(t0 + 1000));
    await syncBoard(boardB, { actor: 'serve' });
    await clockB.afterSync(new Date(t0 + 2000));
    expect(clockB.heldAt(new Date(t0 + 2000)), 'b holds the clock once its lease is on the remote').toBe(true);
    expect(remoteLease(remote)?.key).toBe(keys.b);

    // a's sync gets there now: it must not displace the lease the remote confirmed.
    await syncBoard(boardA, { actor: 'serve' });
    await clockA.afterSync(new Date(t0 + 3000));
    expect(remoteLease(remote)?.key, "the remote's lease after a's late sync").toBe(keys.b);
    expect(clockA.heldAt(new Date(t0 + 3000)), 'a, whose take got to the remote second, holds the clock').toBe(false);
    await syncBoard(boardB, { actor: 'serve' });
    await clockB.afterSync(new Date(t0 + 4000));
    expect(clockB.heldAt(new Date(t0 + 4000)), 'b still holds the clock after its next sync').toBe(true);
    expect((await boardFiles(a))[CLOCK_FILE]).toBe((await boardFiles(b))[CLOCK_FILE]);
  }, 300_000);

  it('a take already committed here, whose push failed, gives way all the same', async () => {
    const { remote, a, boardA, boardB, keys, clockA, clockB } = await clonesWithClocks();
    const t0 = Date.now();
    // a takes the clock and its sync commits the take, but the push fails: the take is in a's history, not on the remote.
    await clockA.beforeSync(new Date(t0));
    execFileSync('git', ['remote', 'set-url', '--push', 'origin', `${remote}-unreachable`], { cwd: a });
    await expect(syncBoard(boardA, { actor: 'serve' })).rejects.toThrow(/cannot push/);
    execFileSync('git', ['remote', 'set-url', '--push', 'origin', remote], { cwd: a });
    expect(execFileSync('git', ['status', '--porcelain', '--', CLOCK_FILE], { cwd: a, encoding: 'utf8' }), "a's take is committed").toBe('');
    // b takes it a second later and its sync gets there: b holds the clock.
    await clockB.beforeSync(new Date(t0 + 1000));
    await syncBoard(boardB, { actor: 'serve' });
    await clockB.afterSync(new Date(t0 + 2000));
    expect(remoteLease(remote)?.key).toBe(keys.b);

    // a's next sync gives its committed take up before it merges.
    await syncBoard(boardA, { actor: 'serve' });
    await clockA.afterSync(new Date(t0 + 3000));
    expect(remoteLease(remote)?.key, "the remote's lease after a's sync").toBe(keys.b);
    expect(clockA.heldAt(new Date(t0 + 3000))).toBe(false);
  }, 300_000);

  it("a holder's renewal that reaches the remote after its lease ran out gives way to the clone that took it meanwhile", async () => {
    const { remote, boardA, boardB, keys, clockA, clockB } = await clonesWithClocks();
    const t0 = Date.now();
    // a took the clock six minutes ago (a five-minute lease) and held it.
    await clockA.beforeSync(new Date(t0 - 6 * MIN));
    await syncBoard(boardA, { actor: 'serve' });
    await clockA.afterSync(new Date(t0 - 6 * MIN));
    expect(clockA.heldAt(new Date(t0 - 6 * MIN))).toBe(true);
    await syncBoard(boardB, { actor: 'serve' });
    // Two minutes ago, with a minute left, a renewed its lease; that sync never got through.
    await clockA.beforeSync(new Date(t0 - 2 * MIN));
    // A minute ago a's lease ran out as the remote has it, so b took the clock, and its sync carried it.
    await clockB.beforeSync(new Date(t0 - MIN));
    await syncBoard(boardB, { actor: 'serve' });
    await clockB.afterSync(new Date(t0));
    expect(clockB.heldAt(new Date(t0))).toBe(true);

    // a's renewal reaches the remote now: b keeps the clock.
    await syncBoard(boardA, { actor: 'serve' });
    await clockA.afterSync(new Date(t0));
    expect(remoteLease(remote)?.key, "the remote's lease after a's late renewal").toBe(keys.b);
    expect(clockA.heldAt(new Date(t0))).toBe(false);
  }, 300_000);
});

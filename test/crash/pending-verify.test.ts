/**
 * `audit verify` on a board where a writer died past its commit point (issue
 * 25 item 14): the worker (crash-worker.mjs `stop`) is stopped inside a real
 * commit after a chosen number of its renames and SIGKILLed, so its journal
 * stays pending. The CLI's `audit verify` must then verify the chains as the
 * commit leaves them (as a lock-free reader sees the board) and say the
 * commit is pending: never BROKEN for a whole chain. It changes nothing;
 * `doctor` then finishes the commit and `verify` has nothing pending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT, allPaths, built, cleanup, cli, freshBoard, healthProblems, leftovers, recoverAndCheck, said, spawnNode, tmp, WORKER } from './crash-support.js';
import { until } from '../support/until.js';

beforeAll(built, 300_000);
afterAll(cleanup);

/** Stop a real writer inside its commit, after `renames` renames, and SIGKILL it there. */
async function killPastCommitPoint(root: string, op: 'start' | 'claim', renames: number): Promise<void> {
  const w = spawnNode([WORKER, 'stop', root, AGENT, 'pending', op, String(renames)]);
  await until(() => (w.stdout().includes('stopped\n') ? true : w.child.exitCode !== null ? Promise.reject(new Error(w.stdout())) : undefined), 60_000, 20);
  w.child.kill('SIGKILL');
  const exit = await w.done;
  expect(exit.signal, said(exit)).toBe('SIGKILL');
  expect(exit.stderr).toBe('');
}

describe('audit verify with a commit a killed writer left pending', () => {
  const cases = [
    ['start', 0, 'a start killed before its first rename'],
    ['start', 2, 'a start killed after two of its renames (no chain yet)'],
    ['claim', 1, 'a claim killed after one rename (the chain not yet appended)'],
  ] as const;
  for (const [op, renames, what] of cases) {
    it(`${what}: verify says pending, not BROKEN, and changes nothing; after doctor nothing is pending`, async () => {
      const root = await freshBoard(await tmp('wb-pending-'));
      await killPastCommitPoint(root, op, renames);
      expect((await leftovers(root)).journals).toHaveLength(1);
      const before = await allPaths(root);

      const text = await cli(root, ['audit', 'verify'], { json: false });
      expect(text.stdout).not.toMatch(/BROKEN/);
      expect(text.code, said(text)).toBe(0);
      expect(text.stdout).toMatch(/^pending /m);
      const json = await cli(root, ['audit', 'verify']);
      expect(json.json?.ok, said(json)).toBe(true);
      expect(json.json?.data.chains.filter((c: { pending?: string }) => c.pending)).toHaveLength(1);
      expect(await allPaths(root)).toEqual(before);

      const h = await recoverAndCheck(root);
      expect(healthProblems(h)).toEqual([]);
      expect(h.verify.stdout).not.toMatch(/pending/);
    }, 120_000);
  }
});

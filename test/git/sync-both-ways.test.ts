/**
 * Issue 26: two clones that moved the same run merge to the same bytes
 * whichever way round the merge is made (A←B in one copy of the pair, B←A
 * in another), with real git and the real CLI. The team is the sync
 * simulation's (test/support/sim-team.ts).
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { draftSubmission } from '../support/git-clones.js';
import { boardFiles, chainLines, differing, exists, git, readOr } from '../support/sim-board.js';
import { team, Trace, type Clone } from '../support/sim-team.js';

beforeAll(async () => {
  await ensureBuilt();
}, 600_000);

describe('workboard sync: the same merge either way round', () => {
  it('two clones that moved the same run merge to the same bytes whether A takes B or B takes A', async () => {
    const trace = new Trace(0);
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wb-sync-dir-')));
    let passed = false;
    try {
      const { remote, clones } = await team(trace, root, 2);
      const [a, b] = clones as [Clone, Clone];
      const ok = async (c: Clone, args: string[]) => {
        const r = await trace.cli(c, args);
        expect(r.code, `workboard ${args.join(' ')} on ${c.name}: ${r.stderr}`).toBe(0);
        return r.stdout.trim();
      };
      const submit = (c: Clone, token: string, agent: string, text: string) => ok(c, [...draftSubmission(token, text, text, 'https://example.com/x'), '--as', agent]);

      // Two runs both clones have.
      const contested = await ok(a, ['start', 'hello', '--input', 'topic=Both', '--input', 'words=10', '--as', a.agents[0]!]);
      const oneSided = await ok(a, ['start', 'hello', '--input', 'topic=One', '--input', 'words=10', '--as', a.agents[0]!]);
      await ok(a, ['sync', '--as', a.person]);
      await ok(b, ['sync', '--as', b.person]);
      expect(await exists(path.join(b.dir, 'runs', contested, 'RUN.md'))).toBe(true);

      // Diverge: both draft the contested run; B alone claims the other; each starts a run of its own.
      await submit(a, await ok(a, ['claim', contested, 'draft', '--as', a.agents[0]!]), a.agents[0]!, 'From A.');
      await submit(b, await ok(b, ['claim', contested, 'draft', '--as', b.agents[0]!]), b.agents[0]!, 'From B.');
      await ok(b, ['claim', oneSided, 'draft', '--as', b.agents[1]!]);
      const onA = await ok(a, ['start', 'hello', '--input', 'topic=A only', '--input', 'words=10', '--as', a.agents[1]!]);
      const onB = await ok(b, ['start', 'hello', '--input', 'topic=B only', '--input', 'words=10', '--as', b.agents[1]!]);
      await ok(a, ['person', 'add', 'carol@example.com']);
      await ok(b, ['agent', 'add', 'bot9']);

      // A second pair, the same clones and remote copied before either syncs.
      const remote2 = path.join(root, 'remote2.git');
      await fs.cp(remote, remote2, { recursive: true });
      const copy = async (c: Clone): Promise<Clone> => {
        const dir = path.join(root, `${c.name}2`);
        await fs.cp(c.dir, dir, { recursive: true, verbatimSymlinks: true });
        await git(dir, 'remote', 'set-url', 'origin', remote2);
        return { ...c, name: `${c.name}2`, dir };
      };
      const [a2, b2] = [await copy(a), await copy(b)];

      // Pair 1: A pushes first, so B merges A into B (B←A); pair 2: B pushes first, so A merges B into A (A←B).
      await ok(a, ['sync', '--as', a.person]);
      await ok(b, ['sync', '--as', b.person]);
      await ok(a, ['sync', '--as', a.person]);
      await ok(b2, ['sync', '--as', b2.person]);
      await ok(a2, ['sync', '--as', a2.person]);
      await ok(b2, ['sync', '--as', b2.person]);

      // The merges really were made opposite ways round: in pair 1 the merge's first parent is B's work, in pair 2 A's.
      const mergeOf = async (dir: string) => (await git(dir, 'log', '--merges', '-1', '--format=%H', 'main')).trim();
      const [merge1, merge2] = [await mergeOf(b.dir), await mergeOf(a2.dir)];
      const has = (dir: string, rev: string, run: string) =>
        git(dir, 'cat-file', '-e', `${rev}:runs/${run}/RUN.md`).then(
          () => true,
          () => false,
        );
      expect([await has(b.dir, `${merge1}^1`, onB), await has(b.dir, `${merge1}^1`, onA)], 'pair 1 merges A into B').toEqual([true, false]);
      expect([await has(a2.dir, `${merge2}^1`, onA), await has(a2.dir, `${merge2}^1`, onB)], 'pair 2 merges B into A').toEqual([true, false]);

      // The merge itself: the merge commits' trees, every file byte for byte.
      const tree = async (dir: string, commit: string) => (await git(dir, 'rev-parse', `${commit}^{tree}`)).trim();
      expect(await tree(a2.dir, merge2), 'the merge commit trees, B←A and A←B').toBe(await tree(b.dir, merge1));
      // After it, each pair's board files alike, and alike across the pairs, but for what the merging clone
      // wrote after the merge: WORK.md merged as data (carol from A, bot9 from B) is adopted with one line
      // on the board's chain, signed by that clone at its own time.
      const snaps = await Promise.all([a, b, a2, b2].map((c) => boardFiles(c.dir)));
      expect(differing(snaps[0]!, snaps[1]!), "board files of B that differ from A's").toEqual([]);
      expect(differing(snaps[2]!, snaps[3]!), "board files of B2 that differ from A2's").toEqual([]);
      const chainAtMerge = await git(b.dir, 'cat-file', 'blob', `${merge1}:audit/board.jsonl`);
      for (const snap of [snaps[0]!, snaps[2]!]) {
        const chain = snap.get('audit/board.jsonl')!.toString('utf8');
        expect(chain.startsWith(chainAtMerge), 'the board chain goes on from the merged one').toBe(true);
        expect(
          chainLines(chain.slice(chainAtMerge.length)).map((l) => l.action),
          'what the board chain gained after the merge',
        ).toEqual(['work.external-edit']);
      }
      expect(differing(snaps[0]!, snaps[2]!), 'board files that differ between the two directions').toEqual(['audit/board.jsonl']);
      const work = snaps[0]!.get('WORK.md')!.toString('utf8');
      expect(work, 'WORK.md merged as data keeps both additions').toContain('carol@example.com');
      expect(work).toMatch(/id: bot9$/m);

      // One whole run kept, the other drafting set aside beside it; the runs one side moved are not superseded.
      const sup = await readOr(path.join(a.dir, 'runs', contested, 'superseded.jsonl'));
      expect(sup, 'the contested run has its superseded branch').not.toBeNull();
      const texts = (await readOr(path.join(a.dir, 'runs', contested, 'draft.md')))!;
      const lost = texts.includes('From A.') ? 'From B.' : 'From A.';
      expect(texts.includes('From A.') !== texts.includes('From B.'), 'draft.md is one side whole').toBe(true);
      expect(sup!, "the other side's draft is in the superseded branch").toContain(lost);
      for (const run of [oneSided, onA, onB]) expect(await exists(path.join(a.dir, 'runs', run, 'superseded.jsonl')), `${run} moved on one side only`).toBe(false);
      for (const c of [a, a2]) {
        const v = await trace.cli(c, ['audit', 'verify', '--git']);
        expect(v.code, `audit verify --git on ${c.name}:\n${v.stdout}${v.stderr}`).toBe(0);
      }
      passed = true;
    } catch (e) {
      console.error(`the both-ways merge test failed; the clones are kept at ${root}\nlast calls:\n${trace.tail()}`);
      throw e;
    } finally {
      if (passed) await fs.rm(root, { recursive: true, force: true });
    }
  }, 900_000);
});

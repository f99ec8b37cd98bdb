/**
 * Issue 41, item 3: a step is never completed twice. Agent A claims a step
 * on clone A, which syncs; clone B has not synced since (claims live in each
 * clone's .work/, and reach other clones only as chain lines), so agent B
 * claims and submits it there, and B's sync merges A's claim in. A's next
 * sync is a fast-forward to B's merge. Before, A's old token still renewed
 * and its submission was accepted, and B's output silently moved to
 * `history`. Now the claim ends as the step's files arrive, and A is told on
 * its next call who completed the step. (Once A's claim line has reached B,
 * B refuses a claim of the step: test/git/offer-across-clones.test.ts. A
 * step's files arriving completed while a claim runs here, with no merge, is
 * test/service/stranded-claim.test.ts.)
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/cli-run.js';
import { boardFiles, draftSubmission, git, submitAs, twoClones, wb } from '../support/git-clones.js';

describe('a step completed on another clone ends the claims on it here', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it("A's claim ends when B's submission arrives by a fast-forward: its token answers stale, naming B, and the step is completed once", async () => {
    const { a, b, run } = await twoClones();
    const claim = await wb(a, '--as', 'writer-a', 'claim', run, 'draft');
    expect(claim.code, claim.stderr).toBe(0);
    const tokenA = claim.stdout.trim();
    expect((await wb(a, 'sync')).code).toBe(0);
    await submitAs(b, run, 'writer-b', 'From B.');
    expect((await wb(b, 'sync')).code).toBe(0);
    const before = git(a, 'rev-parse', 'HEAD');
    const pulled = await wb(a, 'sync');
    expect(pulled.code, pulled.stderr).toBe(0);
    // A fast-forward: A's HEAD is an ancestor of what it has now, B's commit, and A made no merge of its own.
    expect(git(a, 'merge-base', '--is-ancestor', before, 'HEAD')).toBe('');
    expect(git(a, 'rev-parse', 'HEAD')).toBe(git(b, 'rev-parse', 'HEAD'));

    const renew = await wb(a, '--as', 'writer-a', '--json', 'renew', tokenA);
    expect(renew.code).not.toBe(0);
    expect(renew.stdout + renew.stderr).toMatch(/stale/);
    expect(renew.stdout + renew.stderr).toContain('writer-b completed draft');
    const submit = await wb(a, '--as', 'writer-a', ...draftSubmission(tokenA, 'From A.', 'A wrote it.', 'https://example.com/a'));
    expect(submit.code).not.toBe(0);
    expect(submit.stderr).toContain('writer-b completed draft');

    for (const dir of [a, b]) expect((await wb(dir, 'sync')).code).toBe(0);
    expect(await boardFiles(a)).toEqual(await boardFiles(b));
    const files = await boardFiles(a);
    const chain = files[`runs/${run}/audit.jsonl`]!.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { actor: string; action: string; entity: string });
    expect(chain.filter((e) => e.action === 'step.completed' && e.entity.endsWith('/draft')).map((e) => e.actor)).toEqual(['writer-b']);
    expect(files[`runs/${run}/draft.md`]).toContain('From B.');
    expect(files[`runs/${run}/draft.md`]).not.toContain('From A.');
    // No timer of the dead claim is ever written: the run is as B left it, waiting for the approval.
    expect(chain.some((e) => e.action === 'lease.expired')).toBe(false);
    const shown = await wb(a, '--as', 'writer-a', '--json', 'work');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain(run);
    expect(await fs.readFile(path.join(a, 'runs', run, 'RUN.md'), 'utf8')).toMatch(/^state: waiting$/m);
  }, 600_000);
});

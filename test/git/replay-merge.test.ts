/**
 * Issue 41: a merge applies every operation that still applies. Two clones
 * behind a bare remote move one run between syncs, with the real CLI and real
 * git merges. The side the merge does not keep is replayed through the engine
 * on top of the side it keeps (docs/git.md "The merge rule"): an act that
 * still applies is applied, one the engine refuses stays set aside with the
 * engine's reason; both clones end byte-identical and `audit verify --git`
 * is clean on each.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { BranchOutcome } from '../../src/board/superseded.js';
import { mergeCommits } from '../../src/git/board-merge.js';
import { Repo } from '../../src/git/repo.js';
import { ensureBuilt } from '../support/cli-run.js';
import { boardFiles, git, twoClones, wb, type CloneTeam } from '../support/git-clones.js';

const REVIEW = `---
name: review
description: Two looks at a text before it goes out.
steps:
  - id: check
    person: approver
    approve: Check the facts.
    next: sign-off
  - id: sign-off
    person: approver
    approve: Sign the text off.
    next: done
  - id: done
    finish: published
---
Two approvals in a row.
`;

/** The review process with one run waiting for its first approval; Ana and Bo both approve. */
const REVIEW_TEAM: CloneTeam = {
  setup: [
    ['person', 'add', 'ana@example.com', '--name', 'Ana Lind'],
    ['person', 'add', 'bo@example.com', '--name', 'Bo Berg'],
    ['group', 'add', 'approvers', 'ana@example.com'],
    ['group', 'add', 'approvers', 'bo@example.com'],
    ['operator', 'add', 'ana@example.com'],
    ['agent', 'add', 'writer'],
  ],
  process: { name: 'review', source: REVIEW, roles: ['approver=approvers'] },
  start: ['writer', 'review'],
  gitUsers: [
    ['ana@example.com', 'Ana'],
    ['bo@example.com', 'Bo'],
  ],
};

/** Approve the run's open item by id: on a clone where it was not made ready, get_work holds it back for a grace period (docs/git.md "Offered first where it became ready"). */
async function approve(dir: string, who: string, run: string, note?: string) {
  const shown = await wb(dir, '--json', '--as', who, 'show', run);
  const item = JSON.parse(shown.stdout).data.workItems[0];
  const r = await wb(dir, 'decide', run, item.id, '--snapshot', item.snapshot, 'approved', ...(note ? ['--note', note] : []), '--as', who);
  expect(r.code, r.stderr).toBe(0);
}

interface Line {
  actor: string;
  action: string;
  entity: string;
  hash: string;
  sig?: string;
  input: { replayOf?: string };
}
const chainOf = (files: Record<string, string>, run: string): Line[] =>
  files[`runs/${run}/audit.jsonl`]!.trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
const asideOf = (files: Record<string, string>, run: string) =>
  (files[`runs/${run}/superseded.jsonl`] ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { lines: Line[]; outcomes?: BranchOutcome[] });

/** Both clones synced until they agree; then the same bytes, and a clean `audit verify --git` on each. */
async function settle(a: string, b: string): Promise<Record<string, string>> {
  for (const dir of [a, b, a]) {
    const r = await wb(dir, 'sync');
    expect(r.code, r.stderr).toBe(0);
  }
  const files = await boardFiles(a);
  expect(await boardFiles(b)).toEqual(files);
  for (const dir of [a, b]) {
    const v = await wb(dir, 'audit', 'verify', '--git');
    expect(v.code, v.stdout + v.stderr).toBe(0);
  }
  return files;
}

describe('a merge replays the side it does not keep through the engine', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 600_000);

  it('a cancel on one clone and an approval on the other both apply, the same merged bytes whichever way round', async () => {
    const { a, b, run } = await twoClones(REVIEW_TEAM);
    const cancel = await wb(a, '--as', 'ana@example.com', 'cancel', run, '--reason', 'Not this week.');
    expect(cancel.code, cancel.stderr).toBe(0);
    await approve(b, 'bo@example.com', run);
    expect((await wb(a, 'sync')).code).toBe(0);

    // Direction: the merge of a into b and of b into a, made from the real commits, give one tree.
    git(b, 'add', '-A');
    git(b, 'commit', '-qm', 'Bo approved the check');
    git(b, 'fetch', '-q', 'origin');
    const repo = (await Repo.at(b))!;
    const [ours, theirs] = [git(b, 'rev-parse', 'HEAD'), git(b, 'rev-parse', 'origin/main')];
    const ab = await mergeCommits(repo, ours, theirs);
    const ba = await mergeCommits(repo, theirs, ours);
    expect(ab.tree).toBe(ba.tree);

    const files = await settle(a, b);
    expect(git(b, 'rev-parse', 'HEAD^{tree}')).toBe(ab.tree);
    expect(files[`runs/${run}/RUN.md`]).toMatch(/^state: cancelled$/m);
    expect(files[`runs/${run}/check.md`]).toMatch(/^decision: approved$/m);
    expect(files[`runs/${run}/check.md`]).toMatch(/^by: bo@example\.com$/m);
    const chain = chainOf(files, run);
    const cancelled = chain.filter((l) => l.action === 'run.cancelled');
    expect(cancelled.map((l) => l.actor)).toEqual(['ana@example.com']);
    // Applied again on top of Bo's approval, unsigned, naming Ana's signed line, which is kept beside the chain.
    expect(cancelled[0]!.sig).toBeUndefined();
    const [branch] = asideOf(files, run);
    const original = branch!.lines.find((l) => l.action === 'run.cancelled')!;
    expect(original.sig).toBeDefined();
    expect(cancelled[0]!.input.replayOf).toBe(original.hash);
    expect(branch!.outcomes!.find((o) => o.line === original.hash)).toEqual({ line: original.hash, replayed: cancelled[0]!.hash });
    // In words: the cancel on the chain, replayed; Ana's own line beside it, applied again.
    const log = await wb(a, 'log', run);
    expect(log.stdout).toMatch(/^#4 .* Ana Lind cancelled the run \("Not this week\."\) \(replayed on merge\)$/m);
    expect(log.stdout).toMatch(
      /^replayed on merge, branch 1 \(1 transition after #1, made on another clone's side of the merge\):\n {2}#2 .* Ana Lind cancelled the run \("Not this week\."\) \(applied again on merge\)$/m,
    );
    const doctor = await wb(a, 'doctor');
    expect(doctor.stdout + doctor.stderr).not.toContain('superseded on merge');
  }, 600_000);

  it('a decision on an item the other clone already decided stays set aside, with the reason', async () => {
    const { a, b, run } = await twoClones(REVIEW_TEAM);
    await approve(a, 'ana@example.com', run);
    await approve(b, 'bo@example.com', run, 'Facts hold.');
    const files = await settle(a, b);
    const chain = chainOf(files, run);
    const approvals = chain.filter((l) => l.action === 'step.completed' && l.entity === `${run}/check`);
    expect(approvals).toHaveLength(1);
    const keptBy = approvals[0]!.actor;
    const [branch] = asideOf(files, run);
    const lost = branch!.lines.find((l) => l.action === 'step.completed')!;
    expect(lost.actor).toBe(keptBy === 'ana@example.com' ? 'bo@example.com' : 'ana@example.com');
    expect(branch!.outcomes!.find((o) => o.line === lost.hash)).toEqual({ line: lost.hash, reason: 'this work item was already decided (already_decided)' });
    // The run goes on from the kept approval: the sign-off is open once.
    expect(files[`runs/${run}/sign-off.md`]).toMatch(/^state: waiting$/m);
  }, 600_000);

  it('a cancel made on both clones holds once: the other is already done there, nobody is told it was lost', async () => {
    const { a, b, run } = await twoClones(REVIEW_TEAM);
    for (const [dir, reason] of [
      [a, 'Not this week.'],
      [b, 'Sent by mistake.'],
    ] as const) {
      const r = await wb(dir, '--as', 'ana@example.com', 'cancel', run, '--reason', reason);
      expect(r.code, r.stderr).toBe(0);
    }
    expect((await wb(a, 'sync')).code).toBe(0);
    const merging = await wb(b, 'sync');
    expect(merging.code, merging.stderr).toBe(0);
    expect(merging.stdout).toMatch(/0 transition\(s\) of .* superseded, 1 already done there/);
    const files = await settle(a, b);
    const cancelled = chainOf(files, run).filter((l) => l.action === 'run.cancelled');
    expect(cancelled).toHaveLength(1);
    const [branch] = asideOf(files, run);
    const other = branch!.lines.find((l) => l.action === 'run.cancelled')!;
    expect(other.hash).not.toBe(cancelled[0]!.hash);
    expect(branch!.outcomes!.find((o) => o.line === other.hash)).toEqual({ line: other.hash, held: cancelled[0]!.hash });
    const log = await wb(a, 'log', run);
    expect(log.stdout).toMatch(
      /^replayed on merge, branch 1 \(1 transition after #1, made on another clone's side of the merge\):\n {2}#2 .* Ana Lind cancelled the run \(".*"\) \(already done on the kept side\)$/m,
    );
    for (const dir of [a, b]) {
      const doctor = await wb(dir, 'doctor');
      expect(doctor.stdout + doctor.stderr).not.toContain('superseded on merge');
    }
  }, 600_000);
});

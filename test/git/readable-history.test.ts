/**
 * Issue 26 item 4, history a reviewer can read, with real git: batched
 * commits whose messages say who did what in which run (people by their
 * WORK.md name, trailers or the author), `git log -p` showing the audit in
 * words through the textconv that `init --git` and `git-setup` register, and
 * `log <run> --git` pairing each line with the commit that carried it. The
 * board lies in a subfolder of the repository, as textconv runs from the top.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { changedPaths, commitBoard } from '../../src/git/commit.js';
import { Repo } from '../../src/git/repo.js';
import { Service } from '../../src/service/service.js';
import type { Actor } from '../../src/engine/types.js';
import { ensureBuilt, workboard, workboardBatch } from '../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

const hasGit = spawnSync('git', ['--version']).status === 0;

/** The machine's git identity (the committer), and no system or user git config. */
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'board host',
  GIT_AUTHOR_EMAIL: 'host@example.com',
  GIT_COMMITTER_NAME: 'board host',
  GIT_COMMITTER_EMAIL: 'host@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
const wb = (cwd: string, ...args: string[]) => workboard(args, { cwd, env: GIT_ENV });

const PAYOUT = `---
name: payout
description: A draft, then finance approves the payout.
inputs:
  amount: number
  claimant: person
  purpose: string
steps:
  - id: draft
    agent: Draft the payout.
  - id: approve
    person: approver
    approve: Approve the payout.
    next: paid
  - id: paid
    finish: paid
---
Body.
`;

const MIRA: Actor = { kind: 'person', email: 'mira@example.com', operator: false };
const JON: Actor = { kind: 'person', email: 'jon@example.com', operator: false };
const REVIEWER: Actor = { kind: 'agent', id: 'reviewer' };
const INPUTS = { amount: 184.5, claimant: 'jon@example.com', purpose: 'Rail to Hamburg' };

let requests = 0;
async function call(root: string, tool: string, args: Record<string, unknown>, as: Actor): Promise<any> {
  const service = await Service.open(await Board.open(root));
  const res = await service.callWire(tool, tool === 'get_run' ? args : { ...args, requestId: `q${++requests}` }, as);
  if (!res.ok) throw new Error(`${tool}: ${JSON.stringify(res.error)}`);
  return res.data;
}

/**
 * A repository at `top` with a board in `top/board` made by `init --git`:
 * Mira (named), Jon (not), the agent reviewer, payout published and committed.
 * Without git, the same board in a folder no repository holds.
 */
async function boardRepo(opts: { git: boolean } = { git: true }): Promise<{ top: string; root: string }> {
  const top = await tmpDir('wb-read-');
  if (opts.git) git(top, 'init', '-q', '-b', 'main');
  const root = path.join(top, 'board');
  // The set-up commands in one process each side of writing the process (workboardBatch): these are fixtures, not what is tested.
  const run = (...commands: string[][]) => workboardBatch(commands.map((args) => ({ cwd: top, args: ['--board', root, '--as', 'mira@example.com', ...args] })));
  await run(
    ['init', ...(opts.git ? ['--git'] : []), '--name', 'team'],
    ['person', 'add', 'mira@example.com', '--name', 'Mira Okafor'],
    ['person', 'add', 'jon@example.com'],
    ['group', 'add', 'finance', 'mira@example.com'],
    ['agent', 'add', 'reviewer'],
  );
  await fs.mkdir(path.join(root, 'processes/payout'), { recursive: true });
  await fs.writeFile(path.join(root, 'processes/payout/PROCESS.md'), PAYOUT);
  await run(['publish', path.join(root, 'processes/payout'), '--role', 'approver=finance']);
  if (opts.git) {
    git(top, 'add', '-A');
    git(top, 'commit', '-q', '-m', 'a board');
  }
  return { top, root };
}

/** Jon starts a payout; the reviewer drafts it. The run waits for finance. */
async function startAndDraft(root: string): Promise<{ runId: string; item: { id: string; snapshot: string } }> {
  const runId = (await call(root, 'start_run', { process: 'payout', inputs: INPUTS }, JON)).run.id as string;
  const { token } = await call(root, 'claim', { runId, stepId: 'draft' }, REVIEWER);
  const view = await call(root, 'submit', { token, output: {}, summary: 'Drafted.' }, REVIEWER);
  const item = view.workItems.find((w: { stepId: string }) => w.stepId === 'approve');
  return { runId, item: { id: item.id, snapshot: item.snapshot } };
}

async function approve(root: string, runId: string, item: { id: string; snapshot: string }, note: string): Promise<void> {
  await call(root, 'decide', { runId, workItemId: item.id, snapshot: item.snapshot, decision: 'approved', note }, MIRA);
}

const HASH = /[0-9a-f]{64}/;

let saved: Record<string, string | undefined> = {};
beforeAll(async () => {
  // commitBoard runs git in this process: the same machine identity and no outside config.
  saved = Object.fromEntries(Object.keys(GIT_ENV).map((k) => [k, process.env[k]]));
  Object.assign(process.env, GIT_ENV);
  await ensureBuilt();
}, 180_000);
afterAll(async () => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  await cleanupTmp();
});

describe.skipIf(!hasGit)('commit messages in words (serve --git-commit)', () => {
  it('names the people by WORK.md name, the run by process, id and inputs; trailers for several identities, the author for one person', async () => {
    const { top, root } = await boardRepo();
    const { runId, item } = await startAndDraft(root);

    const first = await commitBoard(await Board.open(root));
    expect(first).not.toBeNull();
    // Jon started, the agent drafted, the server moved the run on: several transitions, two identities.
    const label = `payout ${runId} (amount 184.5, claimant jon@example.com, purpose Rail to Hamburg)`;
    expect(git(top, 'log', '-1', '--format=%s').trim()).toBe(`5 transitions in ${label}`);
    const body = git(top, 'log', '-1', '--format=%b');
    expect(body).toContain(`${label}:\n`);
    expect(body).toMatch(/^- #0 \S+ \S+ jon@example\.com started Payout v1$/m);
    expect(body).toMatch(/^- #3 \S+ \S+ reviewer submitted “Draft the payout”$/m);
    expect(body).toMatch(/^- #4 \S+ \S+ “Approve the payout” waits for an approval$/m);
    expect(body).not.toMatch(HASH);
    expect(git(top, 'log', '-1', '--format=%(trailers:key=Acted-by,valueonly)').trim().split('\n')).toEqual(['jon@example.com', 'agent reviewer']);
    expect(git(top, 'log', '-1', '--format=%an <%ae>').trim()).toBe('board host <host@example.com>');

    await approve(root, runId, item, 'OK to pay.');
    await commitBoard(await Board.open(root));
    // One person acted (the run's ending is the board's doing): the subject is her act, she is the author.
    expect(git(top, 'log', '-1', '--format=%s').trim()).toBe(`Mira Okafor approved “Approve the payout” in ${label}`);
    expect(git(top, 'log', '-1', '--format=%b')).toMatch(/^- #5 \S+ \S+ Mira Okafor approved “Approve the payout” \("OK to pay\."\)\n- #6 \S+ \S+ the run ended: paid$/m);
    expect(git(top, 'log', '-1', '--format=%an <%ae>|%cn').trim()).toBe('Mira Okafor <mira@example.com>|board host');
    expect(git(top, 'log', '-1', '--format=%(trailers:key=Acted-by)').trim()).toBe('');
    expect(git(top, 'status', '--porcelain')).toBe('');
  }, 60_000);

  it('sums up many runs in its subject, and commits nothing while a transaction is in flight', async () => {
    const { top, root } = await boardRepo();
    await startAndDraft(root);
    await startAndDraft(root);
    await fs.mkdir(path.join(root, '.work/journal'), { recursive: true });
    await fs.writeFile(path.join(root, '.work/journal/in-flight.json'), '{}');
    expect(await commitBoard(await Board.open(root))).toBeNull();
    expect(git(top, 'log', '--format=%s').trim().split('\n')).toEqual(['a board']);
    await fs.rm(path.join(root, '.work/journal/in-flight.json'));
    await commitBoard(await Board.open(root));
    expect(git(top, 'log', '-1', '--format=%s').trim()).toBe('10 transitions in 2 runs of payout');
  }, 60_000);

  it("takes the board's files alone: what a person staged beside the board stays staged, and what they changed there stays theirs", async () => {
    const { top, root } = await boardRepo();
    await fs.writeFile(path.join(top, 'notes.md'), 'Staged, not the board.\n');
    await fs.writeFile(path.join(top, 'draft.md'), 'Not even staged.\n');
    git(top, 'add', 'notes.md');
    const { runId } = await startAndDraft(root);
    expect(await commitBoard(await Board.open(root))).not.toBeNull();
    const files = git(top, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(files).toContain(`board/runs/${runId}/audit.jsonl`);
    expect(files.filter((f) => !f.startsWith('board/'))).toEqual([]);
    expect(git(top, 'status', '--porcelain').trim().split('\n').sort()).toEqual(['?? draft.md', 'A  notes.md']);

    // Nothing staged beside the board now: the next commit takes the board's files all the same, and only them.
    git(top, 'commit', '-q', '-m', 'notes');
    const { runId: second } = await startAndDraft(root);
    await commitBoard(await Board.open(root));
    const next = git(top, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(next).toContain(`board/runs/${second}/audit.jsonl`);
    expect(next.filter((f) => !f.startsWith('board/'))).toEqual([]);
    expect(git(top, 'status', '--porcelain').trim()).toBe('?? draft.md');
  }, 60_000);
});

describe.skipIf(!hasGit)('what a commit of the board takes', () => {
  it('takes a run folder as it is once locked: a file written there after the look is committed with the rest', async () => {
    const { top, root } = await boardRepo();
    const { runId } = await startAndDraft(root);
    const repo = (await Repo.at(root))!;
    const looked = await changedPaths(repo);
    expect(looked).not.toContain(`runs/${runId}/late.md`);
    // As a transition caught halfway through its renames by the look would leave it.
    await fs.writeFile(path.join(root, 'runs', runId, 'late.md'), 'Written after the look.\n');
    expect(await commitBoard(await Board.open(root), repo, looked)).not.toBeNull();
    const files = git(top, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(files).toContain(`board/runs/${runId}/late.md`);
    expect(files).toContain(`board/runs/${runId}/audit.jsonl`);
    expect(git(top, 'status', '--porcelain')).toBe('');
  }, 60_000);

  it('a run folder the look saw that is gone by the commit (removed by hand) stops nothing: the other runs are committed', async () => {
    const { top, root } = await boardRepo();
    const { runId } = await startAndDraft(root);
    const ghost = 'runs/r-01kx0000000000000000000000';
    await fs.mkdir(path.join(root, ghost));
    await fs.writeFile(path.join(root, ghost, 'RUN.md'), 'Made by hand, removed by hand.\n');
    const repo = (await Repo.at(root))!;
    const looked = await changedPaths(repo);
    expect(looked).toContain(`${ghost}/RUN.md`);
    await fs.rm(path.join(root, ghost), { recursive: true });
    expect(await commitBoard(await Board.open(root), repo, looked)).not.toBeNull();
    const files = git(top, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(files).toContain(`board/runs/${runId}/audit.jsonl`);
    expect(files).toContain(`board/runs/${runId}/RUN.md`);
    expect(git(top, 'status', '--porcelain')).toBe('');
  }, 60_000);
});

describe.skipIf(!hasGit)('git log -p shows the audit in words', () => {
  it('through the textconv init --git registers, in a clone after git-setup, superseded branches included; the files keep every hash', async () => {
    const { top, root } = await boardRepo();
    const { runId, item } = await startAndDraft(root);
    await approve(root, runId, item, 'OK to pay.');
    await commitBoard(await Board.open(root));
    const chain = `board/runs/${runId}/audit.jsonl`;

    const shown = git(top, 'log', '-p', '--', chain);
    expect(shown).toMatch(/^\+#0 \S+ \S+ jon@example\.com started Payout v1$/m);
    expect(shown).toMatch(/^\+#2 \S+ \S+ reviewer claimed “Draft the payout” \(until \S+ \S+Z\)$/m);
    expect(shown).toMatch(/^\+#5 \S+ \S+ Mira Okafor approved “Approve the payout” \("OK to pay\."\)$/m);
    expect(shown).not.toContain('"sig"');
    expect(shown).not.toContain('prevHash');
    expect(shown.split('\n').filter((l) => l.startsWith('+') && HASH.test(l))).toEqual([]);
    const file = await fs.readFile(path.join(top, chain), 'utf8');
    expect(file).toContain('"sig":');
    expect(file).toContain('"prevHash":');

    // A superseded branch (as a merge records it) and a line that is no JSON.
    const lines = file
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const branch = { fork: { seq: 4, hash: lines[4].hash }, kept: lines[6].hash, lines: [lines[5]], files: {} };
    await fs.writeFile(path.join(top, `board/runs/${runId}/superseded.jsonl`), `${JSON.stringify(branch)}\n`);
    await fs.appendFile(path.join(top, chain), 'this is not json\n');
    git(top, 'add', '-A');
    git(top, 'commit', '-q', '-m', 'by hand');
    const last = git(top, 'show', 'HEAD');
    expect(last).toMatch(/^\+superseded on merge \(1 transition after #4, made on another clone's side of the merge\):\n\+  #5 \S+ \S+ Mira Okafor approved “Approve the payout” \("OK to pay\."\)$/m);
    expect(last).toMatch(/^\+!! not valid JSON: this is not json$/m);
    expect(last).not.toMatch(HASH);
    // The raw bytes are one flag away.
    expect(git(top, 'show', '--no-textconv', 'HEAD')).toContain('"sig":');

    // A clone has no local config until git-setup registers the driver.
    const bare = path.join(await tmpDir('wb-remote-'), 'board.git');
    git(top, 'clone', '-q', '--bare', top, bare);
    const clone = path.join(await tmpDir('wb-clone-'), 'team');
    git(path.dirname(clone), 'clone', '-q', bare, clone);
    expect(git(clone, 'log', '-p', '-1', '--', chain)).toContain('"sig":');
    const setup = await wb(clone, '--board', path.join(clone, 'board'), 'git-setup');
    expect(setup.code, setup.stderr).toBe(0);
    const words = git(clone, 'log', '-p', '--', chain);
    expect(words).toMatch(/^\+#5 \S+ \S+ Mira Okafor approved “Approve the payout” \("OK to pay\."\)$/m);
    expect(words).not.toContain('"sig"');
    expect(git(clone, 'config', 'diff.workboard-audit.textconv')).toContain('audit-text');
    expect(await fs.readFile(path.join(clone, 'board/.gitattributes'), 'utf8')).toContain('runs/*/superseded.jsonl diff=workboard-audit\n');
  }, 90_000);
});

describe.skipIf(!hasGit)('workboard log <run> --git', () => {
  it("pairs each line with the commit that first carried it, a clone's commit after a pull, and the rest as uncommitted", async () => {
    const { top, root } = await boardRepo();
    const runId = (await call(root, 'start_run', { process: 'payout', inputs: INPUTS }, JON)).run.id as string;
    await commitBoard(await Board.open(root));
    const started = git(top, 'rev-parse', '--short', 'HEAD').trim();

    // The reviewer works on another clone, which pushes; this one pulls.
    const bare = path.join(await tmpDir('wb-remote-'), 'board.git');
    git(top, 'clone', '-q', '--bare', top, bare);
    git(top, 'remote', 'add', 'origin', bare);
    const clone = path.join(await tmpDir('wb-clone-'), 'team');
    git(path.dirname(clone), 'clone', '-q', bare, clone);
    const other = path.join(clone, 'board');
    const { token } = await call(other, 'claim', { runId, stepId: 'draft' }, REVIEWER);
    await call(other, 'submit', { token, output: {}, summary: 'Drafted.' }, REVIEWER);
    await commitBoard(await Board.open(other));
    git(clone, 'push', '-q', 'origin', 'main');
    const drafted = git(clone, 'rev-parse', '--short', 'HEAD').trim();
    git(top, 'pull', '-q', '--ff-only', 'origin', 'main');

    // Mira's approval is not committed yet.
    const view = await call(root, 'get_run', { runId }, MIRA);
    const item = view.workItems.find((w: { stepId: string }) => w.stepId === 'approve');
    await approve(root, runId, item, 'OK to pay.');

    const log = await wb(root, 'log', runId, '--git');
    expect(log.code, log.stderr).toBe(0);
    const rows = log.stdout.trimEnd().split('\n');
    const row = (sentence: RegExp) => rows.find((r) => sentence.test(r)) ?? `no line matches ${sentence}`;
    expect(row(/#0 \S+ \S+ jon@example\.com started Payout v1$/)).toMatch(new RegExp(`^${started} \\S+ \\S+Z\\s+#0 `));
    expect(row(/#1 \S+ \S+ “Draft the payout” is ready$/)).toMatch(new RegExp(`^${started} `));
    expect(row(/#2 \S+ \S+ reviewer claimed “Draft the payout” /)).toMatch(new RegExp(`^${drafted} `));
    expect(row(/#3 \S+ \S+ reviewer submitted “Draft the payout”$/)).toMatch(new RegExp(`^${drafted} `));
    expect(row(/#4 \S+ \S+ “Approve the payout” waits for an approval$/)).toMatch(new RegExp(`^${drafted} `));
    expect(row(/#5 \S+ \S+ Mira Okafor approved “Approve the payout” \("OK to pay\."\)$/)).toMatch(/^uncommitted\s+#5 /);
    expect(row(/#6 \S+ \S+ the run ended: paid$/)).toMatch(/^uncommitted\s+#6 /);
    expect(rows).toHaveLength(7);

    const json = JSON.parse((await wb(root, '--json', 'log', runId, '--git')).stdout);
    expect(json.data.events.map((e: { commit: { short: string } | null }) => e.commit?.short ?? null)).toEqual([started, started, drafted, drafted, drafted, null, null]);
  }, 90_000);

  it('says in one line that a board outside git has no commits to show', async () => {
    const { root } = await boardRepo({ git: false });
    const runId = (await call(root, 'start_run', { process: 'payout', inputs: INPUTS }, JON)).run.id as string;
    const r = await wb(root, 'log', runId, '--git');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error (invalid): not a git repository: ${root} is not inside a git work tree, so log --git has no commits to show\n`);
  }, 60_000);
});

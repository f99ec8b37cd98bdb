/**
 * Two clones of one board repository behind a bare remote, with real git and
 * the real CLI: the team the git tests start from (an agent drafts, a group approves).
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { workboard, workboardBatch } from './cli-run.js';

export const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

export async function wb(cwd: string, ...args: string[]) {
  return workboard(args, { cwd });
}

/** Who works on the board and what runs on it: the set-up commands, the process, the first run's start, and the git identities of clones a and b. */
export interface CloneTeam {
  setup: string[][];
  /** A process published from `processes/<name>`: `source` is its PROCESS.md, or none for `workboard new`'s template. */
  process: { name: string; source?: string; roles: string[] };
  /** The arguments of the first run's `start`, after `--as <agent>`. */
  start: string[];
  gitUsers: [a: [email: string, name: string], b: [email: string, name: string]];
}

/** An agent drafts the template process (`hello`), a group approves. */
const HELLO_TEAM: CloneTeam = {
  setup: [
    ['person', 'add', 'ana@example.com', '--name', 'Ana Lind'],
    ['group', 'add', 'approvers', 'ana@example.com'],
    ['operator', 'add', 'ana@example.com'],
    ['agent', 'add', 'writer-a'],
    ['agent', 'add', 'writer-b'],
  ],
  process: { name: 'hello', roles: ['approver=approvers'] },
  start: ['writer-a', 'hello', '--input', 'topic=Night trains', '--input', 'words=60'],
  gitUsers: [
    ['a@example.com', 'Clone A'],
    ['b@example.com', 'Clone B'],
  ],
};

type Clones = { root: string; remote: string; a: string; b: string; run: string };

/** The first set of clones each team got in this test file, copied before the test touched it. */
const firstMade = new Map<CloneTeam, { root: string; run: string }>();

/** Forget the clones kept for copies: another test file must make its own, since its tests judge times from when they were made (test/support/shared-worker.ts). */
export function forgetClones(): void {
  firstMade.clear();
}

/**
 * A board repository with one process and one run, pushed to a bare remote, and two clones of it.
 * The first call of a test file makes them with a dozen real CLI commands, run in three processes
 * (`workboardBatch`: they set up, nothing here tests them); later calls for the same team
 * get a byte-for-byte copy of what that call made (its remote, both clones with their `.git/` and
 * `.work/`, timestamps kept), with origin pointed at the copy's remote and `git-setup` run again in
 * each clone so its hooks and textconv name the copy: the same files for seconds less CPU a test.
 */
export async function twoClones(team: CloneTeam = HELLO_TEAM): Promise<Clones> {
  const kept = firstMade.get(team);
  if (kept) return copyOf(kept);
  const fresh = await makeClones(team);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'wb-sync-kept-'));
  await fs.cp(fresh.root, root, { recursive: true, preserveTimestamps: true });
  firstMade.set(team, { root, run: fresh.run });
  return fresh;
}

async function copyOf(kept: { root: string; run: string }): Promise<Clones> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'wb-sync-'));
  await fs.cp(kept.root, root, { recursive: true, preserveTimestamps: true });
  const remote = path.join(root, 'remote.git');
  const a = path.join(root, 'a');
  const b = path.join(root, 'b');
  for (const dir of [a, b]) git(dir, 'remote', 'set-url', 'origin', remote);
  await workboardBatch([a, b].map((cwd) => ({ cwd, args: ['git-setup'] })));
  return { root, remote, a, b, run: kept.run };
}

async function makeClones(team: CloneTeam): Promise<Clones> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'wb-sync-'));
  const remote = path.join(root, 'remote.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', remote);
  const a = path.join(root, 'a');
  await workboardBatch([{ cwd: root, args: ['init', 'a', '--name', 'team', '--git'] }]);
  git(a, 'checkout', '-q', '-B', 'main');
  const [[emailA, nameA], [emailB, nameB]] = team.gitUsers;
  git(a, 'config', 'user.email', emailA);
  git(a, 'config', 'user.name', nameA);
  const { name, source, roles } = team.process;
  if (source !== undefined) {
    await fs.mkdir(path.join(a, 'processes', name), { recursive: true });
    await fs.writeFile(path.join(a, 'processes', name, 'PROCESS.md'), source);
  }
  git(a, 'remote', 'add', 'origin', remote);
  const [agent, ...startArgs] = team.start;
  const setUp = [
    ...(source === undefined ? [...team.setup, ['new', name]] : team.setup),
    ['publish', `processes/${name}`, ...roles.flatMap((r) => ['--role', r])],
    ['--as', agent!, 'start', ...startArgs],
    ['sync'],
  ];
  const outputs = await workboardBatch(setUp.map((args) => ({ cwd: a, args })));
  const run = outputs[setUp.length - 2]!.trim();
  git(a, 'branch', '-q', '--set-upstream-to=origin/main');
  const b = path.join(root, 'b');
  git(root, 'clone', '-q', remote, 'b');
  git(b, 'config', 'user.email', emailB);
  git(b, 'config', 'user.name', nameB);
  await workboardBatch([{ cwd: b, args: ['git-setup'] }]);
  return { root, remote, a, b, run };
}

/** Every committed board file of a clone, by path. */
export async function boardFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of git(dir, 'ls-files').split('\n').filter(Boolean)) out[rel] = await fs.readFile(path.join(dir, rel), 'utf8');
  return out;
}

/** The CLI words that submit a hello run's draft (claimed with `token`) to its approval: its text, one source, a link. */
export function draftSubmission(token: string, text: string, summary: string, link = 'https://example.com/source'): string[] {
  return ['submit', token, '--output', `text=${text}`, '--output', 'sources=1', '--evidence', `link:${link}`, '--next', 'approve', '--reason', 'Ready.', '--summary', summary];
}

/** A hello run's draft claimed and submitted to its approval by `agent` through the CLI; the claim's token. */
export async function submitAs(dir: string, run: string, agent: string, text: string) {
  const claim = await wb(dir, '--as', agent, 'claim', run, 'draft');
  expect(claim.code, claim.stderr).toBe(0);
  const token = claim.stdout.trim();
  const done = await wb(dir, '--as', agent, ...draftSubmission(token, text, `${agent} wrote it.`));
  expect(done.code, done.stderr).toBe(0);
  return token;
}

/** One more clone of the remote, set up as a newcomer would (git-setup, user.email). */
export async function addClone(root: string, remote: string, name: string, email: string): Promise<string> {
  const dir = path.join(root, name);
  git(root, 'clone', '-q', remote, name);
  for (const [k, v] of [
    ['user.email', email],
    ['user.name', `Clone ${name}`],
  ])
    git(dir, 'config', k!, v!);
  expect((await wb(dir, 'git-setup')).code).toBe(0);
  return dir;
}

/** The hashes of the signed lines a board keeps of its own chain: in audit/board.jsonl, or set aside in audit/superseded.jsonl. */
export async function boardChainLines(dir: string): Promise<Map<string, { action: string; hash: string }>> {
  const out = new Map<string, { action: string; hash: string }>();
  const read = (rel: string) => fs.readFile(path.join(dir, rel), 'utf8').catch(() => '');
  for (const l of (await read('audit/board.jsonl')).split('\n').filter(Boolean)) {
    const e = JSON.parse(l) as { action: string; hash: string };
    out.set(e.hash, e);
  }
  for (const l of (await read('audit/superseded.jsonl')).split('\n').filter(Boolean)) {
    for (const e of (JSON.parse(l) as { lines: { action: string; hash: string }[] }).lines) out.set(e.hash, e);
  }
  return out;
}

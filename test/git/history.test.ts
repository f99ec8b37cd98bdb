/**
 * `workboard audit verify --git`: a chain must only ever grow across the
 * repository's history. Real git repositories in temp dirs, real boards made
 * by the library, the real binary for the verdicts; the prefix rule itself is
 * checked without git.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealEvent, type AuditEvent, type ChainHead } from '../../src/board/audit.js';
import { Board } from '../../src/board/board.js';
import { signerFrom } from '../../src/board/signing.js';
import { addPerson, addAgent } from '../../src/board/people.js';
import { publish } from '../../src/board/processes.js';
import { chainLoss } from '../../src/git/history.js';
import { offerFor } from '../../src/service/context.js';
import { Service } from '../../src/service/service.js';
import { ensureBuilt, workboard } from '../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';

const hasGit = spawnSync('git', ['--version']).status === 0;

/** Who commits, and no system or user git config (no signing, hooks or default branch of the machine's). */
const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } }).trim();
const commit = (top: string, subject: string) => {
  git(top, 'add', '-A');
  git(top, 'commit', '-q', '-m', subject);
  return git(top, 'rev-parse', '--short', 'HEAD');
};

/** `workboard --board <root> audit verify [--git] [--json]`, run from `cwd`. */
const verify = (root: string, args: string[], cwd = root) => workboard(['--board', root, 'audit', 'verify', ...args], { cwd, env: GIT_ENV });

const BOT = { kind: 'agent', id: 'bot' } as const;
const CHORE = '---\nname: chore\ndescription: Two steps.\nsteps:\n  - id: work\n    agent: Do it.\n  - id: check\n    agent: Check it.\n  - id: done\n    finish: done\n---\nBody.\n';
let requests = 0;

/** A git repository with a board at `<top>/<sub>`: agent `bot`, process `chore` published. Nothing committed yet. */
async function repoWithBoard(sub = ''): Promise<{ top: string; root: string }> {
  const top = await tmpDir('wb-hist-');
  git(top, 'init', '-q', '-b', 'main');
  const root = path.join(top, sub);
  await Board.init(root, { name: 'team', actor: 'user:t' });
  await addAgent(await Board.open(root), 'user:t', 'bot');
  await fs.mkdir(path.join(root, 'processes/chore'), { recursive: true });
  await fs.writeFile(path.join(root, 'processes/chore/PROCESS.md'), CHORE);
  const board = await Board.open(root);
  await publish(board, { folder: path.join(root, 'processes/chore'), roles: {}, actor: 'user:t', offer: offerFor(board.manifest) });
  return { top, root };
}

async function call(root: string, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const service = await Service.open(await Board.open(root));
  const res = await service.callWire(tool, { ...args, requestId: `q${++requests}` }, BOT);
  if (!res.ok) throw new Error(`${tool}: ${JSON.stringify(res.error)}`);
  return res.data;
}

async function startRun(root: string): Promise<string> {
  return ((await call(root, 'start_run', { process: 'chore', inputs: {} })) as { run: { id: string } }).run.id;
}

/** Claim and submit one step: two more lines on the run's chain. */
async function finishStep(root: string, runId: string, stepId: string): Promise<void> {
  const { token } = (await call(root, 'claim', { runId, stepId })) as { token: string };
  await call(root, 'submit', { token, output: {}, summary: `Did ${stepId}.` });
}

const chainFile = (root: string, runId: string) => path.join(root, 'runs', runId, 'audit.jsonl');

async function readChain(file: string): Promise<AuditEvent[]> {
  return (await fs.readFile(file, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEvent);
}

/**
 * The attack neither hash links nor signatures can see: someone holding the
 * coordinator's own key (`.work/audit-key.pem`) changes line `n` (1-based),
 * then re-seals and re-signs it and every later line onto the rewritten one,
 * so every link, hash and signature verifies again. Only history shows it.
 */
async function forge(file: string, n: number, edit: (e: AuditEvent) => void, keyBoard = file.slice(0, file.lastIndexOf(`${path.sep}runs${path.sep}`))): Promise<void> {
  const events = await readChain(file);
  edit(events[n - 1]!);
  const prev = events[n - 2];
  const signer = signerFrom(await fs.readFile(path.join(keyBoard, '.work/audit-key.pem'), 'utf8'));
  let head: ChainHead | null = prev ? { seq: prev.seq, hash: prev.hash, ts: prev.ts } : null;
  for (let i = n - 1; i < events.length; i++) {
    const sealed = sealEvent(events[i]!, head, events[i]!.ts, signer);
    events[i] = sealed;
    head = { seq: sealed.seq, hash: sealed.hash, ts: sealed.ts };
  }
  await fs.writeFile(file, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

/** verify's lines without the `lost:` lines under each break; and those lines alone, in words. */
const withoutLost = (stdout: string): string[] => stdout.split('\n').filter((l) => !l.startsWith('          lost: '));
const lostLines = (stdout: string): string[] => stdout.split('\n').flatMap((l) => (l.startsWith('          lost: ') ? [l.slice('          lost: '.length)] : []));

const lineCount = async (file: string) => (await readChain(file)).length;

/** The `key` lines audit verify prints for the board's signing keys, none pinned. */
async function keyLines(root: string): Promise<string[]> {
  const dir = path.join(root, 'audit/keys');
  const recs = await Promise.all((await fs.readdir(dir)).map(async (n) => JSON.parse(await fs.readFile(path.join(dir, n), 'utf8')) as { fingerprint: string; host: string; createdAt: string }));
  return recs.map((k) => `key     ${k.fingerprint} (${k.host}, ${k.createdAt}): on record, not pinned`);
}

beforeAll(ensureBuilt, 120_000);
afterAll(cleanupTmp);

describe('chainLoss: the prefix rule', () => {
  const b = (s: string) => Buffer.from(s);

  it('accepts a chain that stayed the same or only grew', () => {
    expect(chainLoss(b(''), b(''))).toBeNull();
    expect(chainLoss(b(''), b('a\n'))).toBeNull();
    expect(chainLoss(b('a\nb\n'), b('a\nb\n'))).toBeNull();
    expect(chainLoss(b('a\nb\n'), b('a\nb\nc\n'))).toBeNull();
    // A torn last line completed by its own roll-forward is growth too.
    expect(chainLoss(b('a\nb'), b('a\nb\n'))).toBeNull();
  });

  it('names the first line of the earlier version that is not kept', () => {
    expect(chainLoss(b('a\nb\nc\n'), b('a\nX\nc\n'))).toEqual({ line: 2, cutShort: false });
    expect(chainLoss(b('a\nbb\nc\n'), b('a\nbX\nc\nd\n'))).toEqual({ line: 2, cutShort: false });
    expect(chainLoss(b('a\nb\n'), b('X\nb\nc\n'))).toEqual({ line: 1, cutShort: false });
    // Extra bytes on a line that had ended are a rewrite of the next line's start.
    expect(chainLoss(b('a\nb\n'), b('a\nbc\n'))).toEqual({ line: 2, cutShort: false });
  });

  it('tells a chain cut short from one rewritten', () => {
    expect(chainLoss(b('a\nb\nc\n'), b('a\nb\n'))).toEqual({ line: 3, cutShort: true });
    expect(chainLoss(b('a\nbc\n'), b('a\nb'))).toEqual({ line: 2, cutShort: true });
    expect(chainLoss(b('a\n'), b(''))).toEqual({ line: 1, cutShort: true });
  });
});

describe.skipIf(!hasGit)('workboard audit verify --git', () => {
  it('passes a clean history with a merge that keeps both branches, and reports it under data.history', async () => {
    const { top, root } = await repoWithBoard();
    const first = await startRun(root);
    commit(top, 'a board with one run');
    git(top, 'checkout', '-q', '-b', 'side');
    await finishStep(root, first, 'work');
    commit(top, 'side: work done');
    git(top, 'checkout', '-q', 'main');
    const second = await startRun(root);
    await finishStep(root, second, 'work');
    commit(top, 'main: a second run');
    git(top, 'merge', '-q', '--no-edit', 'side');
    expect(git(top, 'rev-list', '--count', '--merges', 'HEAD')).toBe('1');

    const r = await verify(root, ['--git']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'ok      audit/board.jsonl (3 events)',
        ...[first, second].sort().map((id) => `ok      runs/${id}/audit.jsonl (5 events)`),
        ...(await keyLines(root)),
        '3 chain(s) verified',
        'history: 4 commits, 3 chains, only grown',
        '',
      ].join('\n'),
    );

    const json = await verify(root, ['--git', '--json']);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout) as { ok: boolean; data: { chains: unknown[]; history: unknown } };
    expect(out.ok).toBe(true);
    expect(out.data.chains).toHaveLength(3);
    expect(out.data.history).toEqual({ ok: true, commitsChecked: 4, chainsChecked: 3, shallow: false, breaks: [] });

    // Without --git nothing about history is said or checked.
    const plain = await verify(root, ['--json']);
    expect((JSON.parse(plain.stdout) as { data: Record<string, unknown> }).data.history).toBeUndefined();
  });

  it('reports the commit that rewrote a run chain and re-sealed every later line, which audit verify alone cannot see', async () => {
    const { top, root } = await repoWithBoard();
    const runId = await startRun(root);
    commit(top, 'a run');
    await finishStep(root, runId, 'work');
    commit(top, 'work done');
    await forge(chainFile(root, runId), 3, (e) => {
      e.actor = 'mallory';
    });
    const forged = commit(top, 'tidy the audit log');
    const parent = git(top, 'rev-parse', '--short', 'HEAD~1');
    // Honest transitions on top of the forgery extend it: only the forging commit is to blame.
    await finishStep(root, runId, 'check');
    commit(top, 'check done');
    const events = await lineCount(chainFile(root, runId));

    const plain = await verify(root, []);
    expect(plain.code, plain.stdout).toBe(0);
    const r = await verify(root, ['--git']);
    expect(r.code).toBe(1);
    const reason = `rewritten: not an extension of the version in ${parent}`;
    // The lines the forgery replaced, each named in words: the originals, no longer anywhere.
    expect(lostLines(r.stdout)).toEqual([
      expect.stringMatching(/^#2 \S+ \S+ bot claimed “Do it” \(until /),
      expect.stringMatching(/^#3 \S+ \S+ bot submitted “Do it”$/),
      expect.stringMatching(/^#4 \S+ \S+ “Check it” is ready$/),
    ]);
    expect(withoutLost(r.stdout).join('\n')).toBe(
      [
        'ok      audit/board.jsonl (3 events)',
        `ok      runs/${runId}/audit.jsonl (${events} events)`,
        ...(await keyLines(root)),
        '2 chain(s) verified',
        `BROKEN  runs/${runId}/audit.jsonl:3: ${reason} (commit ${forged} "tidy the audit log" by t <t@example.com>)`,
        'history: 4 commits, 2 chains, 1 break(s) found',
        '',
      ].join('\n'),
    );
    const json = await verify(root, ['--git', '--json']);
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout) as { ok: boolean; data: { history: { breaks: { dropped: { seq: number; actor: string }[] }[] } } };
    expect(out.data.history.breaks[0]!.dropped.map((l) => [l.seq, l.actor])).toEqual([
      [2, 'bot'],
      [3, 'bot'],
      [4, 'server'],
    ]);
    expect(out.ok).toBe(false);
    expect(out.data.history).toEqual({
      ok: false,
      commitsChecked: 4,
      chainsChecked: 2,
      shallow: false,
      breaks: [{ commit: forged, subject: 'tidy the audit log', author: 't <t@example.com>', parent, file: `runs/${runId}/audit.jsonl`, line: 3, reason, dropped: expect.any(Array) }],
    });
  });

  it('reports a merge that kept one branch and dropped the board-chain transitions of the other', async () => {
    const { top, root } = await repoWithBoard();
    commit(top, 'a board');
    const common = await lineCount(path.join(root, 'audit/board.jsonl'));
    git(top, 'checkout', '-q', '-b', 'left');
    await addPerson(await Board.open(root), 'user:t', 'ann@example.com');
    commit(top, 'left: ann');
    git(top, 'checkout', '-q', '-b', 'right', 'main');
    await addPerson(await Board.open(root), 'user:t', 'bob@example.com');
    const right = commit(top, 'right: bob');
    git(top, 'checkout', '-q', 'left');
    const merge = spawnSync('git', ['merge', '--no-edit', 'right'], { cwd: top, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
    expect(merge.status, 'both branches appended to the board chain: a conflict').not.toBe(0);
    git(top, 'checkout', '--ours', '--', '.');
    const merged = commit(top, 'merge right, keeping ours');

    expect((await verify(root, [])).code, 'the kept side verifies on its own').toBe(0);
    const r = await verify(root, ['--git']);
    expect(r.code).toBe(1);
    expect(withoutLost(r.stdout).slice(-3)).toEqual([
      `BROKEN  audit/board.jsonl:${common + 1}: merge dropped transitions of parent 2 (${right}): its lines from here on are not kept (commit ${merged} "merge right, keeping ours" by t <t@example.com>)`,
      'history: 4 commits, 1 chains, 1 break(s) found',
      '',
    ]);
    expect(lostLines(r.stdout)).toEqual([expect.stringMatching(/^#\d+ \S+ \S+ user:t added person bob@example\.com$/)]);
  });

  it('reports a run folder deleted in a commit', async () => {
    const { top, root } = await repoWithBoard();
    const kept = await startRun(root);
    const dropped = await startRun(root);
    commit(top, 'two runs');
    const parent = git(top, 'rev-parse', '--short', 'HEAD');
    git(root, 'rm', '-r', '-q', `runs/${dropped}`);
    const gone = commit(top, 'drop a run');

    const plain = await verify(root, []);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain(dropped);
    const r = await verify(root, ['--git']);
    expect(r.code).toBe(1);
    expect(withoutLost(r.stdout).slice(-3)).toEqual([
      `BROKEN  runs/${dropped}/audit.jsonl: deleted, though the parent ${parent} has it (a chain removed from history) (commit ${gone} "drop a run" by t <t@example.com>)`,
      'history: 2 commits, 3 chains, 1 break(s) found',
      '',
    ]);
    expect(r.stdout).toContain(`ok      runs/${kept}/audit.jsonl`);
  });

  it('lets the working tree grow past HEAD, and reports an uncommitted rewrite or cut as the working tree', async () => {
    const { top, root } = await repoWithBoard();
    const runId = await startRun(root);
    await finishStep(root, runId, 'work');
    commit(top, 'work done');
    const head = git(top, 'rev-parse', '--short', 'HEAD');
    const file = chainFile(root, runId);
    const committed = await fs.readFile(file);
    const atHead = await lineCount(file);

    await finishStep(root, runId, 'check');
    const grown = await verify(root, ['--git']);
    expect(grown.code, grown.stdout).toBe(0);
    expect(grown.stdout.split('\n').slice(-2)).toEqual(['history: 1 commits, 2 chains, only grown', '']);

    await forge(file, 4, (e) => {
      e.actor = 'mallory';
    });
    expect((await verify(root, [])).code).toBe(0);
    const rewritten = await verify(root, ['--git']);
    expect(rewritten.code).toBe(1);
    expect(withoutLost(rewritten.stdout).slice(-3)).toEqual([
      `BROKEN  runs/${runId}/audit.jsonl:4: uncommitted rewrite: not an extension of the version in HEAD (${head}) (working tree)`,
      'history: 1 commits, 2 chains, 1 break(s) found',
      '',
    ]);

    // HEAD's chain without its last line.
    await fs.writeFile(file, committed.subarray(0, committed.lastIndexOf(0x0a, committed.length - 2) + 1));
    const cut = await verify(root, ['--git']);
    expect(cut.code).toBe(1);
    expect(withoutLost(cut.stdout).slice(-3)).toEqual([
      `BROKEN  runs/${runId}/audit.jsonl:${atHead}: uncommitted: cut short, the lines from here on in HEAD (${head}) are gone (working tree)`,
      'history: 1 commits, 2 chains, 1 break(s) found',
      '',
    ]);
  });

  it('checks a board in a sub-folder of the repository, with paths relative to the board, and nothing outside it', async () => {
    const { top, root } = await repoWithBoard('teams/ops');
    // A chain-shaped file outside the board, rewritten below: not the board's, so not checked.
    await fs.mkdir(path.join(top, 'audit'));
    await fs.writeFile(path.join(top, 'audit/board.jsonl'), 'one\n');
    const runId = await startRun(root);
    commit(top, 'a board in teams/ops');
    await fs.writeFile(path.join(top, 'audit/board.jsonl'), 'two\n');
    await forge(chainFile(root, runId), 1, (e) => {
      e.actor = 'mallory';
    });
    const forged = commit(top, 'rewrite');
    const parent = git(top, 'rev-parse', '--short', 'HEAD~1');

    const r = await workboard(['--board', 'teams/ops', 'audit', 'verify', '--git'], { cwd: top, env: GIT_ENV });
    expect(r.code).toBe(1);
    expect(withoutLost(r.stdout).slice(-3)).toEqual([
      `BROKEN  runs/${runId}/audit.jsonl:1: rewritten: not an extension of the version in ${parent} (commit ${forged} "rewrite" by t <t@example.com>)`,
      'history: 2 commits, 2 chains, 1 break(s) found',
      '',
    ]);
  });

  it('refuses a board that is not in a git repository: a clear error, exit 1', async () => {
    const base = await tmpDir('wb-nogit-');
    const root = path.join(base, 'board');
    await Board.init(root, { name: 'team', actor: 'user:t' });
    // git must not find a repository above the temp folder either.
    const env = { ...GIT_ENV, GIT_CEILING_DIRECTORIES: path.dirname(base) };
    expect((await workboard(['--board', root, 'audit', 'verify'], { cwd: root, env })).code).toBe(0);
    const r = await workboard(['--board', root, 'audit', 'verify', '--git'], { cwd: root, env });
    const message = `not a git repository: ${root} is not inside a git work tree, so audit verify --git has no history to check`;
    expect(r).toEqual({ code: 1, stdout: '', stderr: `error (invalid): ${message}\n` });
    const json = await workboard(['--board', root, '--json', 'audit', 'verify', '--git'], { cwd: root, env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ ok: false, error: { code: 'invalid', message, issues: [] } });
  });

  it('says a shallow clone cannot be checked before its boundary, and still checks what it has', async () => {
    const { top, root } = await repoWithBoard();
    const runId = await startRun(root);
    commit(top, 'a run');
    await finishStep(root, runId, 'work');
    commit(top, 'work done');
    const clone = path.join(await tmpDir('wb-shallow-'), 'clone');
    git(top, 'clone', '-q', '--depth', '1', `file://${top}`, clone);

    const r = await verify(clone, ['--git']);
    expect(r.code, r.stdout).toBe(0);
    expect(withoutLost(r.stdout).slice(-3)).toEqual(['history: a shallow clone: commits before its shallow boundary cannot be checked', 'history: 1 commits, 2 chains, only grown', '']);

    // The clone has no .work/ of its own: the forger uses the key of the board it was cloned from.
    await forge(
      chainFile(clone, runId),
      2,
      (e) => {
        e.actor = 'mallory';
      },
      root,
    );
    const forged = commit(clone, 'rewrite in the clone');
    const json = await verify(clone, ['--git', '--json']);
    expect(json.code).toBe(1);
    const history = (JSON.parse(json.stdout) as { data: { history: { shallow: boolean; commitsChecked: number; breaks: { commit: string; line: number }[] } } }).data.history;
    expect(history.shallow).toBe(true);
    expect(history.commitsChecked).toBe(2);
    expect(history.breaks.map((b) => [b.commit, b.line])).toEqual([[forged, 2]]);
  });
});

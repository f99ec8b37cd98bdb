/**
 * `workboard sync`: share a board through a git remote. In order:
 * 1. fetch the remote branch (unreachable: one clear error, nothing changed);
 * 2. commit what is uncommitted of the board (never in the middle of a transaction);
 * 3. merge, if the histories diverged, with the board's rules (board-merge.ts):
 *    the merge commit is built with plumbing, never leaving a conflict marker;
 * 4. bring the board's files to the merged state through the board itself
 *    (its locks, journals and change log, so running coordinators see it);
 * 5. verify the board, then push, fetching and merging again when the push
 *    is rejected because the remote moved meanwhile.
 *
 * A crash between 4's scopes is finished by the next sync: the intent (from
 * which commit to which) is written under .work/journal/ first, which also
 * keeps `serve --git-commit` from committing a half-applied merge.
 */
import { sha256Hex } from '../core/hash.js';
import { adoptBoardFiles } from '../board/adopt.js';
import type { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { BOARD_CHAIN, paths, STATE_DIR, WORK_FILE, type Scope } from '../board/layout.js';
import type { ScopeReplacement } from '../board/store.js';
import { verifyBoard } from '../board/verify.js';
import { newId } from '../core/ids.js';
import { parseMarkdown } from '../core/markdown.js';
import { entryFile } from '../notify/outbox.js';
import { supersededNotification } from '../notify/superseded.js';
import { mergeCommits, MergeRefused, ownerOf, type BoardMergeResult } from './board-merge.js';
import { commitBoard } from './commit.js';
import { CHAIN_FILE, type RunMerge } from './merge-run.js';
import { verifyChain } from '../board/audit.js';
import { parseSuperseded, type SupersededBranch } from '../board/superseded.js';
import { refusalText, refusedChanges } from './incoming.js';
import { GitError, GitTimeout, Repo, type GitRun } from './repo.js';
import { declinedText, pushOutcome } from './push-outcome.js';

const INTENT = `${STATE_DIR}/journal/sync.json`;
const SYNC_LOCK = `${STATE_DIR}/locks/sync.lock`;

export interface SyncOptions {
  remote?: string;
  /** Who adopts what the pull brought in, on the board's chain. */
  actor?: string;
  /** Push attempts before giving up when the remote keeps moving. */
  attempts?: number;
  /** How long one fetch or push may take before the remote counts as unreachable (default DEFAULT_NETWORK_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Told of each step, for a progress line. */
  onStep?: (what: string) => void;
}

/** A remote that accepts and never answers would hold the sync lock for good (and every `serve --git-sync` tick after it). */
export const DEFAULT_NETWORK_TIMEOUT_MS = 60_000;

export interface SyncReport {
  remote: string;
  branch: string;
  /** The commit made of what was uncommitted, if one was made. */
  committed: string | null;
  /** What arrived: nothing, a fast-forward, or a merge commit. */
  pulled: 'nothing' | 'fast-forward' | 'merge';
  /** Runs changed on both sides, and what the merge set aside. */
  merged: { run: string; taken: RunMerge['taken']; superseded: { side: 'ours' | 'theirs'; transitions: number; replayed: number } | null }[];
  pushed: boolean;
  head: string | null;
}

/** Why a sync stopped; `code` picks the exit code. */
export class SyncError extends Error {
  constructor(
    readonly code: 'unreachable' | 'not-git' | 'refused' | 'declined' | 'busy' | 'broken',
    message: string,
  ) {
    super(message);
    this.name = 'SyncError';
  }
}

interface Intent {
  from: string;
  to: string;
  ref: string;
}

export async function syncBoard(board: Board, opts: SyncOptions = {}): Promise<SyncReport> {
  const repo = await Repo.at(board.root);
  if (!repo) throw new SyncError('not-git', `${board.root} is not in a git repository: run workboard init --git, or git init`);
  return board.store.exclusive(SYNC_LOCK, 'sync', async () => {
    await finishIntent(board, repo);
    const { remote, branch, ref, tracked } = await upstream(repo, opts.remote);
    const report: SyncReport = { remote, branch, committed: null, pulled: 'nothing', merged: [], pushed: false, head: null };
    const attempts = opts.attempts ?? 5;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS;
    for (let attempt = 1; ; attempt++) {
      opts.onStep?.(`fetching ${remote}/${branch}`);
      const theirs = await fetch(repo, remote, branch, timeoutMs);
      if (theirs !== null) await refuseUnsafe(repo, await repo.resolve('HEAD'), theirs, `${remote}/${branch} (${theirs.slice(0, 8)})`);
      if (report.committed === null) report.committed = await commitWhenQuiet(board);
      const ours = await repo.resolve('HEAD');
      if (theirs !== null && ours !== null && !(await repo.isAncestor(theirs, ours))) {
        opts.onStep?.('merging');
        const pulled = await pull(board, repo, ref, ours, theirs, remote, branch);
        if (report.pulled !== 'merge') report.pulled = pulled.kind;
        report.merged.push(...pulled.merged);
      } else if (theirs !== null && ours === null) {
        await pull(board, repo, ref, null, theirs, remote, branch);
        report.pulled = 'fast-forward';
      }
      if (report.pulled !== 'nothing') {
        // What came in that the board's chain does not record yet (WORK.md merged as data, versions from the other side) is adopted and committed with it.
        await adoptBoardFiles(board, opts.actor ?? 'git');
        await commitWhenQuiet(board);
      }
      const head = await repo.resolve('HEAD');
      report.head = head;
      if (head === null || head === theirs) return report;
      opts.onStep?.('verifying');
      // What the remote has was verified by whoever pushed it (and anyone can run audit verify): check what this push adds.
      const verified = await verifyBoard(board, theirs === null ? {} : { chains: await chainsChanged(repo, theirs, head) });
      if (!verified.ok) throw new SyncError('broken', `the board does not verify after the merge, so nothing was pushed: run workboard audit verify`);
      opts.onStep?.(`pushing to ${remote}/${branch}`);
      const pushed = await network(repo.run(['push', '--porcelain', '--quiet', remote, `HEAD:refs/heads/${branch}`], { allow: [1, 128], timeoutMs }), `cannot push to ${remote}`);
      const outcome = pushOutcome(pushed.code, pushed.stdout.toString('utf8'), pushed.stderr);
      if (outcome.kind === 'pushed') {
        report.pushed = true;
        // The first sync of a branch makes the remote's branch its upstream, as `git push -u` would: plain git pull and push work after it.
        if (!tracked) for (const [k, v] of [['remote', remote], ['merge', `refs/heads/${branch}`]] as const) await repo.run(['config', `branch.${ref.replace(/^refs\/heads\//, '')}.${k}`, v]);
        return report;
      }
      if (outcome.kind === 'declined') throw new SyncError('declined', declinedText(remote, branch, outcome));
      if (outcome.kind === 'failed') throw new SyncError('unreachable', `cannot push to ${remote}: ${new GitError(['push'], pushed.code, pushed.stderr).message.replace(/^git push: /, '')}`);
      if (attempt >= attempts) throw new SyncError('busy', `${remote}/${branch} kept moving: the push was rejected ${attempts} times; sync again`);
    }
  });
}

/**
 * After git merged or rebased by itself (`git pull`, `git merge`, `git rebase`;
 * the hooks `git-setup` installs call this): make each run that both sides
 * moved whole from one side, as sync would have, in a commit of its own on
 * top. Nothing to do: nothing changes. `how`: which of git's operations ran.
 */
export async function reconcileAfterGit(board: Board, how: 'merge' | 'rebase'): Promise<{ commit: string | null; merged: SyncReport['merged'] }> {
  const repo = await Repo.at(board.root);
  if (!repo) throw new SyncError('not-git', `${board.root} is not in a git repository`);
  return board.store.exclusive(SYNC_LOCK, 'reconcile', async () => {
    const ref = (await repo.run(['symbolic-ref', '-q', 'HEAD'], { allow: [1] })).stdout.toString('utf8').trim();
    const head = await repo.resolve('HEAD');
    if (ref === '' || head === null) return { commit: null, merged: [] };
    let sides: [string, string] | null = null;
    if (how === 'merge') {
      const parents = (await repo.text(['rev-list', '--parents', '-n', '1', head])).split(' ').slice(1);
      if (parents.length === 2) sides = [parents[0]!, parents[1]!];
    } else {
      const upstream = await repo.resolve('@{upstream}');
      const before = await repo.resolve('ORIG_HEAD');
      if (upstream && before) sides = [upstream, before];
    }
    if (!sides) return { commit: null, merged: [] };
    const result = await mergeCommits(repo, sides[0], sides[1], await repo.text(['rev-parse', `${head}^{tree}`]));
    if (result.tree === (await repo.text(['rev-parse', `${head}^{tree}`]))) return { commit: null, merged: [] };
    const merged = summarise(result.runs);
    // A merge git just made here is remade with the runs whole, so no commit in history ever held a run half from each side.
    // A rebase's replayed commits cannot be remade so simply: the runs are made whole in a commit on top.
    const message = how === 'merge' ? `${await repo.text(['log', '-1', '--format=%B', head])}\n\nRuns that moved on both sides were kept whole from one side (workboard).\n` : 'workboard: runs that moved on both sides kept whole from one side (after git rebase)\n';
    const parents = how === 'merge' ? sides : [head];
    const commit = await repo.text(['commit-tree', result.tree, ...parents.flatMap((p) => ['-p', p])], { input: message });
    await moveTo(board, repo, { from: head, to: commit, ref });
    await adoptBoardFiles(board, 'git');
    await commitWhenQuiet(board);
    return { commit, merged };
  });
}

const replayedCount = (b: SupersededBranch): number => (b.outcomes ?? []).filter((o) => 'replayed' in o).length;

function summarise(runs: BoardMergeResult['runs']): SyncReport['merged'] {
  return runs.map(({ id, merge }) => ({
    run: id,
    taken: merge.taken,
    // Lines the replay applied again on the kept side are not counted as superseded (docs/git.md "The replay").
    superseded: merge.superseded ? { side: merge.superseded.side, transitions: merge.superseded.branch.lines.length - replayedCount(merge.superseded.branch), replayed: replayedCount(merge.superseded.branch) } : null,
  }));
}

/** The remote and branch to sync with: the branch's upstream, else `origin` and the branch's own name. */
async function upstream(repo: Repo, remoteOption: string | undefined): Promise<{ remote: string; branch: string; ref: string; tracked: boolean }> {
  const ref = (await repo.run(['symbolic-ref', '-q', 'HEAD'], { allow: [1] })).stdout.toString('utf8').trim();
  if (ref === '') throw new SyncError('refused', 'HEAD is detached: check out a branch to sync');
  const local = ref.replace(/^refs\/heads\//, '');
  const up = await repo.run(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'], { allow: [128] });
  const upName = up.code === 0 ? up.stdout.toString('utf8').trim() : '';
  const remotes = (await repo.text(['remote'])).split('\n').filter(Boolean);
  const remote = remoteOption ?? (upName.includes('/') ? upName.slice(0, upName.indexOf('/')) : remotes.includes('origin') ? 'origin' : remotes[0]);
  if (!remote) throw new SyncError('refused', 'this repository has no remote to sync with: git remote add origin <url>');
  if (!remotes.includes(remote)) throw new SyncError('refused', `there is no remote named ${remote} (remotes: ${remotes.join(', ') || 'none'})`);
  const branch = upName.startsWith(`${remote}/`) ? upName.slice(remote.length + 1) : local;
  return { remote, branch, ref, tracked: upName !== '' };
}

/** The remote branch's commit, or null when the remote does not have the branch yet. */
async function fetch(repo: Repo, remote: string, branch: string, timeoutMs: number): Promise<string | null> {
  const r = await network(repo.run(['fetch', '--quiet', '--no-tags', remote, `refs/heads/${branch}`], { allow: [1, 128], timeoutMs }), `cannot reach ${remote}`, '; nothing was changed');
  if (r.code === 0) return repo.resolve('FETCH_HEAD');
  if (/couldn't find remote ref/i.test(r.stderr)) return null;
  throw new SyncError('unreachable', `cannot reach ${remote}: ${new GitError(['fetch'], r.code, r.stderr).message.replace(/^git fetch: /, '')}; nothing was changed`);
}

/** Refuse, before anything is changed, what `theirs` brings that this clone never takes from git (incoming.ts). */
async function refuseUnsafe(repo: Repo, ours: string | null, theirs: string, what: string): Promise<void> {
  if (ours !== null && (await repo.isAncestor(theirs, ours))) return;
  const base = ours === null ? null : (await repo.run(['merge-base', ours, theirs], { allow: [1] })).stdout.toString('utf8').trim() || null;
  const refused = refusedChanges(await repo.treeChanges(base, theirs), repo.prefix);
  if (refused.length > 0) throw new SyncError('refused', refusalText(what, refused));
}

/** A network git call, its timeout said in one line. */
async function network(call: Promise<GitRun>, what: string, after = ''): Promise<GitRun> {
  try {
    return await call;
  } catch (e) {
    if (e instanceof GitTimeout) throw new SyncError('unreachable', `${what}: no answer in ${e.ms / 1000} s${after}`);
    throw e;
  }
}

/** Commit the board's uncommitted files once no transaction is in flight (waiting a little for one to finish). */
async function commitWhenQuiet(board: Board): Promise<string | null> {
  for (let i = 0; i < 100; i++) {
    if (board.state.list(`${STATE_DIR}/journal`).length === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const message = await commitBoard(board);
  return message === null ? null : message.split('\n')[0]!;
}

/** Bring `theirs` in: a fast-forward when we have nothing they lack, else a merge commit by the board's rules. */
async function pull(board: Board, repo: Repo, ref: string, ours: string | null, theirs: string, remote: string, branch: string): Promise<{ kind: 'fast-forward' | 'merge'; merged: SyncReport['merged'] }> {
  if (ours === null || (await repo.isAncestor(ours, theirs))) {
    await moveTo(board, repo, { from: ours ?? '', to: theirs, ref });
    return { kind: 'fast-forward', merged: [] };
  }
  let result;
  try {
    result = await mergeCommits(repo, ours, theirs);
  } catch (e) {
    if (e instanceof MergeRefused) throw new SyncError('refused', e.message);
    throw e;
  }
  const merged = summarise(result.runs);
  const setAside = merged.filter((m) => m.superseded !== null);
  const subject = `workboard sync: merged ${remote}/${branch}${setAside.length > 0 ? `; ${setAside.length} run${setAside.length === 1 ? '' : 's'} moved on both sides, one side kept whole` : ''}`;
  const body = setAside.flatMap(({ run, taken, superseded: s }) => (s ? [`- ${run}: kept ${taken === 'ours' ? 'this clone' : `${remote}`}; ${s.transitions} transition${s.transitions === 1 ? '' : 's'} of ${s.side === 'ours' ? 'this clone' : remote} superseded${s.replayed > 0 ? `, ${s.replayed} replayed on top` : ''} (runs/${run}/superseded.jsonl)`] : []));
  const message = `${subject}\n${body.length > 0 ? `\n${body.join('\n')}\n` : ''}`;
  const commit = await repo.text(['commit-tree', result.tree, '-p', ours, '-p', theirs], { input: message });
  await moveTo(board, repo, { from: ours, to: commit, ref });
  return { kind: 'merge', merged };
}

/**
 * Move the branch from one commit to another, the board's files through the
 * board (under every scope's lock, checked and journaled), the rest with git.
 */
async function moveTo(board: Board, repo: Repo, intent: Intent): Promise<void> {
  const from = intent.from === '' ? null : intent.from;
  const changed = await repo.changed(from, intent.to);
  const others = changed.filter((p) => ownerOf(p) === null);
  if (others.length > 0) {
    const dirty = (await repo.text(['status', '--porcelain', '-z', '--', ...others.map((p) => literal(repo, p))])).split('\0').filter(Boolean);
    if (dirty.length > 0) throw new SyncError('refused', `uncommitted changes to files the merge brings (${dirty.map((d) => d.slice(3)).join(', ')}): commit or stash them, then sync again`);
  }
  await writeIntent(board, intent);
  try {
    await applyBoardFiles(board, repo, from, intent.to, changed.filter((p) => ownerOf(p) !== null), null);
  } catch (e) {
    // Refused before anything was written (the compare-and-swap runs under every lock first): nothing to finish.
    if (e instanceof SyncError && e.code === 'busy') await board.state.remove(INTENT);
    throw e;
  }
  await finishMove(board, repo, intent, others);
}

/** A path of the board's as a git pathspec that names that file alone (`[`, `*` and `?` are letters in a file name). */
const literal = (repo: Repo, rel: string): string => `:(literal)${repo.prefix}${rel}`;

async function finishMove(board: Board, repo: Repo, intent: Intent, others: string[]): Promise<void> {
  if (intent.from === '') await repo.run(['update-ref', intent.ref, intent.to]);
  else await repo.run(['update-ref', '-m', 'workboard sync', intent.ref, intent.to, intent.from]);
  await repo.run(['reset', '-q', '--mixed', intent.to]);
  if (others.length > 0) {
    const present = await repo.blobs(intent.to, others);
    const keep = others.filter((p) => present.has(p));
    if (keep.length > 0) await repo.run(['checkout', intent.to, '--', ...keep.map((p) => literal(repo, p))]);
    // Not the board's files (ownerOf: none), so git removes them, as it checks out the rest; untracked since the reset, ignored or not.
    const gone = others.filter((p) => !present.has(p));
    if (gone.length > 0) await repo.run(['clean', '-f', '-q', '-x', '--', ...gone.map((p) => literal(repo, p))]);
  }
  await board.state.remove(INTENT);
}

/** Board files that moved on this clone after a sync wrote its intent (transitions made meanwhile), by scope: a resume must not write over them. */
class MovedSince extends Error {
  constructor(readonly scopes: Map<string, Scope>) {
    super(`moved since the sync began: ${[...scopes.keys()].join(', ')}`);
    this.name = 'MovedSince';
  }
}

/**
 * Put the board files that differ between two commits into the second one's
 * state, each scope whole. `resuming`: a sync that died may have brought some
 * scopes already, and this clone may have moved others since; so a file
 * already as wanted is left alone, and one in any other state than one of
 * the `known` commits has it is a MovedSince, before anything is written.
 */
async function applyBoardFiles(board: Board, repo: Repo, from: string | null, to: string, rels: string[], resuming: { known: string[] } | null): Promise<void> {
  if (rels.length === 0) return;
  const [before, after, ...known] = await Promise.all([from === null ? new Map<string, string>() : repo.blobs(from, rels), repo.blobs(to, rels), ...(resuming?.known ?? []).map((c) => repo.blobs(c, rels))]);
  const contents = await repo.contents([...before.values(), ...after.values(), ...known.flatMap((k) => [...k.values()])]);
  const byScope = new Map<string, ScopeReplacement>();
  const moved = new Map<string, Scope>();
  for (const rel of rels) {
    const owner = ownerOf(rel)!;
    const scope: Scope = owner.kind === 'run' ? { kind: 'run', id: owner.id } : { kind: 'board' };
    const key = owner.kind === 'run' ? owner.id : 'board';
    const old = before.has(rel) ? contents.get(before.get(rel)!)! : null;
    const next = after.has(rel) ? contents.get(after.get(rel)!)! : null;
    let fromSha = old === null ? null : sha256Hex(old);
    if (resuming) {
      const now = await board.store.readBytes(rel, { fresh: true });
      const nowSha = now === null ? null : sha256Hex(now);
      if (nowSha === (next === null ? null : sha256Hex(next))) continue;
      const shaIn = (m: Map<string, string>) => (m.has(rel) ? sha256Hex(contents.get(m.get(rel)!)!) : null);
      if (nowSha !== fromSha && !known.some((k) => shaIn(k) === nowSha)) moved.set(key, scope);
      fromSha = nowSha;
    }
    const entry = byScope.get(key) ?? { scope, files: [] };
    entry.files.push({ rel, from: fromSha, to: next });
    byScope.set(key, entry);
  }
  if (moved.size > 0) throw new MovedSince(moved);
  const text = (m: Map<string, string>, rel: string) => (m.has(rel) ? contents.get(m.get(rel)!)!.toString('utf8') : '');
  for (const rel of rels) {
    const m = /^runs\/([^/]+)\/superseded\.jsonl$/.exec(rel);
    if (!m) continue;
    const run = m[1]!;
    const state = await endSuperseded(board, run, text(before, rel), text(after, rel), text(after, `runs/${run}/RUN.md`) || ((await board.store.readBytes(`runs/${run}/RUN.md`))?.toString('utf8') ?? ''), text(after, `runs/${run}/${CHAIN_FILE}`));
    if (state) Object.assign(byScope.get(run)!, state);
  }
  try {
    await board.store.replace([...byScope.values()]);
  } catch (e) {
    if (e instanceof BoardError && e.code === 'busy') throw new SyncError('busy', e.message);
    throw e;
  }
}

async function writeIntent(board: Board, intent: Intent): Promise<void> {
  await board.state.replace(INTENT, `${JSON.stringify(intent)}\n`);
}

/**
 * Finish a move a killed sync began, when the branch is still where it began
 * or where it was going. Transitions made on this clone since the intent was
 * written (an agent kept working) are never written over: they are committed
 * on top of where the branch was, that commit is merged with where it was
 * going by the board's rules (a run moved on both sides is kept whole from
 * one side, the other side's transitions set aside in superseded.jsonl), and
 * the move goes there instead.
 */
async function finishIntent(board: Board, repo: Repo): Promise<void> {
  const text = await board.state.readText(INTENT);
  if (text === null) return;
  let intent: Intent;
  try {
    intent = JSON.parse(text) as Intent;
  } catch {
    await board.state.remove(INTENT);
    return;
  }
  const at = await repo.resolve(intent.ref);
  if ((at ?? '') !== intent.from && at !== intent.to) {
    await board.state.remove(INTENT);
    return;
  }
  const from = intent.from === '' ? null : intent.from;
  const known = [intent.to, ...(from === null ? [] : [from])];
  try {
    await resume(board, repo, { ...intent, from: at ?? '' }, known);
  } catch (e) {
    if (!(e instanceof MovedSince)) throw e;
    if (from === null) throw new SyncError('busy', 'this clone moved while its first sync was brought in, which was interrupted: commit its board (git add, git commit), then sync again');
    const local = await commitMoved(board, repo, from, e.scopes);
    const result = await mergeCommits(repo, local, intent.to);
    const message = `workboard sync: merged the transitions made here while a sync was interrupted\n\n${summarise(result.runs).filter((m) => m.superseded).map((m) => `- ${m.run}: kept ${m.taken === 'ours' ? 'this clone\'s transitions' : 'the merge'}; ${m.superseded!.transitions} transition(s) superseded (runs/${m.run}/superseded.jsonl)`).join('\n')}\n`;
    const merge = await repo.text(['commit-tree', result.tree, '-p', local, '-p', intent.to], { input: message });
    const next = { from: at ?? '', to: merge, ref: intent.ref };
    await writeIntent(board, next);
    await resume(board, repo, next, [...known, local]);
  }
}

/** Bring the board's files to `intent.to` from whatever state among `known` commits each is in, then move the branch (finishMove). */
async function resume(board: Board, repo: Repo, intent: Intent, known: string[]): Promise<void> {
  const from = intent.from === '' ? null : intent.from;
  const changed = await repo.changed(from, intent.to);
  await applyBoardFiles(board, repo, from, intent.to, changed.filter((p) => ownerOf(p) !== null), { known });
  await finishMove(board, repo, intent, changed.filter((p) => ownerOf(p) === null));
}

/**
 * The scopes that moved here since a sync's intent, as a commit on top of
 * `from` holding each of them whole as it is now (its folder's files; the
 * board's own files for the board scope), so none of their transitions is lost.
 */
async function commitMoved(board: Board, repo: Repo, from: string, scopes: Map<string, Scope>): Promise<string> {
  const rels = new Set<string>();
  for (const scope of scopes.values()) {
    const dirs = scope.kind === 'run' ? [paths.runDir(scope.id)] : [WORK_FILE, 'audit', 'processes', 'files'];
    for (const rel of (await repo.blobs(from, dirs.map((d) => (d === WORK_FILE ? d : `${d}/`)))).keys()) rels.add(rel);
    const now = (await repo.run(['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...dirs])).stdout.toString('utf8').split('\0');
    // A temp file is a transaction's own, never a board file.
    for (const rel of now) if (rel !== '' && !rel.includes('.tmp-') && ownerOf(rel) !== null) rels.add(rel);
  }
  const list = [...rels].sort();
  const bytes = await Promise.all(list.map((rel) => board.store.readBytes(rel, { fresh: true })));
  const ids = await repo.writeBlobs(bytes.filter((b): b is Buffer => b !== null));
  let i = 0;
  const entries = new Map(list.map((rel, k) => [rel, bytes[k] === null ? null : ids[i++]!] as const));
  const tree = await repo.treeWith(from, entries);
  return repo.text(['commit-tree', tree, '-p', from], { input: 'workboard sync: transitions made on this clone while a sync was interrupted\n' });
}

type StateChanges = Pick<ScopeReplacement, 'removeState' | 'writeState'>;

/**
 * When a move brings branches set aside on a run that hold transitions this
 * clone made (whoever made the merge, here or on another clone): end the
 * leases of the claims among them (their tokens then answer that the claim
 * ended), and tell the people and operators through the outbox. Only lines
 * this clone signed: each clone tells of its own, so no one is told twice.
 */
async function endSuperseded(board: Board, run: string, before: string, after: string, runText: string, chain: string): Promise<StateChanges | null> {
  const mine = await board.store.signingFingerprint();
  const known = new Set(parseSuperseded(before).branches.flatMap((b) => b.lines.map((l) => l.hash)));
  // A line the merge applied again on the kept side was not superseded: nobody is told of it (docs/git.md "The merge rule").
  const told = (b: SupersededBranch) => {
    const replayed = new Set((b.outcomes ?? []).flatMap((o) => ('replayed' in o ? [o.line] : [])));
    return b.lines.filter((l) => !known.has(l.hash) && l.signer === mine && !replayed.has(l.hash));
  };
  const fresh = parseSuperseded(after).branches.filter((b) => told(b).length > 0);
  if (fresh.length === 0) return null;
  const lines = fresh.flatMap(told);
  const claimed = new Set(lines.filter((l) => l.action === 'step.claimed').map((l) => l.entity.split('/')[1]!));
  const head = parseRunHead(runText);
  const now = new Date();
  const forkSeq = Math.min(...fresh.map((b) => b.fork.seq));
  const note = supersededNotification({ id: newId('n', now.getTime()), at: now.toISOString(), board: board.manifest.name, runId: run, process: head.process, mode: head.mode, lines, kept: verifyChain(chain).events.filter((e) => e.seq > forkSeq), manifest: board.manifest });
  return {
    removeState: [...claimed].map((step) => `${paths.leaseDir(run)}/${step}.json`),
    writeState: note ? [{ rel: entryFile(note), bytes: `${JSON.stringify({ ...note, deliveries: null }, null, 2)}\n` }] : [],
  };
}

/** The process and mode a RUN.md names, for a notification's words. */
function parseRunHead(text: string): { process: string; mode: 'live' | 'test' } {
  const p = parseMarkdown(text);
  const d = (p.ok ? p.value.data : {}) as { process?: unknown; mode?: unknown };
  return { process: typeof d.process === 'string' ? d.process : 'a process', mode: d.mode === 'test' ? 'test' : 'live' };
}

/** The audit chains whose scope differs between two commits: each run's, and the board's when its files changed. */
async function chainsChanged(repo: Repo, from: string, to: string): Promise<string[]> {
  const out = new Set<string>();
  for (const rel of await repo.changed(from, to)) {
    const owner = ownerOf(rel);
    if (owner?.kind === 'run') out.add(paths.runChain(owner.id));
    else if (owner?.kind === 'board') out.add(BOARD_CHAIN);
  }
  return [...out].sort();
}

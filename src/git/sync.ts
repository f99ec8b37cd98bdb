/**
 * `workboard sync`: share a board through a git remote. In order:
 * 1. fetch the remote branch (unreachable: one clear error, nothing changed
 *    but the finish of a sync killed here before, which the error names);
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
import { adoptBoardFiles } from '../board/adopt.js';
import type { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { BOARD_CHAIN, paths, scopeOfStateName, SYNC_LOCK } from '../board/layout.js';
import { verifyBoard } from '../board/verify.js';
import { mergeCommits, MergeRefused, ownerOf } from './board-merge.js';
import { yieldClock } from './clock.js';
import { changedPaths, commitBoard } from './commit.js';
import { refusalText, refusedChanges } from './incoming.js';
import { networkGit, stopLeftoverGit } from './network-git.js';
import { GitError, Repo } from './repo.js';
import { declinedText, pushOutcome } from './push-outcome.js';
import { finishIntent, moveTo, rollForward, settleDeadHolders } from './sync-move.js';
import { holdingWords, summarise, SyncError, type SyncReport } from './sync-report.js';

export { SyncError, type SyncReport } from './sync-report.js';

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
  /** The time leases are judged by (the board's clock: serve's own clock; the system's otherwise). */
  now?: () => Date;
}

/** A remote that accepts and never answers would hold the sync lock for good (and every `serve --git-sync` tick after it). */
export const DEFAULT_NETWORK_TIMEOUT_MS = 60_000;

export async function syncBoard(board: Board, opts: SyncOptions = {}): Promise<SyncReport> {
  const repo = await Repo.at(board.root);
  if (!repo) throw new SyncError('not-git', `${board.root} is not in a git repository: run workboard init --git, or git init`);
  return board.store.exclusive(SYNC_LOCK, 'sync', async () => {
    await stopLeftoverGit(board, repo);
    // A sync killed here before is finished first, network or not: the board must not stay half moved.
    const unchanged = (await finishIntent(board, repo)) ? '; this clone finished the sync that was interrupted here before, and changed nothing else' : '; nothing was changed';
    // The commit's first look at the board runs beside the questions about the upstream and the fetch, which mostly
    // waits on the remote: a whole `git status` costs 0.3 s at 10k runs. It picks the scopes to lock; what the commit
    // takes is what those hold once locked (commitBoard).
    const look = (): Promise<string[]> => {
      const p = changedPaths(repo);
      p.catch(() => undefined); // a failed look is met again when it is awaited, not left unhandled if the fetch fails first
      return p;
    };
    let firstLook: Promise<string[]> | null = look();
    const { remote, branch, ref, tracked } = await upstream(repo, opts.remote);
    const report: SyncReport = { remote, branch, committed: null, pulled: 'nothing', merged: [], pushed: false, head: null };
    const attempts = opts.attempts ?? 5;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS;
    for (let attempt = 1; ; attempt++) {
      opts.onStep?.(`fetching ${remote}/${branch}`);
      const looking = report.committed === null ? (firstLook ?? look()) : null;
      firstLook = null;
      const theirs = await fetch(board, repo, remote, branch, timeoutMs, attempt === 1 ? unchanged : '; this clone keeps what this sync committed and merged so far: sync again to push it');
      // HEAD is asked for again only after this sync moved it (a commit, a pull): a sync with nothing to do asks once.
      let ours = await repo.resolve('HEAD');
      if (theirs !== null) await refuseUnsafe(repo, ours, theirs, `${remote}/${branch} (${theirs.slice(0, 8)})`);
      // A take of the board's clock that the remote's beat gives way before the merge (docs/git.md "Timers once per board").
      const gaveWay = theirs !== null && (await yieldClock(board, repo, ours, theirs, opts.now?.() ?? new Date()));
      // A clock that gave way wrote the board since that look: look again.
      const committed = report.committed === null || gaveWay ? await commitWhenQuiet(board, repo, gaveWay || !looking ? undefined : await looking) : null;
      if (report.committed === null) report.committed = committed;
      if (committed !== null) ours = await repo.resolve('HEAD');
      let moved = false;
      if (theirs !== null && ours !== null && !(await repo.isAncestor(theirs, ours))) {
        opts.onStep?.('merging');
        const pulled = await pull(board, repo, ref, ours, theirs, remote, branch);
        if (report.pulled !== 'merge') report.pulled = pulled.kind;
        report.merged.push(...pulled.merged);
        moved = true;
      } else if (theirs !== null && ours === null) {
        await pull(board, repo, ref, null, theirs, remote, branch);
        report.pulled = 'fast-forward';
        moved = true;
      }
      if (report.pulled !== 'nothing') {
        // What came in that the board's chain does not record yet (WORK.md merged as data, versions from the other side) is adopted and committed with it.
        await adoptBoardFiles(board, opts.actor ?? 'git');
        if ((await commitWhenQuiet(board, repo)) !== null) moved = true;
      }
      const head = moved ? await repo.resolve('HEAD') : ours;
      report.head = head;
      if (head === null || head === theirs) return report;
      opts.onStep?.('verifying');
      // What the remote has was verified by whoever pushed it (and anyone can run audit verify): check what this push adds.
      const verified = await verifyBoard(board, theirs === null ? {} : { chains: await chainsChanged(repo, theirs, head) });
      if (!verified.ok) throw new SyncError('broken', `the board does not verify after the merge, so nothing was pushed: run workboard audit verify`);
      opts.onStep?.(`pushing to ${remote}/${branch}`);
      // The commit verified above, not whatever HEAD is by now: a person's commit made meanwhile goes with the next sync.
      const pushed = await networkGit(board, repo, ['push', '--porcelain', '--quiet', remote, `${head}:refs/heads/${branch}`], timeoutMs, `cannot push to ${remote}`);
      const outcome = pushOutcome(pushed.code, pushed.stdout.toString('utf8'), pushed.stderr);
      if (outcome.kind === 'pushed') {
        report.pushed = true;
        // The first sync of a branch makes the remote's branch its upstream, as `git push -u` would: plain git pull and push work after it.
        if (!tracked)
          for (const [k, v] of [
            ['remote', remote],
            ['merge', `refs/heads/${branch}`],
          ] as const)
            await repo.run(['config', `branch.${ref.replace(/^refs\/heads\//, '')}.${k}`, v]);
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
    const message =
      how === 'merge'
        ? `${await repo.text(['log', '-1', '--format=%B', head])}\n\nRuns that moved on both sides were kept whole from one side (workboard).\n`
        : 'workboard: runs that moved on both sides kept whole from one side (after git rebase)\n';
    const parents = how === 'merge' ? sides : [head];
    const commit = await repo.commitTree(result.tree, parents, message);
    await moveTo(board, repo, { from: head, to: commit, ref });
    await adoptBoardFiles(board, 'git');
    await commitWhenQuiet(board, repo);
    return { commit, merged };
  });
}

/** The remote and branch to sync with: the branch's upstream, else `origin` and the branch's own name. */
async function upstream(repo: Repo, remoteOption: string | undefined): Promise<{ remote: string; branch: string; ref: string; tracked: boolean }> {
  // Three questions at once: each is a git process of its own.
  const [head, up, listed] = await Promise.all([
    repo.run(['symbolic-ref', '-q', 'HEAD'], { allow: [1] }),
    repo.run(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'], { allow: [128] }),
    repo.text(['remote']),
  ]);
  const ref = head.stdout.toString('utf8').trim();
  if (ref === '') throw new SyncError('refused', 'HEAD is detached: check out a branch to sync');
  const local = ref.replace(/^refs\/heads\//, '');
  const upName = up.code === 0 ? up.stdout.toString('utf8').trim() : '';
  const remotes = listed.split('\n').filter(Boolean);
  const remote = remoteOption ?? (upName.includes('/') ? upName.slice(0, upName.indexOf('/')) : remotes.includes('origin') ? 'origin' : remotes[0]);
  if (!remote) throw new SyncError('refused', 'this repository has no remote to sync with: git remote add origin <url>');
  if (!remotes.includes(remote)) throw new SyncError('refused', `there is no remote named ${remote} (remotes: ${remotes.join(', ') || 'none'})`);
  const branch = upName.startsWith(`${remote}/`) ? upName.slice(remote.length + 1) : local;
  return { remote, branch, ref, tracked: upName !== '' };
}

/** The remote branch's commit, or null when the remote does not have the branch yet. */
async function fetch(board: Board, repo: Repo, remote: string, branch: string, timeoutMs: number, unchanged: string): Promise<string | null> {
  const r = await networkGit(board, repo, ['fetch', '--quiet', '--no-tags', remote, `refs/heads/${branch}`], timeoutMs, `cannot reach ${remote}`, unchanged);
  if (r.code === 0) return repo.resolve('FETCH_HEAD');
  if (/couldn't find remote ref/i.test(r.stderr)) return null;
  throw new SyncError('unreachable', `cannot reach ${remote}: ${new GitError(['fetch'], r.code, r.stderr).message.replace(/^git fetch: /, '')}${unchanged}`);
}

/** Refuse, before anything is changed, what `theirs` brings that this clone never takes from git (incoming.ts). */
async function refuseUnsafe(repo: Repo, ours: string | null, theirs: string, what: string): Promise<void> {
  if (ours !== null && (await repo.isAncestor(theirs, ours))) return;
  const base = ours === null ? null : (await repo.run(['merge-base', ours, theirs], { allow: [1] })).stdout.toString('utf8').trim() || null;
  const refused = refusedChanges(await repo.treeChanges(base, theirs), repo.prefix);
  if (refused.length > 0) throw new SyncError('refused', refusalText(what, refused));
}

/** Commit the board's uncommitted files once no transaction is in flight (a live one waited for, a dead one rolled forward). */
async function commitWhenQuiet(board: Board, repo: Repo, looked?: string[]): Promise<string | null> {
  // A pending journal is a writer's commit under way, or one a writer that died left: under each scope's lock, the
  // first is waited for and the second rolled forward. Else no commit is made, and a run nobody writes again would
  // hold every sync back for good.
  const left = board.state.pendingJournals().flatMap((n) => scopeOfStateName(n, '.json') ?? []);
  const busyIsFine = (e: unknown) => {
    if (!(e instanceof BoardError && e.code === 'busy')) throw e;
  };
  if (left.length > 0) await rollForward(board, left).catch(busyIsFine);
  // A writer killed before its journal leaves only its lock and temp files, litter beside the run's files until the run
  // is written again: breaking the lock removes them and adds a line to the run's chain, so the board is looked at again.
  let settled = true;
  try {
    settled = await settleDeadHolders(board);
  } catch (e) {
    busyIsFine(e);
  }
  const message = await commitBoard(board, repo, settled ? undefined : looked);
  return message === null ? null : message.split('\n')[0]!;
}

/** Bring `theirs` in: a fast-forward when we have nothing they lack, else a merge commit by the board's rules. */
async function pull(
  board: Board,
  repo: Repo,
  ref: string,
  ours: string | null,
  theirs: string,
  remote: string,
  branch: string,
): Promise<{ kind: 'fast-forward' | 'merge'; merged: SyncReport['merged'] }> {
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
  const body = setAside.flatMap(({ run, taken, superseded: s }) =>
    s
      ? [
          `- ${run}: kept ${taken === 'ours' ? 'this clone' : `${remote}`}; ${s.transitions} transition${s.transitions === 1 ? '' : 's'} of ${s.side === 'ours' ? 'this clone' : remote} superseded${holdingWords(s)} (runs/${run}/superseded.jsonl)`,
        ]
      : [],
  );
  const message = `${subject}\n${body.length > 0 ? `\n${body.join('\n')}\n` : ''}`;
  const commit = await repo.commitTree(result.tree, [ours, theirs], message);
  await moveTo(board, repo, { from: ours, to: commit, ref });
  return { kind: 'merge', merged };
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

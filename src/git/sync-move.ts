/**
 * How a sync moves this clone from one commit to another: the board's files
 * through the board (every scope's lock, checked and journaled, so running
 * coordinators see commits land), the rest with git. The intent (from which
 * commit to which) is written under .work/journal/ first, so a sync killed
 * between scopes is finished by the next one, and `serve --git-commit` never
 * commits a half-applied merge (docs/git.md "A killed sync").
 */
import { sha256Hex } from '../core/hash.js';
import type { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { isRunId, paths, runPathOf, type Scope, SUPERSEDED_FILE, SYNC_INTENT, WORK_FILE } from '../board/layout.js';
import type { ScopeReplacement } from '../board/store.js';
import { mergeCommits, ownerOf } from './board-merge.js';
import type { Repo } from './repo.js';
import { summarise, SyncError } from './sync-report.js';
import { endSuperseded } from './sync-superseded.js';

const INTENT = SYNC_INTENT;
/** How many times finishing an interrupted sync merges in what this clone did meanwhile before it asks for the next sync. */
const MERGE_ROUNDS = 3;

export interface Intent {
  from: string;
  to: string;
  ref: string;
}

/**
 * Move the branch from one commit to another, the board's files through the
 * board (under every scope's lock, checked and journaled), the rest with git.
 */
export async function moveTo(board: Board, repo: Repo, intent: Intent): Promise<void> {
  const from = intent.from === '' ? null : intent.from;
  const changed = await repo.changed(from, intent.to);
  const others = changed.filter((p) => ownerOf(p) === null);
  if (others.length > 0) {
    const dirty = (await repo.text(['status', '--porcelain', '-z', '--', ...others.map((p) => literal(repo, p))])).split('\0').filter(Boolean);
    if (dirty.length > 0) throw new SyncError('refused', `uncommitted changes to files the merge brings (${dirty.map((d) => d.slice(3)).join(', ')}): commit or stash them, then sync again`);
  }
  await writeIntent(board, intent);
  try {
    await applyBoardFiles(board, repo, from, intent.to, changed, null);
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
 * Put the board files among the paths that differ between two commits (those
 * a scope owns; `changed`) into the second one's state, each scope whole. `resuming`: a sync that died may have brought some
 * scopes already, and this clone may have moved others since; so a file
 * already as wanted is left alone, and one in any other state than one of
 * the `known` commits has it is a MovedSince, before anything is written.
 */
async function applyBoardFiles(board: Board, repo: Repo, from: string | null, to: string, changed: string[], resuming: { known: string[] } | null): Promise<void> {
  const rels = changed.filter((p) => ownerOf(p) !== null);
  if (rels.length === 0) return;
  const [before, after, ...known] = await Promise.all([
    from === null ? new Map<string, string>() : repo.blobs(from, rels),
    repo.blobs(to, rels),
    ...(resuming?.known ?? []).map((c) => repo.blobs(c, rels)),
  ]);
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
    const at = runPathOf(rel);
    if (at?.name !== SUPERSEDED_FILE || !isRunId(at.runId)) continue;
    const run = at.runId;
    const head = paths.runFile(run);
    const state = await endSuperseded(
      board,
      run,
      text(before, rel),
      text(after, rel),
      text(after, head) || ((await board.store.readBytes(head))?.toString('utf8') ?? ''),
      text(after, paths.runChain(run)),
    );
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
 * the move goes there instead. True when it finished one, so a sync that
 * fails after it does not say it changed nothing.
 */
export async function finishIntent(board: Board, repo: Repo): Promise<boolean> {
  const text = await board.state.readText(INTENT);
  if (text === null) return false;
  let intent: Intent;
  try {
    intent = JSON.parse(text) as Intent;
  } catch {
    await board.state.remove(INTENT);
    return false;
  }
  const at = await repo.resolve(intent.ref);
  if ((at ?? '') !== intent.from && at !== intent.to) {
    await board.state.remove(INTENT);
    return false;
  }
  const from = intent.from === '' ? null : intent.from;
  // Each round that finds more transitions made here meanwhile commits them and merges again, so none is written over.
  let target = intent.to;
  let known = [intent.to, ...(from === null ? [] : [from])];
  for (let round = 1; ; round++) {
    try {
      await resume(board, repo, { from: at ?? '', to: target, ref: intent.ref }, known);
      return true;
    } catch (e) {
      if (!(e instanceof MovedSince)) throw e;
      if (from === null) throw new SyncError('busy', 'this clone moved while its first sync was brought in, which was interrupted: commit its board (git add, git commit), then sync again');
      // Agents that write faster than a merge is made: stop here, with nothing written over and the intent kept for the next sync.
      if (round > MERGE_ROUNDS) throw new SyncError('busy', `${[...e.scopes.keys()].join(', ')} kept moving on this clone while an interrupted sync was being finished; nothing was lost: sync again`);
      const local = await commitMoved(board, repo, from, e.scopes);
      const result = await mergeCommits(repo, local, target);
      const message = `workboard sync: merged the transitions made here while a sync was interrupted\n\n${summarise(result.runs)
        .filter((m) => m.superseded)
        .map((m) => `- ${m.run}: kept ${m.taken === 'ours' ? "this clone's transitions" : 'the merge'}; ${m.superseded!.transitions} transition(s) superseded (runs/${m.run}/superseded.jsonl)`)
        .join('\n')}\n`;
      target = await repo.commitTree(result.tree, [local, target], message);
      await writeIntent(board, { from: at ?? '', to: target, ref: intent.ref });
      known = [...known, local];
    }
  }
}

/** Bring the board's files to `intent.to` from whatever state among `known` commits each is in, then move the branch (finishMove). */
async function resume(board: Board, repo: Repo, intent: Intent, known: string[]): Promise<void> {
  const from = intent.from === '' ? null : intent.from;
  const changed = await repo.changed(from, intent.to);
  await settleScopes(board, changed);
  await applyBoardFiles(board, repo, from, intent.to, changed, { known });
  await finishMove(
    board,
    repo,
    intent,
    changed.filter((p) => ownerOf(p) === null),
  );
}

/**
 * Roll forward the journal a killed sync left in a scope it was committing
 * when it died (taking the scope's lock, as any writer does), so the files
 * read next are those the lock will find; else the resumed apply's
 * compare-and-swap sees them change under it and asks to sync again.
 */
async function settleScopes(board: Board, rels: string[]): Promise<void> {
  const scopes = new Map<string, Scope>();
  for (const rel of rels) {
    const owner = ownerOf(rel);
    if (owner) scopes.set(owner.kind === 'run' ? owner.id : 'board', owner.kind === 'run' ? { kind: 'run', id: owner.id } : { kind: 'board' });
  }
  await rollForward(board, scopes.values());
}

/** Each scope's journal, if a writer left one, rolled forward under the scope's lock, as its next writer would. */
export async function rollForward(board: Board, scopes: Iterable<Scope>): Promise<void> {
  for (const scope of scopes) if (await board.store.pendingCommit(scope)) await board.store.transact(scope, () => undefined);
}

/**
 * Finish what writers that died holding a scope's lock left (a journal rolled
 * forward, their temp files removed), as recovery does at start-up. Whether
 * there were any: breaking a lock adds a line to the chain of what it guarded.
 */
export async function settleDeadHolders(board: Board): Promise<boolean> {
  const scopes = await board.state.deadHeldScopes();
  for (const scope of scopes) await board.store.transact(scope, () => undefined);
  return scopes.length > 0;
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
    for (const rel of (
      await repo.blobs(
        from,
        dirs.map((d) => (d === WORK_FILE ? d : `${d}/`)),
      )
    ).keys())
      rels.add(rel);
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
  return repo.commitTree(tree, [from], 'workboard sync: transitions made on this clone while a sync was interrupted\n');
}

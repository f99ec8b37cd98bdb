/**
 * Batched git commits of board truth (`workboard serve --git-commit <interval>`):
 * at most one commit per interval, only of the board's own paths, never
 * `.work/`, never in the middle of a transaction: the lock of every scope
 * whose files are committed is held from staging to the commit, so no
 * transition can start or end while git reads its files (a check of the
 * journals alone let one slip between them), with a message in words of the
 * transitions the staged audit lines record (commit-message.ts).
 */
import type { AuditEvent } from '../board/audit.js';
import type { Board } from '../board/board.js';
import { BOARD_SUPERSEDED, isChainPath, paths, type Scope, scopeFiles, STATE_DIR } from '../board/layout.js';
import { auditLinesIn } from './audit-words.js';
import { ownerOf } from './board-merge.js';
import { boardWords } from './board-words.js';
import { commitMessage } from './commit-message.js';
import { Repo } from './repo.js';

/** The audit lines staged for commit: what `git diff --cached` adds to the chains (raw, never through the textconv). */
async function stagedAuditLines(repo: Repo): Promise<AuditEvent[]> {
  const diff = await repo.text(['diff', '--cached', '--no-textconv', '--no-ext-diff', '--relative', '-U0', '--no-color', '--', '.']);
  const added: string[] = [];
  let chain = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) chain = isChainPath(line.slice(6)) || line.slice(6) === BOARD_SUPERSEDED;
    else if (chain && line.startsWith('+')) added.push(line.slice(1));
  }
  return auditLinesIn(`${added.join('\n')}\n`);
}

/**
 * What git sees changed under the board now (paths relative to it), never
 * `.work/`: one `git status` for what ls-files and `diff --cached` told in
 * two, of the whole board or only of the folders in `within`.
 * `--no-optional-locks` keeps status from refreshing git's index under its
 * lock, which a person's own git command may be waiting for.
 */
export async function changedPaths(repo: Repo, within?: readonly string[]): Promise<string[]> {
  const spec = within ? within.map((dir) => `:(literal)${dir}`) : ['.'];
  const out = await repo.run(['--no-optional-locks', 'status', '--porcelain', '-z', '--untracked-files=all', '--no-renames', '--', ...spec]);
  // Each entry is "XY <path>", ended by a NUL, its path from the work tree's top (no second path: --no-renames).
  const paths = repo.underBoard(
    out.stdout
      .toString('utf8')
      .split('\0')
      .filter((e) => e.length > 3)
      .map((e) => e.slice(3)),
  );
  return [...new Set(paths)].filter((p) => p !== STATE_DIR && !p.startsWith(`${STATE_DIR}/`)).sort();
}

/** The scope whose lock guards a path (null: code beside the board, no transaction writes it). */
function scopeOf(rel: string): Scope | null {
  const owner = ownerOf(rel);
  return owner === null ? null : owner.kind === 'run' ? { kind: 'run', id: owner.id } : { kind: 'board' };
}

/** Run `fn` holding the locks of these scopes, taken in the order store.replace takes them (no deadlock with a sync). */
async function underLocks<T>(board: Board, scopes: Scope[], fn: () => Promise<T>): Promise<T> {
  const locks = [...new Set(scopes.map((s) => scopeFiles(s).lock))].sort();
  const hold = (i: number): Promise<T> => (i === locks.length ? fn() : board.store.exclusive(locks[i]!, 'git commit', () => hold(i + 1)));
  return hold(0);
}

/**
 * Commit what changed under the board, if anything and if no commit is in flight (`repo`: the board's, when known;
 * `looked`: changedPaths of a moment ago, which picks the scopes to lock). Returns the message, or null.
 */
export async function commitBoard(board: Board, known?: Repo, looked?: string[]): Promise<string | null> {
  const root = board.root;
  const repo = known ?? (await Repo.at(root));
  if (!repo) return null;
  const seen = looked ?? (await changedPaths(repo));
  if (seen.length === 0) return null;
  const scopes = seen.map(scopeOf).filter((s): s is Scope => s !== null);
  const locked = new Set(scopes.map((s) => scopeFiles(s).lock));
  return underLocks(board, scopes, async () => {
    // A journal of a held scope was left by a writer that died (the next writer rolls it forward); a sync's intent is a merge half brought in.
    if (board.state.pendingJournals().length > 0) return null;
    // Only the scopes held: one that changed since it was looked at waits for the next commit. When only runs changed,
    // their folders are staged whole, as they are now under their locks (the first look may have caught a commit
    // halfway through its renames), with no second look: at 10k runs a status of the whole board costs a third of a
    // second, and even of a hundred folders a tenth. A folder gone since (a run removed by hand) would be a pathspec
    // git refuses when it tracked none of it: unless each run still has its RUN.md, the folders are looked at again.
    const runIds = [...new Set(scopes.flatMap((s) => (s.kind === 'run' ? [s.id] : [])))];
    const runDirs = runIds.map((id) => paths.runDir(id));
    const runsOnly = scopes.length === seen.length && scopes.every((s) => s.kind === 'run');
    const wholeDirs = runsOnly && (await Promise.all(runIds.map((id) => board.store.readBytes(paths.runFile(id), { fresh: true }).catch(() => null)))).every((b) => b !== null);
    const toCommit = wholeDirs
      ? runDirs
      : (await changedPaths(repo, runsOnly && runDirs.length <= 1000 ? runDirs : undefined)).filter((p) => {
          const scope = scopeOf(p);
          return scope === null || locked.has(scopeFiles(scope).lock);
        });
    if (toCommit.length === 0) return null;
    const spec = { input: `${toCommit.map((p) => `:(literal)${p}`).join('\0')}\0` };
    await repo.run(['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], spec);
    // The audit lines staged, and everything staged in the repository (the board's and anything a person staged
    // beside it): two reads of the index, side by side.
    const [lines, stagedOut] = await Promise.all([stagedAuditLines(repo), repo.run(['diff', '--cached', '--name-only', '-z', '--no-renames'])]);
    const staged = stagedOut.stdout
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== '');
    const changed = repo.underBoard(staged);
    if (changed.length === 0) return null;
    const { message, author } = commitMessage(lines, await boardWords(root, lines), changed);
    // Naming the paths makes git build a second index of every file (0.7 s against 0.3 s at 10k runs): needed only when
    // something else is staged, which a commit of the board's must leave staged, not take.
    const ours = new Set(toCommit.map((p) => `${repo.prefix}${p}`));
    const isOurs = (p: string) => ours.has(p) || (wholeDirs && ours.has(p.slice(0, p.lastIndexOf('/'))));
    const only = staged.every(isOurs) ? [] : ['--pathspec-from-file=-', '--pathspec-file-nul'];
    await repo.run(['commit', '-q', '-m', message, ...(author ? ['--author', author] : []), ...only], only.length > 0 ? spec : {});
    return message;
  });
}

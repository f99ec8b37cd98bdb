/**
 * Batched git commits of board truth (`workboard serve --git-commit <interval>`):
 * at most one commit per interval, only of the board's own paths, never
 * `.work/`, never in the middle of a transaction: the lock of every scope
 * whose files are committed is held from staging to the commit, so no
 * transition can start or end while git reads its files (a check of the
 * journals alone let one slip between them), with a message in words of the
 * transitions the staged audit lines record (commit-message.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AuditEvent } from '../board/audit.js';
import type { Board } from '../board/board.js';
import { BOARD_SUPERSEDED, isChainPath, JOURNAL_DIR, type Scope, scopeFiles, STATE_DIR } from '../board/layout.js';
import { auditLinesIn } from './audit-words.js';
import { ownerOf } from './board-merge.js';
import { boardWords } from './board-words.js';
import { commitMessage } from './commit-message.js';
import { Repo } from './repo.js';

const run = promisify(execFile);

async function git(root: string, ...args: string[]): Promise<string> {
  return (await run('git', ['-C', root, ...args], { maxBuffer: 64 * 1024 * 1024 })).stdout;
}

/** The audit lines staged for commit: what `git diff --cached` adds to the chains (raw, never through the textconv). */
async function stagedAuditLines(root: string): Promise<AuditEvent[]> {
  const diff = await git(root, 'diff', '--cached', '--no-textconv', '--no-ext-diff', '--relative', '-U0', '--no-color', '--', '.');
  const added: string[] = [];
  let chain = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) chain = isChainPath(line.slice(6)) || line.slice(6) === BOARD_SUPERSEDED;
    else if (chain && line.startsWith('+')) added.push(line.slice(1));
  }
  return auditLinesIn(`${added.join('\n')}\n`);
}

/** What git sees changed under the board now (paths relative to it), never `.work/`. */
async function changedPaths(root: string): Promise<string[]> {
  const listed = await Promise.all([
    git(root, 'ls-files', '-z', '--modified', '--deleted', '--others', '--exclude-standard', '--', '.'),
    git(root, 'diff', '--cached', '--name-only', '-z', '--relative', '--', '.'),
  ]);
  const all = new Set(listed.flatMap((l) => l.split('\0')).filter((p) => p !== ''));
  return [...all].filter((p) => p !== STATE_DIR && !p.startsWith(`${STATE_DIR}/`)).sort();
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

/** Commit what changed under the board, if anything and if no commit is in flight. Returns the message, or null. */
export async function commitBoard(board: Board): Promise<string | null> {
  const root = board.root;
  const seen = await changedPaths(root);
  if (seen.length === 0) return null;
  const scopes = seen.map(scopeOf).filter((s): s is Scope => s !== null);
  const locked = new Set(scopes.map((s) => scopeFiles(s).lock));
  return underLocks(board, scopes, async () => {
    // A journal of a held scope was left by a writer that died (the next writer rolls it forward); a sync's intent is a merge half brought in.
    if (board.state.list(JOURNAL_DIR).length > 0) return null;
    // Only the scopes held: one that changed since it was looked at waits for the next commit.
    const paths = (await changedPaths(root)).filter((p) => {
      const scope = scopeOf(p);
      return scope === null || locked.has(scopeFiles(scope).lock);
    });
    if (paths.length === 0) return null;
    const repo = (await Repo.at(root))!;
    const spec = { input: `${paths.map((p) => `:(literal)${p}`).join('\0')}\0` };
    await repo.run(['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], spec);
    const lines = await stagedAuditLines(root);
    const changed = (await git(root, 'diff', '--cached', '--name-only', '--relative', '--', '.')).split('\n').filter((l) => l !== '');
    const { message, author } = commitMessage(lines, await boardWords(root, lines), changed);
    await repo.run(['commit', '-q', '-m', message, ...(author ? ['--author', author] : []), '--pathspec-from-file=-', '--pathspec-file-nul'], spec);
    return message;
  });
}

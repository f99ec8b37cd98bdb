/**
 * Batched git commits of board truth (`workboard serve --git-commit <interval>`):
 * at most one commit per interval, only of the board's own paths, never
 * `.work/`, never in the middle of a transaction (no journal pending before
 * and after staging), with a message in words of the transitions the staged
 * audit lines record (commit-message.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { AuditEvent } from '../board/audit.js';
import type { Board } from '../board/board.js';
import { STATE_DIR } from '../board/layout.js';
import { auditLinesIn } from './audit-words.js';
import { boardWords } from './board-words.js';
import { commitMessage } from './commit-message.js';

const run = promisify(execFile);

async function git(root: string, ...args: string[]): Promise<string> {
  return (await run('git', ['-C', root, ...args], { maxBuffer: 64 * 1024 * 1024 })).stdout;
}

function journalsPending(board: Board): boolean {
  return board.state.list(`${STATE_DIR}/journal`).length > 0;
}

/** The audit lines staged for commit: what `git diff --cached` adds to the chains (raw, never through the textconv). */
async function stagedAuditLines(root: string): Promise<AuditEvent[]> {
  const diff = await git(root, 'diff', '--cached', '--no-textconv', '--no-ext-diff', '--relative', '-U0', '--no-color', '--', '.');
  const added: string[] = [];
  let chain = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) chain = /^(runs\/[^/]+\/audit|audit\/[^/]+)\.jsonl$/.test(line.slice(6));
    else if (chain && line.startsWith('+')) added.push(line.slice(1));
  }
  return auditLinesIn(`${added.join('\n')}\n`);
}

/** Commit what changed under the board, if anything and if no commit is in flight. Returns the message, or null. */
export async function commitBoard(board: Board): Promise<string | null> {
  const root = board.root;
  if (journalsPending(board)) return null;
  const status = await git(root, 'status', '--porcelain', '--', '.');
  if (status.trim() === '') return null;
  await git(root, 'add', '-A', '--', '.');
  if (journalsPending(board)) {
    await git(root, 'reset', '-q', '--', '.');
    return null;
  }
  const lines = await stagedAuditLines(root);
  const changed = (await git(root, 'diff', '--cached', '--name-only', '--relative', '--', '.')).split('\n').filter((l) => l !== '');
  const { message, author } = commitMessage(lines, await boardWords(root, lines), changed);
  await git(root, 'commit', '-q', '-m', message, ...(author ? ['--author', author] : []), '--', '.');
  return message;
}

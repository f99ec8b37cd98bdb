/**
 * Batched git commits of board truth (`workboard serve --git-commit <interval>`):
 * at most one commit per interval, only of the board's own paths, never
 * `.work/`, never in the middle of a transaction (no journal pending before
 * and after staging), with a message that summarises the transitions the
 * staged audit lines record.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { promisify } from 'node:util';
import { isCode } from '../board/fsutil.js';
import { STATE_DIR } from '../board/layout.js';

const run = promisify(execFile);

async function git(root: string, ...args: string[]): Promise<string> {
  return (await run('git', ['-C', root, ...args], { maxBuffer: 64 * 1024 * 1024 })).stdout;
}

async function journalsPending(root: string): Promise<boolean> {
  try {
    return (await fs.readdir(`${root}/${STATE_DIR}/journal`)).length > 0;
  } catch (e) {
    if (isCode(e, 'ENOENT')) return false;
    throw e;
  }
}

/** The transitions the staged audit lines record, as a commit message. */
async function message(root: string): Promise<string> {
  const diff = await git(root, 'diff', '--cached', '-U0', '--no-color', '--', '.');
  const byEntity = new Map<string, string[]>();
  let file = '';
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) file = line.slice(6);
    else if (line.startsWith('+') && !line.startsWith('+++') && file.endsWith('.jsonl')) {
      try {
        const ev = JSON.parse(line.slice(1)) as { action: string; entity: string };
        const key = ev.entity.split('/')[0]!.replace(/^run:/, '');
        byEntity.set(key, [...(byEntity.get(key) ?? []), ev.action]);
      } catch {
        // not an audit line
      }
    }
  }
  const total = [...byEntity.values()].reduce((a, v) => a + v.length, 0);
  const lines = [...byEntity].map(([k, actions]) => `- ${k}: ${actions.join(', ')}`);
  return `workboard: ${total} transition${total === 1 ? '' : 's'}${lines.length ? `\n\n${lines.join('\n')}` : ''}\n`;
}

/** Commit what changed under the board, if anything and if no commit is in flight. Returns the message, or null. */
export async function commitBoard(root: string): Promise<string | null> {
  if (await journalsPending(root)) return null;
  const status = await git(root, 'status', '--porcelain', '--', '.');
  if (status.trim() === '') return null;
  await git(root, 'add', '-A', '--', '.');
  if (await journalsPending(root)) {
    await git(root, 'reset', '-q', '--', '.');
    return null;
  }
  const msg = await message(root);
  await git(root, 'commit', '-q', '-m', msg, '--', '.');
  return msg;
}

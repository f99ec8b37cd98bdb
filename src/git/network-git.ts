/**
 * A sync's fetches and pushes, and what a dead sync left of them. Each runs
 * as the leader of its own process group (repo.ts), so that its timeout stops
 * git with its helpers. A sync SIGKILLed meanwhile leaves that group running
 * with no timer to stop it: a remote that never answers holds it for good, and
 * a push that lands later moves this clone's refs under whoever syncs next. So
 * each call is recorded while it runs, under the sync lock, and the next sync
 * stops one still recorded before it does anything (docs/git.md "A sync that
 * was stopped").
 */
import { hostname } from 'node:os';
import type { Board } from '../board/board.js';
import { NETWORK_GIT_FILE } from '../board/layout.js';
import { endedWithin, isGitIn } from './process-probe.js';
import { GitTimeout, signalGroup, STOP_GRACE_MS, type GitRun, type Repo } from './repo.js';
import { SyncError } from './sync-report.js';

const HOST = hostname();

/** A network git call of a sync, recorded while it runs; a timeout is said in one line (`what`, then `after`). */
export async function networkGit(board: Board, repo: Repo, args: string[], timeoutMs: number, what: string, after = ''): Promise<GitRun> {
  const record: { written?: Promise<void> } = {};
  try {
    return await repo.run(args, {
      allow: [1, 128],
      timeoutMs,
      started: (pid) => {
        record.written = board.state.replace(NETWORK_GIT_FILE, `${JSON.stringify({ host: HOST, pid })}\n`);
      },
    });
  } catch (e) {
    if (e instanceof GitTimeout) throw new SyncError('unreachable', `${what}: no answer in ${e.ms / 1000} s${after}`);
    throw e;
  } finally {
    // A record that could not be written only means a dead sync's call would not be found: the sync goes on.
    if (record.written) await record.written.then(() => board.state.remove(NETWORK_GIT_FILE)).catch(() => undefined);
  }
}

/** Under the sync lock: stop the fetch or push a dead sync left running, if one is recorded (SIGTERM, then SIGKILL). */
export async function stopLeftoverGit(board: Board, repo: Repo): Promise<void> {
  const text = await board.state.readText(NETWORK_GIT_FILE);
  if (text === null) return;
  const left = recordOf(text);
  // The holder of the sync lock removes its record before it lets go: one found here is a dead holder's.
  if (left !== null && left.host === HOST && isGitIn(left.pid, [repo.cwd, repo.top]))
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) if (!signalGroup(left.pid, signal) || (await endedWithin(left.pid, STOP_GRACE_MS))) break;
  await board.state.remove(NETWORK_GIT_FILE);
}

function recordOf(text: string): { host: string; pid: number } | null {
  try {
    const v = JSON.parse(text) as { host?: unknown; pid?: unknown };
    return typeof v.host === 'string' && Number.isInteger(v.pid) && (v.pid as number) > 1 ? { host: v.host, pid: v.pid as number } : null;
  } catch {
    return null;
  }
}

/**
 * What this host's process table says of a process a dead sync left (network-git.ts):
 * is it still git, and has it ended? Read from /proc where there is one, else
 * from ps and signal 0.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pidAlive } from '../board/lock.js';

/** Is `pid` still git? Its id may have been given to another process since it was recorded, and that one must not be stopped. */
export function isGit(pid: number): boolean {
  const name = existsSync('/proc/self') ? procCommand(pid) : psCommand(pid);
  return name !== null && path.basename(name).startsWith('git');
}

function procCommand(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? null;
  } catch {
    return null;
  }
}

function psCommand(pid: number): string | null {
  try {
    return execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null;
  }
}

/** Has `pid` ended (gone, or a zombie nobody reaped yet) within `ms`? */
export async function endedWithin(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; ; await sleep(20)) {
    if (!running(pid)) return true;
    if (Date.now() >= until) return false;
  }
}

function running(pid: number): boolean {
  try {
    // "pid (name) S …": the state follows the last parenthesis, as the name may hold one.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return existsSync('/proc/self') ? false : pidAlive(pid);
  }
}

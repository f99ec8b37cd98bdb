/**
 * What this host's process table says of a process a dead sync left (network-git.ts):
 * is it still git, and has it ended? Read from /proc where there is one, else
 * from ps and signal 0.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pidAlive } from '../board/lock.js';

/**
 * Is `pid` still a git working in one of `dirs`? Its id may have been given to
 * another process since it was recorded, and that one must not be stopped.
 * Where there is no /proc, only its name is asked (ps).
 */
export function isGitIn(pid: number, dirs: readonly string[]): boolean {
  if (!existsSync('/proc/self')) return isGitName(psCommand(pid));
  const cwd = procCwd(pid);
  return isGitName(procCommand(pid)) && dirs.some((d) => realpathOr(d) === cwd);
}

const isGitName = (name: string | null): boolean => name !== null && path.basename(name).startsWith('git');

function procCwd(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

function realpathOr(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
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

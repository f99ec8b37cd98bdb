/**
 * Who the CLI acts as, by one rule for every command: `--as`, else
 * WORKBOARD_AS, else git's `user.email` when WORK.md declares that person,
 * else the login (`user:<name>`). Pure apart from asking git and the OS.
 */
import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';
import type { Manifest } from '../board/manifest.js';

/** The operating-system user running this command. */
export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
}

/** git's `user.email` as seen from `cwd`, or null when git or the setting is missing. */
export function gitEmail(cwd: string): string | null {
  try {
    const out = execFileSync('git', ['config', 'user.email'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
    return out === '' ? null : out;
  } catch {
    return null;
  }
}

/** The default identity: a declared person's git email, else the login. `explicit` (from --as or WORKBOARD_AS) always wins. */
export function chooseIdentity(explicit: string | undefined, manifest: Manifest | null, email: () => string | null, login: string): string {
  if (explicit) return explicit;
  if (manifest) {
    const e = email()?.toLowerCase();
    const person = e ? manifest.people.find((p) => p.email.toLowerCase() === e) : undefined;
    if (person) return person.email;
  }
  return `user:${login}`;
}

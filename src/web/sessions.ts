/**
 * Web sign-in on disk: single-use login links and sessions, kept hashed in
 * `.work/web/sessions.json` (never committed), every change made under the
 * board's lock for this file and written by atomic rename. The rules are in
 * session-rules.ts; this file reads, locks and writes.
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../core/hash.js';
import { SESSIONS_FILE, sessionPerson, type ServedBoard as Board } from '../service/web-board.js';
import * as rules from './session-rules.js';

/** The lock file `.work/locks/web-sessions.lock`, held around every change. */
const LOCK = 'web-sessions';

export type PublicSession = Omit<rules.SessionRecord, 'sha256'> & { expiresAt: string };

async function load(board: Board): Promise<rules.SessionsFile> {
  return rules.parseSessionsFile(await board.state.readText(SESSIONS_FILE));
}

/** Change the file under its lock; `fn` returns the new file (or null to write nothing) and a value. */
async function change<T>(board: Board, fn: (f: rules.SessionsFile) => { file: rules.SessionsFile | null; value: T }): Promise<T> {
  return board.state.locked(LOCK, async () => {
    const { file, value } = fn(await load(board));
    if (file !== null) await board.state.replace(SESSIONS_FILE, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    return value;
  });
}

/**
 * A sign-in link for a person, valid once within 15 minutes: `<baseUrl>/signin?code=…`,
 * with `&next=<page>` when it should land on a page of ours (checked again when it is used).
 */
export async function createLoginLink(board: Board, email: string, baseUrl: string, now = new Date(), opts: { next?: string } = {}): Promise<string> {
  const who = await sessionPerson(board, email);
  const code = `wbl_${randomBytes(32).toString('base64url')}`;
  await change(board, (f) => ({ file: rules.addCode(f, sha256Hex(code), who, now), value: undefined }));
  const url = new URL('/signin', baseUrl);
  url.searchParams.set('code', code);
  if (opts.next) url.searchParams.set('next', opts.next);
  return url.toString();
}

/** Whom a code would sign in, without using it (the page a link opens asks before it is used). */
export async function peekCode(board: Board, code: string, now = new Date()): Promise<string | null> {
  return rules.findCode(await load(board), sha256Hex(code), now)?.email ?? null;
}

/** Use a code once: a new session's secret (for the cookie), or null when the code is unknown, used or expired. */
export async function redeemCode(board: Board, code: string, now = new Date()): Promise<{ token: string; id: string; email: string } | null> {
  const token = `wbs_${randomBytes(32).toString('base64url')}`;
  const id = `s-${randomBytes(6).toString('hex')}`;
  const got = await change(board, (f) => {
    const r = rules.exchange(f, sha256Hex(code), { id, sha256: sha256Hex(token) }, now);
    return r ? { file: r.file, value: r.email } : { file: null, value: null };
  });
  if (got === null) return null;
  // A person removed since the code was made gets no session.
  try {
    await sessionPerson(board, got);
  } catch {
    await change(board, (f) => ({ file: rules.removeSessions(f, (s) => s.id === id).file, value: undefined }));
    return null;
  }
  return { token, id, email: got };
}

/** The live session a cookie's secret stands for, or null. Its lastSeenAt moves at most every few minutes. */
export async function sessionFor(board: Board, token: string, now = new Date()): Promise<{ id: string; email: string } | null> {
  const sha = sha256Hex(token);
  const hit = rules.lookup(await load(board), sha, now);
  if (!hit) return null;
  if (hit.touch) await change(board, (f) => ({ file: rules.lookup(f, sha, now) ? rules.touch(f, sha, now) : null, value: undefined }));
  return { id: hit.session.id, email: hit.session.email };
}

/** Sign-out: the session of this secret ends. */
export async function endSession(board: Board, token: string): Promise<void> {
  const sha = sha256Hex(token);
  await change(board, (f) => {
    const r = rules.removeSessions(f, (s) => s.sha256 === sha);
    return { file: r.removed.length ? r.file : null, value: undefined };
  });
}

/** Every live session, without secrets. */
export async function listSessions(board: Board, now = new Date()): Promise<PublicSession[]> {
  return rules.prune(await load(board), now).sessions.map(({ sha256: _s, ...s }) => ({ ...s, expiresAt: new Date(rules.sessionExpiry({ ...s, sha256: '' })).toISOString() }));
}

/** End one session by its public id; false when there is no such session. */
export async function revokeSession(board: Board, id: string): Promise<boolean> {
  return change(board, (f) => {
    const r = rules.removeSessions(f, (s) => s.id === id);
    return { file: r.removed.length ? r.file : null, value: r.removed.length > 0 };
  });
}

/** End every session of a person (when they are removed from the board); returns the ids ended. */
export async function revokeSessionsOf(board: Board, email: string): Promise<string[]> {
  const e = email.toLowerCase();
  return change(board, (f) => {
    const r = rules.removeSessions(f, (s) => s.email === e);
    // Their unused sign-in links die with them.
    return { file: r.removed.length || f.codes.some((c) => c.email === e) ? { ...r.file, codes: r.file.codes.filter((c) => c.email !== e) } : null, value: r.removed };
  });
}

/**
 * Sign-in codes and web sessions as plain data, with the rules over them:
 * how long each lives, single use, and what is pruned. Pure: the caller
 * brings the secrets' hashes, the time and the file (sessions.ts).
 *
 * Only SHA-256 hashes of codes and session secrets are kept; a session is
 * named by a short public id (`s-…`) for `workboard session list|revoke`.
 */

/** A sign-in code works once, within this long of being made. */
export const CODE_TTL_MS = 15 * 60_000;
/** A session unused this long ends. */
export const SESSION_IDLE_MS = 12 * 3600_000;
/** A session ends this long after sign-in, however busy. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000;
/** `lastSeenAt` is written at most this often (a write per page view would be churn). */
export const TOUCH_EVERY_MS = 5 * 60_000;
/** Unused codes kept per person: minting one more drops the oldest. */
export const MAX_OPEN_CODES = 5;

export interface CodeRecord {
  sha256: string;
  email: string;
  createdAt: string;
  expiresAt: string;
}

export interface SessionRecord {
  id: string;
  sha256: string;
  email: string;
  createdAt: string;
  lastSeenAt: string;
}

export interface SessionsFile {
  codes: CodeRecord[];
  sessions: SessionRecord[];
}

export const EMPTY: SessionsFile = { codes: [], sessions: [] };

const ms = (iso: string) => Date.parse(iso);

export function sessionExpiry(s: SessionRecord): number {
  return Math.min(ms(s.lastSeenAt) + SESSION_IDLE_MS, ms(s.createdAt) + SESSION_ABSOLUTE_MS);
}

/** Drop expired codes and sessions. */
export function prune(f: SessionsFile, now: Date): SessionsFile {
  const t = now.getTime();
  return { codes: f.codes.filter((c) => ms(c.expiresAt) > t), sessions: f.sessions.filter((s) => sessionExpiry(s) > t) };
}

/** Add a code for a person, keeping at most MAX_OPEN_CODES of theirs. */
export function addCode(f: SessionsFile, sha256: string, email: string, now: Date): SessionsFile {
  const p = prune(f, now);
  const mine = p.codes.filter((c) => c.email === email);
  const drop = new Set(mine.slice(0, Math.max(0, mine.length - (MAX_OPEN_CODES - 1))).map((c) => c.sha256));
  const code = { sha256, email, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + CODE_TTL_MS).toISOString() };
  return { ...p, codes: [...p.codes.filter((c) => !drop.has(c.sha256)), code] };
}

export function findCode(f: SessionsFile, sha256: string, now: Date): CodeRecord | null {
  return prune(f, now).codes.find((c) => c.sha256 === sha256) ?? null;
}

/** Use a code: it is removed whatever happens next, and a session is opened for its person. */
export function exchange(f: SessionsFile, codeSha: string, session: { id: string; sha256: string }, now: Date): { file: SessionsFile; email: string } | null {
  const p = prune(f, now);
  const code = p.codes.find((c) => c.sha256 === codeSha);
  if (!code) return null;
  const at = now.toISOString();
  return {
    email: code.email,
    file: { codes: p.codes.filter((c) => c !== code), sessions: [...p.sessions, { id: session.id, sha256: session.sha256, email: code.email, createdAt: at, lastSeenAt: at }] },
  };
}

/** The live session with this secret hash, and whether its lastSeenAt is due to be written. */
export function lookup(f: SessionsFile, sha256: string, now: Date): { session: SessionRecord; touch: boolean } | null {
  const s = f.sessions.find((x) => x.sha256 === sha256);
  if (!s || sessionExpiry(s) <= now.getTime()) return null;
  return { session: s, touch: now.getTime() - ms(s.lastSeenAt) >= TOUCH_EVERY_MS };
}

export function touch(f: SessionsFile, sha256: string, now: Date): SessionsFile {
  return { ...f, sessions: f.sessions.map((s) => (s.sha256 === sha256 ? { ...s, lastSeenAt: now.toISOString() } : s)) };
}

/** Remove the sessions `which` selects; returns the new file and the ids removed. */
export function removeSessions(f: SessionsFile, which: (s: SessionRecord) => boolean): { file: SessionsFile; removed: string[] } {
  const removed = f.sessions.filter(which).map((s) => s.id);
  return { file: { ...f, sessions: f.sessions.filter((s) => !which(s)) }, removed };
}

/** A stored file as read from disk, or EMPTY when it is missing or not ours (it holds nothing that cannot be re-issued). */
export function parseSessionsFile(raw: string | null): SessionsFile {
  if (raw === null) return EMPTY;
  try {
    const v = JSON.parse(raw) as Partial<SessionsFile>;
    return { codes: Array.isArray(v.codes) ? v.codes : [], sessions: Array.isArray(v.sessions) ? v.sessions : [] };
  } catch {
    return EMPTY;
  }
}

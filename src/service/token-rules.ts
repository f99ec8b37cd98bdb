/**
 * The rules of bearer tokens, pure: the stored list's shape, reading it back,
 * expiry, finding a token by id or label, and what a presented secret's hash
 * stands for at a moment. No disk and no randomness here (credentials.ts has both).
 */
import { timingSafeEqual } from 'node:crypto';

/** One token as `.work/tokens.json` keeps it: never the secret, only its SHA-256. Keys in this order on disk. */
export interface StoredToken {
  id: string;
  name: string | null;
  identity: string;
  createdAt: string;
  /** null: made before tokens expired; shown as "never" until rotated or revoked. */
  expiresAt: string | null;
  lastUsedAt: string | null;
  sha256: string;
}

/** What `token list` shows: everything but the hash. */
export type TokenInfo = Omit<StoredToken, 'sha256'>;

export const TOKEN_PREFIX = 'wb_';
export const DEFAULT_EXPIRY = '30d';
export const MAX_EXPIRY_DAYS = 366;
/** `lastUsedAt` is kept to the minute: a token in constant use costs one write a minute, not one a request. */
export const LAST_USED_GRAIN_MS = 60_000;

const ID = /^t-[0-9a-f]{12}$/;
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };

/** The list from the file's text. A file that does not parse is an error: it is never overwritten with less. */
export function parseTokens(text: string | null): StoredToken[] {
  if (text === null || text.trim() === '') return [];
  const v = JSON.parse(text) as { tokens?: unknown };
  if (!Array.isArray(v.tokens)) throw new Error('has no "tokens" list');
  return v.tokens.map((raw, i) => {
    const t = raw as Partial<StoredToken> & Record<string, unknown>;
    if (typeof t.id !== 'string' || typeof t.identity !== 'string' || typeof t.sha256 !== 'string' || typeof t.createdAt !== 'string') {
      throw new Error(`tokens[${i}] lacks id, identity, sha256 or createdAt`);
    }
    return {
      id: t.id,
      name: typeof t.name === 'string' ? t.name : null,
      identity: t.identity,
      createdAt: t.createdAt,
      expiresAt: typeof t.expiresAt === 'string' ? t.expiresAt : null,
      lastUsedAt: typeof t.lastUsedAt === 'string' ? t.lastUsedAt : null,
      sha256: t.sha256,
    };
  });
}

/** The file's text: stable key order, one token per object, so a diff of two versions is small. */
export function serializeTokens(tokens: readonly StoredToken[]): string {
  const ordered = tokens.map((t) => ({ id: t.id, name: t.name, identity: t.identity, createdAt: t.createdAt, expiresAt: t.expiresAt, lastUsedAt: t.lastUsedAt, sha256: t.sha256 }));
  return `${JSON.stringify({ tokens: ordered }, null, 2)}\n`;
}

/** When a token given `--expires <text>` at `now` expires: `30d`, `12h`, `2w`, or a date (`2027-01-31`), at most MAX_EXPIRY_DAYS ahead. */
export function expiryFrom(text: string, now: Date): { ok: true; expiresAt: string } | { ok: false; message: string } {
  const m = /^([1-9]\d{0,4})([hdw])$/.exec(text.trim());
  let at: number;
  if (m) at = now.getTime() + Number(m[1]) * UNIT_MS[m[2]!]!;
  else if (/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(text.trim()) && Number.isFinite(Date.parse(text.trim()))) at = Date.parse(text.trim());
  else return { ok: false, message: `--expires expects a duration (12h, 30d, 2w) or a date (2027-01-31), got "${text}"` };
  if (at <= now.getTime()) return { ok: false, message: `--expires ${text} is not in the future` };
  if (at - now.getTime() > MAX_EXPIRY_DAYS * DAY_MS) return { ok: false, message: `--expires ${text} is more than ${MAX_EXPIRY_DAYS} days away; rotate tokens instead of keeping one for ever` };
  return { ok: true, expiresAt: new Date(at).toISOString() };
}

/** The length of a token's life, to give a rotated token as long as the one it replaces had. */
export function lifetimeOf(t: StoredToken): string {
  if (t.expiresAt === null) return DEFAULT_EXPIRY;
  const hours = Math.round((Date.parse(t.expiresAt) - Date.parse(t.createdAt)) / UNIT_MS.h!);
  return hours >= 1 && hours <= MAX_EXPIRY_DAYS * 24 ? `${hours}h` : DEFAULT_EXPIRY;
}

/** Why a label cannot be given to a new token, or null when it can. */
export function labelProblem(tokens: readonly StoredToken[], name: string): string | null {
  if (!LABEL.test(name)) return `token name "${name}" must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`;
  if (ID.test(name)) return `token name "${name}" looks like a token id; pick another`;
  if (tokens.some((t) => t.name === name)) return `a token named "${name}" exists already; revoke it or pick another name`;
  return null;
}

/** The one token an id or a label names, or why there is none. */
export function findToken(tokens: readonly StoredToken[], ref: string): { ok: true; token: StoredToken } | { ok: false; message: string } {
  const hit = tokens.find((t) => t.id === ref) ?? tokens.find((t) => t.name === ref);
  if (hit) return { ok: true, token: hit };
  const known = tokens.map((t) => (t.name ? `${t.id} (${t.name})` : t.id));
  return { ok: false, message: `no token "${ref}"${known.length ? ` (tokens: ${known.slice(0, 8).join(', ')}${known.length > 8 ? ', …' : ''})` : ': this board has no tokens'}` };
}

export type Presented = { ok: true; token: StoredToken } | { ok: false; reason: 'unknown' | 'expired' };

/** What a presented secret, by its SHA-256, stands for at `now`. Every stored hash is compared in constant time. */
export function matchToken(tokens: readonly StoredToken[], sha256: string, now: Date): Presented {
  const want = Buffer.from(sha256, 'hex');
  let found: StoredToken | null = null;
  for (const t of tokens) {
    const have = Buffer.from(t.sha256, 'hex');
    if (have.length === want.length && timingSafeEqual(have, want)) found = t;
  }
  if (!found) return { ok: false, reason: 'unknown' };
  if (found.expiresAt !== null && Date.parse(found.expiresAt) <= now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, token: found };
}

/** Whether a use at `now` should be written down (lastUsedAt is kept to LAST_USED_GRAIN_MS). */
export function useIsNews(t: StoredToken, now: Date): boolean {
  return t.lastUsedAt === null || now.getTime() - Date.parse(t.lastUsedAt) >= LAST_USED_GRAIN_MS;
}

/** Without the hash. */
export function infoOf(t: StoredToken): TokenInfo {
  const { sha256: _, ...info } = t;
  return info;
}

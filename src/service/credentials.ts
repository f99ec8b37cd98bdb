/**
 * Bearer tokens for HTTP, on disk. A token is `wb_` and 43 random base64url
 * characters, shown once; only its SHA-256 is kept, in `.work/tokens.json`
 * (never committed). Every change (create, rotate, revoke, a removed
 * identity's tokens, the minute a token was last used) is one board commit
 * (store.apply): under the board's lock, the file re-read, changed and replaced by an atomic
 * rename, so no concurrent change is lost; creating, rotating and revoking are
 * audited on the board's chain. A running server re-reads the file whenever it
 * changed (one stat per request), so a revoke or an expiry applies at once.
 * The rules themselves are in token-rules.ts.
 */
import { randomBytes } from 'node:crypto';
import { eventBy, type Author } from '../board/author.js';
import type { Board } from '../board/board.js';
import type { CommitEvent, CommitReads, StateRecord } from '../board/commit.js';
import { BoardError } from '../board/errors.js';
import { TOKENS_FILE, WORK_FILE } from '../board/layout.js';
import { manifestFrom } from '../board/manifest.js';
import type { WorkState } from '../board/state.js';
import type { BoardStore } from '../board/store.js';
import { sha256Hex } from '../core/hash.js';
import { resolveActor } from './identity.js';
import {
  DEFAULT_EXPIRY,
  expiryFrom,
  findToken,
  infoOf,
  labelProblem,
  lifetimeOf,
  matchToken,
  parseTokens,
  serializeTokens,
  TOKEN_PREFIX,
  useIsNews,
  type Presented,
  type StoredToken,
  type TokenInfo,
} from './token-rules.js';

export { TOKENS_FILE };

const newSecret = () => `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
const newId = () => `t-${randomBytes(6).toString('hex')}`;

function parsed(text: string | null): StoredToken[] {
  try {
    return parseTokens(text);
  } catch (e) {
    throw new BoardError('corrupt', `${TOKENS_FILE} is damaged (${e instanceof Error ? e.message : String(e)}); nothing was changed: mend or remove it (removing it ends every token)`);
  }
}

/** What a change to the list decides: the new list, its answer, and the audit event it makes (none for a last-used minute). */
interface TokensChange<T> {
  tokens: StoredToken[];
  value: T;
  event?: CommitEvent;
}

/** Read, change and write the list in one board commit, under the board's lock. */
async function commitTokens<T>(store: BoardStore, change: (tokens: StoredToken[], reads: CommitReads) => Promise<TokensChange<T>> | TokensChange<T>): Promise<T> {
  const { value } = await store.apply({ kind: 'board' }, async (reads) => {
    const next = await change(parsed(await reads.readState(TOKENS_FILE)), reads);
    return { value: next.value, commit: { files: [], state: [tokensRecord(next.tokens)], events: next.event ? [next.event] : [] } };
  });
  return value;
}

const tokensRecord = (tokens: StoredToken[]): StateRecord => ({ rel: TOKENS_FILE, bytes: serializeTokens(tokens) });

function refuse(message: string, path: string): never {
  throw new BoardError('invalid', message, [{ path, message }]);
}

export interface MadeToken {
  id: string;
  name: string | null;
  identity: string;
  expiresAt: string;
  /** The secret: shown once, never stored. */
  token: string;
}

/** Make a token for an identity WORK.md declares (checked under the lock). The secret is returned once. */
export async function createToken(store: BoardStore, identity: string, now: Date, opts: { expires?: string; name?: string; by?: Author } = {}): Promise<MadeToken> {
  return commitTokens(store, async (tokens, reads) => {
    const work = await reads.read(WORK_FILE);
    const who = work ? resolveActor(manifestFrom(work), identity) : { ok: false as const, message: `${WORK_FILE} is missing` };
    const expiry = expiryFrom(opts.expires ?? DEFAULT_EXPIRY, now);
    const problems = [
      ...(who.ok ? [] : [{ path: 'identity', message: who.message }]),
      ...(expiry.ok ? [] : [{ path: 'expires', message: expiry.message }]),
      ...(opts.name !== undefined ? [labelProblem(tokens, opts.name)].filter((m): m is string => m !== null).map((message) => ({ path: 'name', message })) : []),
    ];
    if (problems.length > 0 || !expiry.ok || !who.ok) throw new BoardError('invalid', `cannot create a token: ${problems.map((p) => p.message).join('; ')}`, problems);
    // The identity as WORK.md spells it, so a token for MIRA@example.com stands for mira@example.com.
    const canonical = who.actor.kind === 'agent' ? who.actor.id : who.actor.email;
    const token = newSecret();
    const stored: StoredToken = { id: newId(), name: opts.name ?? null, identity: canonical, createdAt: now.toISOString(), expiresAt: expiry.expiresAt, lastUsedAt: null, sha256: sha256Hex(token) };
    const made = { id: stored.id, name: stored.name, identity: canonical, expiresAt: expiry.expiresAt, token };
    const event = eventBy(opts.by ?? { actor: 'coordinator', osUser: null }, 'token.created', `token ${made.id}`, { id: made.id, name: made.name, identity: made.identity, expiresAt: made.expiresAt });
    return { tokens: [...tokens, stored], value: made, event };
  });
}

/** Every token, without its hash, oldest first. Lock-free: the file is only ever replaced whole. */
export async function listTokens(state: WorkState): Promise<TokenInfo[]> {
  return parsed(await state.readText(TOKENS_FILE)).map(infoOf);
}

/** End a token at once, named by id or label. */
export async function revokeToken(store: BoardStore, ref: string, by: Author): Promise<TokenInfo> {
  return commitTokens(store, (tokens) => {
    const f = findToken(tokens, ref);
    if (!f.ok) refuse(f.message, 'token');
    const gone = infoOf(f.token);
    return { tokens: tokens.filter((t) => t.id !== gone.id), value: gone, event: eventBy(by, 'token.revoked', `token ${gone.id}`, { id: gone.id, name: gone.name, identity: gone.identity }) };
  });
}

/** Replace a token's secret: the old one stops working at once; the new one lives as long as the old one did, or `expires`. */
export async function rotateToken(store: BoardStore, ref: string, now: Date, opts: { expires?: string; by: Author }): Promise<MadeToken> {
  return commitTokens(store, (tokens) => {
    const f = findToken(tokens, ref);
    if (!f.ok) refuse(f.message, 'token');
    const expiry = expiryFrom(opts.expires ?? lifetimeOf(f.token), now);
    if (!expiry.ok) refuse(expiry.message, 'expires');
    const token = newSecret();
    const next: StoredToken = { ...f.token, createdAt: now.toISOString(), expiresAt: expiry.expiresAt, lastUsedAt: null, sha256: sha256Hex(token) };
    const made = { id: next.id, name: next.name, identity: next.identity, expiresAt: expiry.expiresAt, token };
    const event = eventBy(opts.by, 'token.rotated', `token ${made.id}`, { id: made.id, name: made.name, identity: made.identity, expiresAt: made.expiresAt });
    return { tokens: tokens.map((t) => (t.id === next.id ? next : t)), value: made, event };
  });
}

/**
 * For a commit that removes or renames an identity: the tokens file with its
 * tokens ended (`to` null) or moved to its new name, and the ids touched.
 */
export async function retargetTokens(reads: CommitReads, identity: string, to: string | null): Promise<{ record: StateRecord; ids: string[] }> {
  const tokens = parsed(await reads.readState(TOKENS_FILE));
  const same = (t: StoredToken) => t.identity.toLowerCase() === identity.toLowerCase();
  return {
    record: tokensRecord(to === null ? tokens.filter((t) => !same(t)) : tokens.map((t) => (same(t) ? { ...t, identity: to } : t))),
    ids: tokens.filter(same).map((t) => t.id),
  };
}

/**
 * What a server checks a presented bearer token against: the file as it is
 * now (re-read when its inode, size or mtime moved). A use is written down in
 * the background at most once a minute per token; a failure to write it never
 * fails the request.
 */
export class BearerTokens {
  private seen = '';
  private tokens: StoredToken[] = [];
  /** Token ids whose last-used write is under way in this process. */
  private readonly touching = new Set<string>();

  constructor(private readonly board: Pick<Board, 'store' | 'state'>) {}

  check(secret: string, now: Date): Presented {
    const p = matchToken(this.current(), sha256Hex(secret), now);
    if (p.ok && useIsNews(p.token, now) && !this.touching.has(p.token.id)) void this.touch(p.token.id, now);
    return p;
  }

  private current(): StoredToken[] {
    const stamp = this.board.state.stamp(TOKENS_FILE);
    if (stamp !== this.seen) {
      try {
        this.tokens = parseTokens(stamp === '' ? null : this.board.state.readTextNow(TOKENS_FILE));
      } catch {
        this.tokens = []; // a damaged file lets no one in (fail closed) until it is mended
      }
      this.seen = stamp;
    }
    return this.tokens;
  }

  private async touch(id: string, now: Date): Promise<void> {
    this.touching.add(id);
    try {
      await commitTokens(this.board.store, (tokens) => ({ tokens: tokens.map((t) => (t.id === id && useIsNews(t, now) ? { ...t, lastUsedAt: now.toISOString() } : t)), value: undefined }));
    } catch {
      // Only the last-used minute is lost; the next use tries again.
    } finally {
      this.touching.delete(id);
    }
  }
}

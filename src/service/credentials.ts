/**
 * Bearer tokens for HTTP MCP. A token is made by a command, shown once, and
 * only its SHA-256 is kept, in `.work/tokens.json` (never in the board, never
 * committed). Each token names one identity declared in WORK.md.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readIfExists, writeFileAtomic } from '../board/fsutil.js';
import { STATE_DIR } from '../board/layout.js';
import type { BoardStore } from '../board/store.js';
import { sha256Hex } from '../core/hash.js';

const FILE = `${STATE_DIR}/tokens.json`;

interface Stored {
  id: string;
  identity: string;
  sha256: string;
  createdAt: string;
}

async function load(store: BoardStore): Promise<Stored[]> {
  const raw = await readIfExists(store.abs(FILE));
  if (!raw) return [];
  try {
    const v = JSON.parse(raw.toString('utf8')) as { tokens?: Stored[] };
    return Array.isArray(v.tokens) ? v.tokens : [];
  } catch {
    return [];
  }
}

/** Make a token for an identity; the secret is returned once and never stored. */
export async function createToken(store: BoardStore, identity: string, now: Date): Promise<{ id: string; token: string }> {
  const id = `t-${randomBytes(6).toString('hex')}`;
  const token = `wb_${randomBytes(32).toString('base64url')}`;
  const tokens = await load(store);
  tokens.push({ id, identity, sha256: sha256Hex(token), createdAt: now.toISOString() });
  await writeFileAtomic(store.abs(FILE), `${JSON.stringify({ tokens }, null, 2)}\n`);
  return { id, token };
}

/** The identity a presented token stands for, or null. */
export async function identityFor(store: BoardStore, token: string): Promise<string | null> {
  const want = Buffer.from(sha256Hex(token), 'hex');
  for (const t of await load(store)) {
    const have = Buffer.from(t.sha256, 'hex');
    if (have.length === want.length && timingSafeEqual(have, want)) return t.identity;
  }
  return null;
}

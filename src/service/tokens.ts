/**
 * Claim tokens: opaque and unforgeable (docs/agents.md "Claim tokens"). A token is
 * `base64url(JSON{r,s,c,e,a}).base64url(HMAC-SHA256)` (run, step, claim, expiry, agent) under a secret kept in
 * `.work/secret`, compared in constant time. Whether it is still *current* is
 * the lease's business: a token that verifies but names an ended or replaced
 * lease is `stale`; one that does not verify at all is `invalid`.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SECRET_FILE } from '../board/layout.js';
import type { WorkState } from '../board/state.js';

export interface TokenClaims {
  runId: string;
  stepId: string;
  claimId: string;
  expiresAt: string;
  /** The agent that claimed: a token is used by that identity alone. Absent in tokens signed before it was bound. */
  agent?: string;
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export class TokenKey {
  private constructor(private readonly secret: Buffer) {}

  /** The board's token secret, created once with O_EXCL so concurrent coordinators agree on it. */
  static async load(state: WorkState): Promise<TokenKey> {
    for (;;) {
      const existing = await state.read(SECRET_FILE);
      if (existing !== null && existing.length >= 32) return new TokenKey(existing);
      if (existing !== null) {
        await new Promise((r) => setTimeout(r, 5)); // another coordinator is writing it
        continue;
      }
      const secret = randomBytes(32);
      if (await state.create(SECRET_FILE, secret, { mode: 0o600 })) return new TokenKey(secret);
    }
  }

  sign(c: TokenClaims): string {
    const body = b64(JSON.stringify({ r: c.runId, s: c.stepId, c: c.claimId, e: c.expiresAt, ...(c.agent !== undefined ? { a: c.agent } : {}) }));
    return `${body}.${b64(this.mac(body))}`;
  }

  /** The claims of a token this board signed, or null for anything else. */
  verify(token: unknown): TokenClaims | null {
    if (typeof token !== 'string' || token.length > 2048) return null;
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) return null;
    const body = token.slice(0, dot);
    // Compared as text: base64url decoding forgives stray characters and spare low bits,
    // so a decoded comparison would accept altered spellings of the same signature.
    const sig = Buffer.from(token.slice(dot + 1), 'utf8');
    const want = Buffer.from(b64(this.mac(body)), 'utf8');
    if (sig.length !== want.length || !timingSafeEqual(sig, want)) return null;
    try {
      const v = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
      if (typeof v.r !== 'string' || typeof v.s !== 'string' || typeof v.c !== 'string' || typeof v.e !== 'string') return null;
      if (v.a !== undefined && typeof v.a !== 'string') return null;
      return { runId: v.r, stepId: v.s, claimId: v.c, expiresAt: v.e, ...(typeof v.a === 'string' ? { agent: v.a } : {}) };
    } catch {
      return null;
    }
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.secret).update(body).digest();
  }
}

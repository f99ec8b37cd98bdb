/**
 * The guard every state-changing web request passes, in process on a real
 * socket: with a session cookie, a POST must come from our own origin and
 * carry that session's own CSRF token (a missing one, a wrong one of the
 * right length, another session's are refused with nothing done); a person's
 * bearer token carries no ambient authority, so it needs neither. Signing out
 * is the state change watched: a refused POST leaves the session alive.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/service/credentials.js';
import { cookieName, csrfToken } from '../../src/web/security.js';
import { createLoginLink, redeemCode, sessionFor } from '../../src/web/sessions.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { inProcessWeb } from './http-support.js';

const CONFIG = { publicOrigin: null, secure: false };

let h: Harness;
let origin: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  h = await Harness.open({});
  ({ origin, close } = await inProcessWeb(h.service, CONFIG));
});

afterAll(async () => {
  await close?.();
  await cleanupHarnesses();
});

/** A fresh session for `email`, as a sign-in link would give it: the cookie's secret. */
async function session(email: string): Promise<string> {
  const code = new URL(await createLoginLink(h.board, email, origin)).searchParams.get('code')!;
  return (await redeemCode(h.board, code))!.token;
}

async function signOut(headers: Record<string, string>, fields: Record<string, string>): Promise<number> {
  const res = await fetch(`${origin}/signout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}

const alive = async (token: string) => (await sessionFor(h.board, token)) !== null;

describe('the POST guard', () => {
  it('with a session cookie: refuses a missing token, a wrong one of the right length, another session’s; takes its own', async () => {
    const mine = await session(CAST.ann);
    const other = await session(CAST.ann);
    const cookie = { cookie: `${cookieName(CONFIG)}=${mine}`, origin };
    const forged = randomBytes(32).toString('base64url');
    expect(forged.length).toBe(csrfToken(mine).length);

    expect(await signOut(cookie, {})).toBe(403);
    expect(await signOut(cookie, { csrf: '' })).toBe(403);
    expect(await signOut(cookie, { csrf: forged })).toBe(403);
    expect(await signOut(cookie, { csrf: csrfToken(other) })).toBe(403);
    expect(await signOut(cookie, { csrf: csrfToken(mine).slice(0, -1) })).toBe(403);
    expect(await alive(mine)).toBe(true);

    // Its own token, but posted from another site's page: refused too.
    expect(await signOut({ ...cookie, origin: 'https://elsewhere.example' }, { csrf: csrfToken(mine) })).toBe(403);
    expect(await alive(mine)).toBe(true);

    expect(await signOut(cookie, { csrf: csrfToken(mine) })).toBe(303);
    expect(await alive(mine)).toBe(false);
    expect(await alive(other)).toBe(true);
  });

  it('with a person’s bearer token: no CSRF token and no Origin are needed (a browser never sends the header on its own)', async () => {
    const { token } = await createToken(h.board.store, CAST.ann, new Date());
    expect(await signOut({ authorization: `Bearer ${token}` }, {})).toBe(303);
    // Nobody signed in: refused as not signed in, not let through.
    expect(await signOut({ authorization: 'Bearer wb_not_a_token' }, {})).toBe(401);
  });
});

/**
 * What keeps the web app's pages and forms safe: the response headers (a
 * strict Content-Security-Policy with no inline script, no framing, no
 * referrer beyond our own pages), the session cookie's attributes, the per-session CSRF token
 * every form carries, and the `Origin` check on every state-changing request.
 * Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { WebConfig } from './config.js';

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_HEADERS: OutgoingHttpHeaders = {
  'content-security-policy': CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on its own form posts.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function cookieName(c: WebConfig): string {
  // The __Host- prefix makes the browser refuse the cookie unless it is Secure, host-only and for all paths.
  return c.secure ? '__Host-wb_session' : 'wb_session';
}

export function sessionCookie(c: WebConfig, token: string, maxAgeSeconds: number): string {
  return `${cookieName(c)}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${c.secure ? '; Secure' : ''}`;
}

export function clearedCookie(c: WebConfig): string {
  return `${cookieName(c)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${c.secure ? '; Secure' : ''}`;
}

/** The cookie that remembers, for a signed-out visitor, the page to land on after sign-in. */
export const NEXT_COOKIE = 'wb_next';

/** A page of ours worth coming back to (no other site, no odd characters), or null. */
export function safeNext(path: string | undefined): string | null {
  if (path === undefined) return null;
  return /^\/(work|runs|processes|operators)(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*(\?[A-Za-z0-9=&%._+-]*)?$/.test(path) ? path : null;
}

export function nextCookie(c: WebConfig, path: string | null): string {
  const value = path === null ? '' : encodeURIComponent(path);
  return `${NEXT_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${path === null ? 0 : 1800}${c.secure ? '; Secure' : ''}`;
}

/**
 * The cookie a signed-out visitor's anonymous forms are tied to (asking for a
 * sign-in link): a random secret whose csrfToken the form carries, so another
 * site can post it no more than a signed-in form. __Host- over https, so no
 * other host can plant one.
 */
export function preSessionCookieName(c: WebConfig): string {
  return c.secure ? '__Host-wb_pre' : 'wb_pre';
}

export function preSessionCookie(c: WebConfig, secret: string): string {
  return `${preSessionCookieName(c)}=${secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400${c.secure ? '; Secure' : ''}`;
}

/** The CSRF token of a session: derived from its secret, so nothing more is stored and it dies with the session. */
export function csrfToken(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('workboard web csrf').digest('base64url');
}

export function csrfOk(sessionToken: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const want = Buffer.from(csrfToken(sessionToken));
  const got = Buffer.from(presented);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** The origin this app is served at: the configured public one, else the request's own Host over http. */
export function expectedOrigin(c: WebConfig, headers: IncomingHttpHeaders): string | null {
  if (c.publicOrigin) return c.publicOrigin;
  return headers.host ? `http://${headers.host}` : null;
}

/**
 * A state-changing request must say it comes from our own pages: its
 * `Origin` (or, when a browser sends none, its `Referer`) is this app's origin.
 */
export function originOk(c: WebConfig, headers: IncomingHttpHeaders): boolean {
  const want = expectedOrigin(c, headers);
  if (want === null) return false;
  const origin = headers.origin;
  if (origin !== undefined) return origin === want;
  const referer = headers.referer;
  if (referer === undefined) return false;
  try {
    return new URL(referer).origin === want;
  } catch {
    return false;
  }
}

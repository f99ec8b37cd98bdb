/**
 * `/signin` and the signed-out page: a single-use link's page and its
 * "Sign in as …" POST, and, where the board sends email, the form that asks
 * for a link. That form is anonymous, so it passes the Origin check and a
 * pre-session CSRF token (security.ts), and its answer is the same page,
 * words and status whoever the address belongs to: the ask is handed to
 * the mailer, which does everything else after the answer is sent, on a
 * thread of its own.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { h } from 'preact';
import type { ServedBoard as Board } from '../service/web-board.js';
import { trustedProxies } from '../core/client-address.js';
import type { WebConfig } from './config.js';
import { SIGNIN_FORM } from './form-limits.js';
import { first, type Posted } from './form-values.js';
import type { Frame } from './pages/layout.js';
import { SignInHelp, SignInPage, type AskForLink } from './pages/signin.js';
import { cookies, readForm } from './request.js';
import { redirect, sendPage } from './respond.js';
import { csrfOk, csrfToken, NEXT_COOKIE, nextCookie, originOk, preSessionCookie, preSessionCookieName, safeNext, sessionCookie } from './security.js';
import { SESSION_ABSOLUTE_MS } from './session-rules.js';
import { peekCode, redeemCode } from './sessions.js';
import { addressProblem, emailConfigured, normaliseAddress, recipientFor } from './signin-email.js';
import { SignInMailer } from './signin-mailer.js';
import { SignInThrottle, type Asker } from './signin-throttle.js';

/** What the signed-out page says besides its form. */
interface HelpSays {
  problem?: string;
  status?: 'out';
  next?: string;
}

const PRE_SESSION = /^[A-Za-z0-9_-]{43}$/;

export class SignIn {
  private readonly failures: SignInThrottle;
  private readonly mailer: SignInMailer;

  constructor(
    private readonly board: Board,
    private readonly config: WebConfig,
    private readonly frame: (title: string) => Frame,
    log: (line: string) => void,
  ) {
    const trusted = trustedProxies();
    this.failures = new SignInThrottle(trusted);
    this.mailer = new SignInMailer(board.root, log);
  }

  /** End the mailer's thread once it has dealt with the asks it has. */
  close(): void {
    this.mailer.close();
  }

  /**
   * The signed-out page with `status`: where the board sends email, with the
   * form that asks for a link, tied to this browser's pre-session cookie
   * (made here when it has none).
   */
  async help(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    says: HelpSays,
    ask: Omit<AskForLink, 'csrf'> = {},
    extra: { cookies?: string[]; headers?: Record<string, string> } = {},
  ): Promise<void> {
    await this.board.refresh();
    const headers = (set: string[]) => ({ ...extra.headers, ...(set.length ? { 'set-cookie': set } : {}) });
    if (!emailConfigured(this.board.manifest)) return sendPage(res, status, h(SignInHelp, { frame: this.frame('Sign in'), board: this.board.manifest.title, ...says }), headers(extra.cookies ?? []));
    const had = cookies(req).get(preSessionCookieName(this.config));
    const pre = had !== undefined && PRE_SESSION.test(had) ? had : randomBytes(32).toString('base64url');
    const set = pre === had ? (extra.cookies ?? []) : [...(extra.cookies ?? []), preSessionCookie(this.config, pre)];
    return sendPage(res, status, h(SignInHelp, { frame: this.frame('Sign in'), board: this.board.manifest.title, ...says, ask: { ...ask, csrf: csrfToken(pre) } }), headers(set));
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const who: Asker = { peer: req.socket.remoteAddress ?? '', forwardedFor: req.headers['x-forwarded-for'] };
    if (req.method === 'GET') {
      const code = url.searchParams.get('code');
      const next = safeNext(url.searchParams.get('next') ?? undefined) ?? undefined;
      if (!code) return this.help(req, res, 200, { ...(url.searchParams.get('out') ? { status: 'out' as const } : {}), ...this.nextOf(safeNext(cookies(req).get(NEXT_COOKIE))) });
      const wait = this.failures.waitMs(who, code);
      if (wait > 0) return this.slowed(req, res, wait, next);
      const email = await peekCode(this.board, code);
      if (!email) {
        this.failures.failed(who, code);
        return this.badLink(req, res, next);
      }
      await this.board.refresh();
      const name = recipientFor(this.board.manifest, email)?.name;
      return sendPage(res, 200, h(SignInPage, { frame: this.frame('Sign in'), code, email, ...(name ? { name } : {}), ...this.nextOf(next ?? null) }));
    }
    if (!originOk(this.config, req.headers)) return this.help(req, res, 403, { problem: 'The request did not come from this site.' });
    const posted = (await readForm(req, SIGNIN_FORM)).fields;
    if (!posted.has('code')) return this.askForLink(req, res, who, posted);
    const code = first(posted, 'code') ?? '';
    const next = safeNext(first(posted, 'next')) ?? undefined;
    const wait = this.failures.waitMs(who, code);
    if (wait > 0) return this.slowed(req, res, wait, next);
    const got = code ? await redeemCode(this.board, code) : null;
    if (!got) {
      this.failures.failed(who, code);
      return this.badLink(req, res, next);
    }
    // Back to the page the email link or a notification's link asked for, else their work.
    const landing = next ?? safeNext(cookies(req).get(NEXT_COOKIE)) ?? '/work';
    return redirect(res, landing, { 'set-cookie': [sessionCookie(this.config, got.token, Math.floor(SESSION_ABSOLUTE_MS / 1000)), nextCookie(this.config, null)] });
  }

  /**
   * The form that asks for a link by email. Up to the answer, the work is the
   * same for every address: the form read and checked, the ask handed over.
   */
  private async askForLink(req: IncomingMessage, res: ServerResponse, who: Asker, posted: Posted): Promise<void> {
    await this.board.refresh();
    if (!emailConfigured(this.board.manifest)) return this.help(req, res, 400, { problem: 'This board does not send sign-in links by email.' });
    const next = safeNext(first(posted, 'next'));
    const pre = cookies(req).get(preSessionCookieName(this.config));
    if (pre === undefined || !csrfOk(pre, first(posted, 'csrf'))) {
      return this.help(req, res, 403, { problem: 'The form was out of date, so nothing was sent. Ask again below.', ...this.nextOf(next) });
    }
    const address = normaliseAddress(first(posted, 'address') ?? '');
    const problem = addressProblem(address);
    if (problem !== null) return this.help(req, res, 400, this.nextOf(next), { addressProblem: problem });
    this.mailer.ask({ address, next, who });
    return this.help(req, res, 200, this.nextOf(next), { sentTo: address });
  }

  private nextOf(next: string | null): { next?: string } {
    return next ? { next } : {};
  }

  private badLink(req: IncomingMessage, res: ServerResponse, next: string | undefined): Promise<void> {
    return this.help(req, res, 400, { problem: 'This link is used, expired or not one of ours. Ask for a new one.', ...this.nextOf(next ?? null) });
  }

  /** A code that keeps failing, or a trusted client that does, is answered 429 before the code is looked up. */
  private slowed(req: IncomingMessage, res: ServerResponse, wait: number, next: string | undefined): Promise<void> {
    const s = Math.ceil(wait / 1000);
    const problem = `Too many failed sign-in attempts. Wait ${Math.ceil(s / 60)} minute(s), then use a fresh link.`;
    return this.help(req, res, 429, { problem, ...this.nextOf(next ?? null) }, {}, { headers: { 'retry-after': String(s) } });
  }
}

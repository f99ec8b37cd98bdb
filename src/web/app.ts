/**
 * The people's web app, mounted by the HTTP server at `/` beside `/mcp`:
 * who is asking (a session cookie, or a person's bearer token), the checks
 * every state-changing request passes (Origin, then the per-session CSRF
 * token), sign-in and sign-out, and which handler answers each path. Pages
 * are built from the same service calls as MCP, as the signed-in person.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { h } from 'preact';
import type { Actor } from '../engine/types.js';
import { BearerTokens } from '../service/credentials.js';
import { resolveActor } from '../service/identity.js';
import type { Service } from '../service/service.js';
import { BoundedMap } from '../core/bounded-map.js';
import { Assets } from './assets.js';
import { webConfig, type WebConfig } from './config.js';
import { first } from './form-values.js';
import { Live } from './live.js';
import type { Frame, Me } from './pages/layout.js';
import { MessagePage } from './pages/message.js';
import { BadForm, FormTooLarge, cookies, readForm, requestUrl, type PostedForm } from './request.js';
import { formLimits } from './form-limits.js';
import { SignIn } from './signin.js';
import { redirect, sendPage, type AppParts, type Request } from './respond.js';
import { routes } from './routes.js';
import { clearedCookie, cookieName, csrfOk, csrfToken, nextCookie, originOk, safeNext } from './security.js';
import { endSession, sessionFor } from './sessions.js';

type Person = Extract<Actor, { kind: 'person' }>;

export interface WebApp {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** End the live streams, so the server can close. */
  close(): void;
}

const logLine = (line: string) => void process.stdout.write(`${new Date().toISOString()} ${line}\n`);

export function createWebApp(service: Service, opts: { config?: WebConfig; log?: (line: string) => void } = {}): WebApp {
  const config = opts.config ?? webConfig();
  const parts: AppParts = { service, config, assets: new Assets(), seen: new BoundedMap(1000) };
  const live = new Live(service.board);
  const board = service.board;
  const tokens = new BearerTokens(board);
  const anon = (title: string): Frame => ({ title, me: null, assetVersion: parts.assets.version });
  const signIn = new SignIn(board, config, anon, opts.log ?? logLine);

  /** The person asking, from their session cookie or bearer token; null when neither stands for a person. */
  async function identify(req: IncomingMessage): Promise<{ actor: Person; session: string | null } | null> {
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    let name: string | null = null;
    let session: string | null = null;
    if (bearer) {
      const t = tokens.check(bearer[1]!, new Date());
      if (t.ok) name = t.token.identity;
    } else {
      const c = cookies(req).get(cookieName(config));
      const s = c ? await sessionFor(board, c) : null;
      if (s) [name, session] = [s.email, c!];
    }
    if (name === null) return null;
    await board.refresh();
    const who = resolveActor(board.manifest, name);
    return who.ok && who.actor.kind === 'person' ? { actor: who.actor, session } : null;
  }

  function meOf(actor: Person, session: string | null): Me {
    const p = board.manifest.people.find((x) => x.email.toLowerCase() === actor.email.toLowerCase());
    return { email: actor.email, ...(p?.name ? { name: p.name } : {}), operator: actor.operator, csrf: session ? csrfToken(session) : '' };
  }

  const form = (req: IncomingMessage): Promise<PostedForm> => readForm(req, formLimits(board.manifest.settings));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req);
    if (url === null) return sendPage(res, 400, h(MessagePage, { frame: anon('Bad request'), title: 'Bad request' }, h('p', null, 'The address asked for is not one this site has.')));
    const path = url.pathname;
    if (req.method === 'GET' && path.startsWith('/assets/')) {
      if (!parts.assets.serve(path.slice('/assets/'.length), url.searchParams.get('v'), req.headers['if-none-match'], res))
        sendPage(res, 404, h(MessagePage, { frame: anon('Not found'), title: 'Not found' }));
      return;
    }
    if (path === '/favicon.ico') {
      res.writeHead(204, { 'cache-control': 'public, max-age=86400' });
      return void res.end();
    }
    if (path === '/signin') return signIn.handle(req, res, url);
    const who = await identify(req);
    if (!who) {
      if (req.method === 'GET') {
        const next = safeNext(`${path}${url.search}`);
        return signIn.help(req, res, 401, next ? { next } : {}, {}, next ? { cookies: [nextCookie(config, next)] } : {});
      }
      return signIn.help(req, res, 401, { problem: 'You are not signed in (or your session ended), so nothing was done.' });
    }
    const r: Request = { req, res, url, actor: who.actor, me: meOf(who.actor, who.session), app: parts };
    if (req.method === 'POST') {
      // A session cookie rides along on any site's request: such a request must come from our own pages.
      if (who.session !== null && !originOk(config, req.headers))
        return sendPage(
          res,
          403,
          h(MessagePage, { frame: anon('Refused'), title: 'Refused: not from this site' }, h('p', null, 'The form was not sent from a page of this site, so nothing was done.')),
        );
      const posted = await form(req);
      if (who.session !== null && !csrfOk(who.session, first(posted.fields, 'csrf')))
        return sendPage(res, 403, h(MessagePage, { frame: anon('Refused'), title: 'Refused: the form is out of date' }, h('p', null, 'Reload the page and try again; nothing was done.')));
      if (path === '/signout') {
        if (who.session) await endSession(board, who.session);
        return redirect(res, '/signin?out=1', { 'set-cookie': clearedCookie(config) });
      }
      return routes.post(r, posted);
    }
    if (path === '/events') return live.stream(r);
    return routes.get(r);
  }

  return {
    async handle(req, res) {
      try {
        await handle(req, res);
      } catch (e) {
        if (res.headersSent) return void res.destroy();
        if (e instanceof FormTooLarge) return sendPage(res, 413, h(MessagePage, { frame: anon('Too large'), title: 'Too large' }, h('p', null, `${e.message}; nothing was done.`)));
        if (e instanceof BadForm) return sendPage(res, 400, h(MessagePage, { frame: anon('Bad request'), title: 'Bad request' }, h('p', null, `${e.message}; nothing was done.`)));
        sendPage(res, 500, h(MessagePage, { frame: anon('Error'), title: 'Something went wrong' }, h('p', null, e instanceof Error ? e.message : 'internal error')));
      }
    },
    close: () => {
      live.close();
      signIn.close();
    },
  };
}

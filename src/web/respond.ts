/** Writing answers: whole HTML pages with the security headers, map images, redirects, and the per-request context handlers share. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { VNode } from 'preact';
import { render } from 'preact-render-to-string';
import type { Actor } from '../engine/types.js';
import type { Service } from '../service/service.js';
import type { Tool } from '../protocol/offer.js';
import type { ToolArgs } from '../protocol/tool-args.js';
import type { Result, ToolData } from '../protocol/tool-data.js';
import type { Assets } from './assets.js';
import type { WebConfig } from './config.js';
import { Live } from './live.js';
import type { Frame, Me } from './pages/layout.js';
import { PAGE_HEADERS } from './security.js';

/** What every handler is given: the app's parts and this request's signed-in person. */
export interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  actor: Extract<Actor, { kind: 'person' }>;
  me: Me;
  app: AppParts;
}

export interface AppParts {
  service: Service;
  config: WebConfig;
  assets: Assets;
  /** Run data by the snapshot a page showed, so a stale decision can say what changed since. */
  seen: Map<string, unknown>;
}

export function frame(r: Pick<Request, 'me' | 'app'>, title: string, extra: Partial<Frame> = {}): Frame {
  const words = { people: r.app.service.board.manifest.people, now: new Date().toISOString(), timeZone: r.app.service.board.manifest.notifications.timeZone };
  return { title, me: r.me, assetVersion: r.app.assets.version, words, ...(extra.live ? { liveFrom: Live.offset(r.app.service.board) } : {}), ...extra };
}

/** How long a connection whose body was left unread stays open after the answer, for the client to read it. */
const LINGER_MS = 1000;

/**
 * An answer given before the request's body was read whole (a refusal): the
 * rest is not read, and the connection is closed LINGER_MS after the answer
 * unless the client closes it first. Closing at once, with bytes unread,
 * resets the connection, which can erase the answer before the client reads it.
 */
function lingerIfUnread(res: ServerResponse): void {
  const req = res.req;
  if (req.complete) return;
  res.once('finish', () => {
    req.pause();
    setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- preact's VNode is invariant in its props, and any page is sent the same way
export function sendPage(res: ServerResponse, status: number, page: VNode<any>, headers: Record<string, string | string[]> = {}): void {
  const html = `<!doctype html>${render(page)}`;
  lingerIfUnread(res);
  res.writeHead(status, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html), ...headers });
  res.end(html);
}

export function redirect(res: ServerResponse, to: string, headers: Record<string, string | string[]> = {}): void {
  lingerIfUnread(res);
  res.writeHead(303, { ...PAGE_HEADERS, location: to, 'content-length': 0, ...headers });
  res.end();
}

/** A map as an image of its own: its styles live inside the SVG, which the pages' CSP would block inline. */
export function sendSvg(res: ServerResponse, svg: string): void {
  res.writeHead(200, {
    'content-type': 'image/svg+xml; charset=utf-8',
    'content-length': Buffer.byteLength(svg),
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-store',
  });
  res.end(svg);
}

/** A tool call as the signed-in person: the service decides every right. */
export function call<T extends Tool>(r: Pick<Request, 'app' | 'actor'>, tool: T, args: ToolArgs[T]): Promise<Result<ToolData[T]>> {
  return r.app.service.call(tool, args, r.actor, 'web');
}

/** The HTTP status a refusal's code answers with. */
export function statusFor(code: string): number {
  return code === 'not_found' ? 404 : code === 'forbidden' ? 403 : code === 'conflict' || code === 'stale' ? 409 : code === 'retry' ? 503 : 422;
}

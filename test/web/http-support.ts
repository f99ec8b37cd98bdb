/**
 * For web tests that speak plain HTTP to a real `serve --http`, or to the web
 * app in process on a real socket (no browser):
 * signing in with a real login link, pages fetched with a cookie, and
 * bodies streamed on a raw socket until the server answers.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { Service } from '../../src/service/service.js';
import { createWebApp } from '../../src/web/app.js';
import type { Board } from '../../src/board/board.js';
import { cookieName } from '../../src/web/security.js';
import { createLoginLink, redeemCode } from '../../src/web/sessions.js';
import type { WebBoard } from './web-support.js';
import { CAST, cleanupHarnesses, Harness, type BoardSpec } from '../support/svc-harness.js';

/** The web app over a service in this process, on a real loopback socket: its origin, and how to close it. */
export async function inProcessWeb(service: Service, config = { publicOrigin: null, secure: false }): Promise<{ origin: string; close: () => Promise<void> }> {
  const web = createWebApp(service, { config, log: () => {} });
  const server = http.createServer((req, res) => void web.handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      web.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A session token for `who` on a board served in process, from a real login link redeemed as /signin does. */
export async function sessionToken(board: Board, who: string, origin: string): Promise<string> {
  const code = new URL(await createLoginLink(board, who, origin)).searchParams.get('code')!;
  return (await redeemCode(board, code))!.token;
}

/** A session cookie (`wb_session=…`) for `who`, from a real login link posted to /signin. */
export async function sessionCookie(wb: WebBoard, who: string, headers: Record<string, string> = {}): Promise<string> {
  const code = new URL(await createLoginLink(wb.board, who, wb.base)).searchParams.get('code')!;
  const res = await fetch(`${wb.base}/signin`, { method: 'POST', redirect: 'manual', headers: { origin: wb.base, ...headers }, body: new URLSearchParams({ code }) });
  const set = res.headers.get('set-cookie') ?? '';
  const m = /(wb_session=[^;]+)/.exec(set);
  if (res.status !== 303 || !m) throw new Error(`sign-in as ${who} answered ${res.status}`);
  return m[1]!;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One request on its own socket; resolves with the answer, whatever the server did with the rest of the body. */
export function request(base: string, method: string, path: string, headers: Record<string, string | number>, body?: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    // The server may answer and close while the body is still being sent.
    req.on('error', (e) => answered || reject(e));
    req.end(body);
  });
}

/**
 * A chunked body of up to `total` bytes, written on a raw socket chunk by
 * chunk until the server answers: the answer's status line and headers, and
 * how many bytes had been written when it came.
 */
export function streamed(base: string, path: string, headers: Record<string, string>, total: number, chunk: (i: number) => Buffer): Promise<{ status: number; head: string; sent: number }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let got = '';
    let sent = 0;
    let answered = false;
    socket.on('error', () => {}); // the server may close while we still send: that is the point
    socket.on('data', (d) => {
      got += String(d);
      const end = got.indexOf('\r\n\r\n');
      if (answered || end < 0) return;
      answered = true;
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1]), head: got.slice(0, end), sent });
    });
    socket.once('close', () => answered || reject(new Error(`closed with no answer after ${sent} bytes`)));
    const lines = Object.entries({ host: `${hostname}:${port}`, 'transfer-encoding': 'chunked', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
    let i = 0;
    const pump = () => {
      while (!answered && sent < total) {
        const c = chunk(i++);
        sent += c.length;
        if (!socket.write(Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]))) return void socket.once('drain', pump);
      }
      if (!answered) socket.write('0\r\n\r\n');
    };
    pump();
  });
}

/** A page of the in-process web app as `email` sees it once signed in; fails unless it answers 200. */
export async function pageAs(board: Board, origin: string, path: string, email: string, config = { publicOrigin: null, secure: false }): Promise<string> {
  const token = await sessionToken(board, email, origin);
  const res = await fetch(`${origin}${path}`, { headers: { cookie: `${cookieName(config)}=${token}` } });
  if (res.status !== 200) throw new Error(`${path} as ${email}: ${res.status}`);
  return res.text();
}

/**
 * A harness board served by the web app in this process, for the tests after
 * it (its hooks are registered here): read `h` inside them; `page` is a page
 * as a person sees it once signed in (CAST.fin unless named).
 */
export function servedHarness(spec: BoardSpec, config = { publicOrigin: null, secure: false }) {
  const web = {
    h: undefined as unknown as Harness,
    origin: '',
    page: (path: string, email: string = CAST.fin) => pageAs(web.h.board, web.origin, path, email, config),
  };
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    web.h = await Harness.open(spec);
    ({ origin: web.origin, close } = await inProcessWeb(web.h.service, config));
  });
  afterAll(async () => {
    await close?.();
    await cleanupHarnesses();
  });
  return web;
}

/** The text of a page's section labelled by the heading `headingId`, tags dropped; null when there is none. */
export const sectionText = (html: string, headingId: string): string | null =>
  new RegExp(`<section aria-labelledby="${headingId}">([\\s\\S]*?)</section>`)
    .exec(html)?.[1]
    ?.replace(/<[^>]+>/g, '')
    .replace(/&#x27;|&#39;/g, "'") ?? null;

/** Run ids a person reads on a page: in its text, tags (and so links' addresses) dropped, the page's own small id line aside. */
export const shownRunIds = (html: string): string[] =>
  [
    ...html
      .replace(/<p class="small-id">[\s\S]*?<\/p>/g, '')
      .replace(/<[^>]+>/g, ' ')
      .matchAll(/r-[0-9a-z]{26}/g),
  ].map((m) => m[0]);

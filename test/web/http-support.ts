/**
 * For web tests that speak plain HTTP to a real `serve --http` (no browser):
 * signing in with a real login link, pages fetched with a cookie, and raw
 * requests on their own socket whose body the test sends itself.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import { createLoginLink } from '../../src/web/sessions.js';
import type { WebBoard } from './web-support.js';

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

/** One request on its own socket; resolves with the answer, whatever the server did with the body. */
export function request(base: string, method: string, path: string, headers: Record<string, string | number>, body?: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A streamed body of `total` bytes, written chunk by chunk until the server
 * answers: the answer, and how many bytes had been written when it came.
 */
export function streamed(base: string, path: string, headers: Record<string, string>, total: number, chunk: (i: number) => Buffer): Promise<Answer & { sent: number }> {
  return new Promise((resolve) => {
    const req = http.request(`${base}${path}`, { method: 'POST', headers, agent: false });
    req.on('error', () => {}); // the server may close while we still send: that is the point
    let sent = 0;
    let answered = false;
    req.once('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, text, sent });
      });
    });
    let i = 0;
    const pump = () => {
      while (!answered && sent < total) {
        const c = chunk(i++);
        sent += c.length;
        if (!req.write(c)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

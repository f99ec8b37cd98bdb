/**
 * Live-update streams are capped (issue 25, item 3): a few per session, a few
 * more per person, and a total well below the server's sockets, so one person
 * cannot take the sockets MCP and sign-in need. Past a cap the OLDEST stream
 * is told `closed` and ended (its page stops listening), and the others go on
 * getting changes. A real `serve --http`, real event streams.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPerson } from '../../src/board/people.js';
import { createToken } from '../../src/service/credentials.js';
import { MAX_STREAMS, MAX_STREAMS_PER_PERSON, MAX_STREAMS_PER_SESSION } from '../../src/web/stream-caps.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { request, sessionCookie } from './http-support.js';
import { HELPER, PEOPLE, rid, startBoard, type WebBoard } from './web-support.js';

interface Stream {
  text: () => string;
  /** Resolves with everything received once the server ends the stream. */
  ended: Promise<string>;
  close(): void;
}

let wb: WebBoard;
const open: Stream[] = [];

beforeAll(async () => {
  wb = await startBoard();
});
afterAll(async () => {
  for (const s of open) s.close();
  await wb?.stop();
  await cleanupTmp();
});

/** An event stream as a page opens it; resolves once the server has taken it (its first comment). */
function stream(cookie: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${wb.base}/events?topic=work`, { headers: { cookie, accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events answered ${res.statusCode}`));
      let text = '';
      let endedWith: (t: string) => void = () => {};
      const ended = new Promise<string>((r) => (endedWith = r));
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        const first = text === '';
        text += d;
        if (first) {
          const s = { text: () => text, ended, close: () => req.destroy() };
          open.push(s);
          resolve(s);
        }
      });
      res.on('end', () => endedWith(text));
    });
    req.on('error', () => {});
  });
}

async function streams(cookie: string, n: number): Promise<Stream[]> {
  const out: Stream[] = [];
  for (let i = 0; i < n; i++) out.push(await stream(cookie)); // one after the other: their age is their order
  return out;
}

/** A commit on the board: every `work` stream still open is told. */
async function change(): Promise<void> {
  const r = await wb.service.call('start_run', { process: 'payout', inputs: { payee: 'Caps', amount: 1 }, requestId: rid() }, HELPER);
  expect(r.ok).toBe(true);
}

const changed = (s: Stream) =>
  new Promise<void>((resolve) => {
    const look = () => (s.text().includes('event: changed') ? resolve() : setTimeout(look, 20));
    look();
  });

const closedEvent = /event: closed\ndata: .*too many live pages/;

describe('live-update streams', () => {
  it(`a session's stream past ${MAX_STREAMS_PER_SESSION} closes its oldest, which is told why; the others still get changes`, async () => {
    const cookie = await sessionCookie(wb, PEOPLE.ana);
    const [oldest, ...rest] = await streams(cookie, MAX_STREAMS_PER_SESSION + 1);
    expect(await oldest!.ended).toMatch(closedEvent);
    await change();
    await Promise.all(rest.map(changed));
    for (const s of rest) s.close();
  }, 30_000);

  it(`a person's stream past ${MAX_STREAMS_PER_PERSON}, over several sessions, closes that person's oldest; another person's are untouched`, async () => {
    const other = await streams(await sessionCookie(wb, PEOPLE.cy), 2);
    const sessions = await Promise.all([1, 2, 3].map(() => sessionCookie(wb, PEOPLE.ben)));
    const per = Math.ceil(MAX_STREAMS_PER_PERSON / sessions.length);
    const mine: Stream[] = [];
    for (const c of sessions) mine.push(...(await streams(c, per)));
    const over = mine.length - MAX_STREAMS_PER_PERSON;
    expect(over).toBeGreaterThan(0);
    for (const s of mine.slice(0, over)) expect(await s.ended).toMatch(closedEvent);
    await change();
    await Promise.all([...mine.slice(over), ...other].map(changed));
    for (const s of [...mine, ...other]) s.close();
  }, 30_000);

  it(`past ${MAX_STREAMS} in all the oldest close, and MCP and the sign-in page still answer`, async () => {
    const people = Array.from({ length: Math.ceil(MAX_STREAMS / MAX_STREAMS_PER_PERSON) + 1 }, (_, i) => `caps${i}@example.com`);
    for (const p of people) await addPerson(wb.board, 'test', p);
    const all: Stream[] = [];
    for (const p of people) {
      const [a, b] = [await sessionCookie(wb, p), await sessionCookie(wb, p)];
      all.push(...(await streams(a, MAX_STREAMS_PER_SESSION)), ...(await streams(b, MAX_STREAMS_PER_SESSION)));
    }
    const over = all.length - MAX_STREAMS;
    expect(over).toBeGreaterThan(0);
    for (const s of all.slice(0, over)) expect(await s.ended).toMatch(closedEvent);
    expect((await request(wb.base, 'GET', '/signin', {})).status).toBe(200);
    const token = (await createToken(wb.board.store, 'helper', new Date())).token;
    const mcp = await fetch(`${wb.base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'describe', arguments: {} } }),
    });
    expect(mcp.status).toBe(200);
    await change();
    await Promise.all(all.slice(over).map(changed));
    for (const s of all) s.close();
  }, 60_000);
});

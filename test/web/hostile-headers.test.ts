/**
 * No header crashes a request (issue 25, item 8): a cookie any app on the
 * same host can set (`other=50%`, a broken escape, a bare name) is ignored,
 * and the session cookie beside it still works; an unparseable request target
 * gets 400, never 500. A real `serve --http`, raw requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTmp } from '../support/tmp-board.js';
import { request, sessionCookie } from './http-support.js';
import { PEOPLE, startBoard, type WebBoard } from './web-support.js';

let wb: WebBoard;
let session: string;

beforeAll(async () => {
  wb = await startBoard();
  session = await sessionCookie(wb, PEOPLE.ana);
});
afterAll(async () => {
  await wb?.stop();
  await cleanupTmp();
});

const BAD_COOKIES = ['other=50%', 'x=%E0%A4%A', 'y=%zz', 'lonely', '=novalue', 'z="%"', 'wb_next=%'];

describe('cookies that are not ours, or not well formed', () => {
  it('a signed-in page answers 200 as its person whatever other cookies ride along', async () => {
    for (const bad of BAD_COOKIES) {
      for (const cookie of [`${bad}; ${session}`, `${session}; ${bad}`]) {
        const a = await request(wb.base, 'GET', '/work', { cookie });
        expect({ cookie, status: a.status }).toEqual({ cookie, status: 200 });
        expect(a.text).toContain('<span class="who">Ana Silva</span>');
      }
    }
  });

  it('the sign-in page, and a signed-out page, answer as without the cookie', async () => {
    for (const bad of BAD_COOKIES) {
      expect((await request(wb.base, 'GET', '/signin', { cookie: bad })).status).toBe(200);
      expect((await request(wb.base, 'GET', '/work', { cookie: bad })).status).toBe(401);
    }
  });

  it('a broken wb_next cookie at sign-in lands on My work', async () => {
    const fresh = await sessionCookie(wb, PEOPLE.ben, { cookie: 'wb_next=%E0%A4%A' });
    expect(fresh).toMatch(/^wb_session=/);
  });
});

describe('request targets', () => {
  it('a target no URL parser takes gets 400, and the server goes on answering', async () => {
    const a = await request(wb.base, 'GET', '//', { cookie: session });
    expect(a.status).toBe(400);
    expect((await request(wb.base, 'GET', '/work', { cookie: session })).status).toBe(200);
  });
});

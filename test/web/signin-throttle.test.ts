/**
 * Sign-in throttling that cannot lock others out (issue 25, item 4): failed
 * codes are counted per code, and per client address only where
 * WORKBOARD_TRUST_PROXY says whose X-Forwarded-For to believe. Behind a proxy
 * everybody shares one socket address, so without that setting an address's
 * failures refuse nobody, and a valid unexpired link is never refused for
 * another client's failures. Real `serve --http` processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_FAILURES, CODE_FAILURES } from '../../src/web/signin-throttle.js';
import { createLoginLink } from '../../src/web/sessions.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { request } from './http-support.js';
import { PEOPLE, startBoard, type WebBoard } from './web-support.js';

afterAll(cleanupTmp);

const codeOf = async (wb: WebBoard, who: string) => new URL(await createLoginLink(wb.board, who, wb.base)).searchParams.get('code')!;
const post = (wb: WebBoard, code: string, headers: Record<string, string> = {}) =>
  request(wb.base, 'POST', '/signin', { origin: wb.base, 'content-type': 'application/x-www-form-urlencoded', ...headers }, `code=${encodeURIComponent(code)}`);
const peek = (wb: WebBoard, code: string, headers: Record<string, string> = {}) => request(wb.base, 'GET', `/signin?code=${encodeURIComponent(code)}`, headers);
let n = 0;
const badCode = () => `wbl_not-a-code-${++n}`;

describe('without WORKBOARD_TRUST_PROXY (everyone may share the proxy address)', () => {
  let wb: WebBoard;
  beforeAll(async () => {
    wb = await startBoard();
  });
  afterAll(() => wb?.stop());

  it('many bad codes from one address, then a valid link from it opens and signs in', async () => {
    for (let i = 0; i < 3 * CLIENT_FAILURES.burst; i++) expect((await post(wb, badCode(), { 'x-forwarded-for': '203.0.113.7' })).status).toBe(400);
    for (let i = 0; i < 3 * CLIENT_FAILURES.burst; i++) expect((await peek(wb, badCode())).status).toBe(400);
    const code = await codeOf(wb, PEOPLE.ana);
    expect((await peek(wb, code)).status).toBe(200);
    const a = await post(wb, code);
    expect(a.status).toBe(303);
    expect(a.headers['set-cookie']?.join(';')).toMatch(/wb_session=/);
  });

  it(`one dead code presented over and over is refused 429 after ${CODE_FAILURES.burst} failures; other codes are not`, async () => {
    const dead = badCode();
    for (let i = 0; i < CODE_FAILURES.burst; i++) expect((await (i % 2 ? peek(wb, dead) : post(wb, dead))).status).toBe(400);
    const slowed = await post(wb, dead);
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers['retry-after'])).toBeGreaterThan(0);
    expect((await peek(wb, dead)).status).toBe(429);
    expect((await post(wb, badCode())).status).toBe(400);
    expect((await post(wb, await codeOf(wb, PEOPLE.ben))).status).toBe(303);
  });
});

describe('with WORKBOARD_TRUST_PROXY=127.0.0.1 (the proxy says who the client is)', () => {
  let wb: WebBoard;
  beforeAll(async () => {
    process.env.WORKBOARD_TRUST_PROXY = '127.0.0.1';
    try {
      wb = await startBoard();
    } finally {
      delete process.env.WORKBOARD_TRUST_PROXY;
    }
  });
  afterAll(() => wb?.stop());

  it(`a client past ${CLIENT_FAILURES.burst} failures is refused 429; a valid link from any other client behind the proxy signs in`, async () => {
    const attacker = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < CLIENT_FAILURES.burst; i++) expect((await post(wb, badCode(), attacker)).status).toBe(400);
    expect((await post(wb, badCode(), attacker)).status).toBe(429);
    expect((await peek(wb, badCode(), attacker)).status).toBe(429);
    // Only the proxy's own entry (the last) is believed: what the client wrote before it is not.
    expect((await post(wb, badCode(), { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' })).status).toBe(429);
    const code = await codeOf(wb, PEOPLE.ana);
    expect((await peek(wb, code, { 'x-forwarded-for': '198.51.100.9' })).status).toBe(200);
    expect((await post(wb, code, { 'x-forwarded-for': '203.0.113.7, 198.51.100.9' })).status).toBe(303);
  });
});

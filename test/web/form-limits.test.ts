/**
 * Every posted form is bounded while it is read (issue 25, item 2): the whole
 * body, each field, each field's name, the number of fields, of files and of
 * parts, url-encoded and multipart alike; past a bound the answer is 413 at
 * once, the rest is discarded unread, and the connection is closed. The sign-in
 * form, the one anybody may post, has bounds of its own a few KiB wide.
 * A real `serve --http`, bodies streamed on real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/board/manifest.js';
import { csrfToken } from '../../src/web/security.js';
import { SIGNIN_FORM, formLimits } from '../../src/web/form-limits.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { request, sessionCookie, streamed } from './http-support.js';
import { PEOPLE, startBoard, type WebBoard } from './web-support.js';

const LIMITS = formLimits(DEFAULT_SETTINGS);
const B = 'xLimitsBoundary';
const MULTIPART = `multipart/form-data; boundary=${B}`;
const field = (name: string, value: string | Buffer) => Buffer.concat([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`), Buffer.from(value), Buffer.from('\r\n')]);
const file = (name: string, bytes: Buffer) =>
  Buffer.concat([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="evidence.file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`), bytes, Buffer.from('\r\n')]);
const multipart = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from(`--${B}--\r\n`)]);

let wb: WebBoard;
let cookie: string;
let csrf: string;

beforeAll(async () => {
  wb = await startBoard();
  cookie = await sessionCookie(wb, PEOPLE.ana);
  csrf = csrfToken(cookie.slice('wb_session='.length));
});
afterAll(async () => {
  await wb?.stop();
  await cleanupTmp();
});

const MiB = 1024 * 1024;

describe('the sign-in form, posted by anybody', () => {
  it('64 MiB of multipart text fields get 413 long before they are sent', async () => {
    const part = field('filler', Buffer.alloc(512 * 1024, 0x61)); // each under any field limit
    const a = await streamed(wb.base, '/signin', { origin: wb.base, 'content-type': MULTIPART }, 64 * MiB, () => part);
    expect(a.status).toBe(413);
    expect(a.sent).toBeLessThan(64 * MiB);
    expect((await request(wb.base, 'GET', '/signin', {})).status).toBe(200);
  });

  it('64 MiB url-encoded get 413 long before they are sent', async () => {
    const chunk = Buffer.from(`a=${'b'.repeat(64 * 1024)}&`);
    const a = await streamed(wb.base, '/signin', { origin: wb.base, 'content-type': 'application/x-www-form-urlencoded' }, 64 * MiB, () => chunk);
    expect(a.status).toBe(413);
    expect(a.sent).toBeLessThan(64 * MiB);
  });

  it(`a body over ${SIGNIN_FORM.body} bytes, a field over ${SIGNIN_FORM.fieldSize}, more than ${SIGNIN_FORM.fields} fields, or any file: 413`, async () => {
    const post = (type: string, body: Buffer | string) => request(wb.base, 'POST', '/signin', { origin: wb.base, 'content-type': type }, body);
    expect((await post('application/x-www-form-urlencoded', `code=${'x'.repeat(SIGNIN_FORM.body)}`)).status).toBe(413);
    expect((await post(MULTIPART, multipart(field('code', 'x'.repeat(SIGNIN_FORM.fieldSize + 1))))).status).toBe(413);
    expect((await post('application/x-www-form-urlencoded', Array.from({ length: SIGNIN_FORM.fields + 1 }, (_, i) => `f${i}=1`).join('&'))).status).toBe(413);
    expect((await post(MULTIPART, multipart(file('a.txt', Buffer.from('hi'))))).status).toBe(413);
    // Within the bounds, a bad code is what it always was.
    expect((await post('application/x-www-form-urlencoded', 'code=wbl_nope')).status).toBe(400);
  });
});

describe('a signed-in form', () => {
  // A path no form is for: a form read whole and passing its checks gets 404 there, and the session lives on.
  const post = (type: string, body: Buffer | string) => request(wb.base, 'POST', '/nowhere', { origin: wb.base, cookie, 'content-type': type }, body);

  it('64 MiB of multipart text fields get 413 before they are sent', async () => {
    const part = field('filler', Buffer.alloc(128 * 1024, 0x61));
    const a = await streamed(wb.base, '/nowhere', { origin: wb.base, cookie, 'content-type': MULTIPART }, 64 * MiB, () => part);
    expect(a.status).toBe(413);
    expect(a.sent).toBeLessThan(64 * MiB);
  });

  it(`a field over ${LIMITS.fieldSize} bytes is refused, not cut short`, async () => {
    for (const body of [multipart(field('csrf', csrf), field('note', 'x'.repeat(2 * MiB))), multipart(field('csrf', csrf), field('note', 'x'.repeat(LIMITS.fieldSize + 1)))]) {
      const a = await post(MULTIPART, body);
      expect(a.status).toBe(413);
      expect(a.text).toContain(`a field is over the limit of ${LIMITS.fieldSize} bytes`);
    }
    const url = await post('application/x-www-form-urlencoded', `csrf=${csrf}&note=${'x'.repeat(LIMITS.fieldSize + 1)}`);
    expect(url.status).toBe(413);
  });

  it(`a field name over ${LIMITS.fieldNameSize} bytes is refused, not cut short`, async () => {
    expect((await post(MULTIPART, multipart(field('csrf', csrf), field('n'.repeat(LIMITS.fieldNameSize + 1), 'v')))).status).toBe(413);
  });

  it(`more than ${LIMITS.fields} fields, ${LIMITS.files} files or ${LIMITS.fields + LIMITS.files} parts are refused, not dropped`, async () => {
    const fields = Array.from({ length: LIMITS.fields + 1 }, (_, i) => field(`f${i}`, '1'));
    const many = await post(MULTIPART, multipart(field('csrf', csrf), ...fields));
    expect(many.status).toBe(413);
    expect(many.text).toContain(`the form has more than ${LIMITS.fields} fields`);
    expect((await post('application/x-www-form-urlencoded', [`csrf=${csrf}`, ...Array.from({ length: LIMITS.fields + 1 }, (_, i) => `f${i}=1`)].join('&'))).status).toBe(413);
    const files = Array.from({ length: LIMITS.files + 1 }, (_, i) => file(`f${i}.txt`, Buffer.from('x')));
    const tooManyFiles = await post(MULTIPART, multipart(field('csrf', csrf), ...files));
    expect(tooManyFiles.status).toBe(413);
    expect(tooManyFiles.text).toContain(`the form has more than ${LIMITS.files} files`);
  });

  it(`a file over ${LIMITS.fileSize} bytes is refused`, async () => {
    expect((await post(MULTIPART, multipart(field('csrf', csrf), file('big.bin', Buffer.alloc(LIMITS.fileSize + 1))))).status).toBe(413);
  });

  it('a form within every bound is read and acted on (multipart and url-encoded)', async () => {
    expect(
      (await post(MULTIPART, multipart(field('csrf', csrf), field('note', 'x'.repeat(LIMITS.fieldSize)), ...Array.from({ length: LIMITS.fields - 2 }, (_, i) => field(`f${i}`, '1'))))).status,
    ).toBe(404);
    expect((await post('application/x-www-form-urlencoded', `csrf=${csrf}&note=${'x'.repeat(LIMITS.fieldSize)}`)).status).toBe(404);
    const mine = await sessionCookie(wb, PEOPLE.ben);
    const token = csrfToken(mine.slice('wb_session='.length));
    const a = await request(
      wb.base,
      'POST',
      '/signout',
      { origin: wb.base, cookie: mine, 'content-type': MULTIPART },
      multipart(field('csrf', token), file('ok.bin', Buffer.alloc(1024)), ...Array.from({ length: 50 }, (_, i) => field(`f${i}`, 'x'.repeat(1000)))),
    );
    expect(a.status).toBe(303);
    const other = await sessionCookie(wb, PEOPLE.ben);
    const b = await request(
      wb.base,
      'POST',
      '/signout',
      { origin: wb.base, cookie: other, 'content-type': 'application/x-www-form-urlencoded' },
      `csrf=${csrfToken(other.slice('wb_session='.length))}&note=${'y'.repeat(LIMITS.fieldSize)}`,
    );
    expect(b.status).toBe(303);
  });
});

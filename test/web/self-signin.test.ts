/**
 * Asking for a sign-in link by email, against a real `serve --http` process
 * and a real SMTP server on loopback: a declared person gets exactly one
 * email and a stranger none, and the two answers are the same status,
 * headers and bytes (but for the address typed, of equal length here); past
 * the throttle per address or per person no email goes, with the same
 * answer; the answer does not wait for the email (the SMTP server holding
 * it), and while it is slow at most MAX_WAITING_ASKS asks wait, the rest
 * dropped with a log line and the same answer; an agent's id and a removed
 * person get nothing; the emailed link
 * signs in once and lands on the page asked for, never on another site, and
 * points at the board's own address whatever Host the request named; the
 * form needs our origin and its pre-session token; a board without email
 * says to ask an operator; behind a trusted proxy each client is counted.
 *
 * Asks are dealt with one at a time, in order, after the answer: so once a
 * fresh person's link has arrived, every ask made before it has been dealt
 * with, and "no email" can be asserted without waiting on a clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPerson, editManifest, removePerson, renamePerson } from '../../src/board/people.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { until } from '../support/until.js';
import { smtpServer, type Mail, type Smtp } from '../notify/support.js';
import { request, type Answer } from './http-support.js';
import { PEOPLE, payoutAwaitingApproval, startBoard, type WebBoard } from './web-support.js';
import { MAX_WAITING_ASKS } from '../../src/web/signin-mailer.js';

const FROM = 'workboard@example.com';
const TITLE = 'Finance desk';

let wb: WebBoard;
let smtp: Smtp;
/** A served board that sends email through the test SMTP server. */
async function emailingBoard(): Promise<WebBoard> {
  const w = await startBoard();
  await editManifest(w.board, 'test', 'notifications.set', (d) => {
    d.title = TITLE;
    d.notifications = { baseUrl: w.base, email: { from: FROM, smtp: { host: '127.0.0.1', port: smtp.port } } };
    return 'notifications';
  });
  return w;
}

beforeAll(async () => {
  smtp = await smtpServer();
  wb = await emailingBoard();
});
afterAll(async () => {
  await wb?.stop();
  await smtp?.close();
  await cleanupTmp();
});

/** A browser's first visit: the pre-session cookie the page sets and the CSRF token its form carries. */
async function visit(path = '/signin'): Promise<{ cookie: string; csrf: string; page: Answer }> {
  const page = await request(wb.base, 'GET', path, {});
  const cookie = /(wb_pre=[^;]+)/.exec([page.headers['set-cookie'] ?? []].flat().join('\n'))?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!cookie || !csrf) throw new Error(`no sign-in form on ${path}: ${page.status} ${page.text.slice(0, 400)}`);
  return { cookie, csrf, page };
}

type Browser = { cookie: string; csrf: string };

function ask(b: Browser, address: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Answer> {
  const body = new URLSearchParams({ csrf: b.csrf, address, ...extra }).toString();
  return request(wb.base, 'POST', '/signin', { origin: wb.base, cookie: b.cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body);
}

const links = (to: string): Mail[] => smtp.mails.filter((m) => m.to.includes(to) && m.subject === `Your sign-in link for ${TITLE}`);
const mailsTo = (to: string): Mail[] => smtp.mails.filter((m) => m.to.includes(to));
const linkIn = (m: Mail): URL => new URL(/^(http:\/\/\S+\/signin\?code=\S+)$/m.exec(m.text)![1]!);

let fresh = 0;
/** Ask for a link for a person added just now, and wait for it: every ask before it has then been dealt with. */
async function settled(b: Browser): Promise<void> {
  const who = `barrier-${++fresh}@example.com`;
  await addPerson(wb.board, 'test', who);
  expect((await ask(b, who)).status).toBe(200);
  await until(() => (links(who).length ? true : undefined), 20_000);
}

/** An answer with what may differ between any two requests taken out: the date header. */
// The time and serve's request id (a count: docs/operations.md, Logs) differ between any two answers.
const comparable = (a: Answer, address: string) => ({ status: a.status, headers: { ...a.headers, date: undefined, 'x-request-id': undefined }, body: a.text.split(address).join('<address>') });

describe('asking for a sign-in link', () => {
  it('emails a declared person once, a stranger never, and answers both alike', async () => {
    const b = await visit();
    const known = PEOPLE.ana; // ana@example.com
    const stranger = 'zed@example.com'; // as long, so the answers have the same length too
    expect(stranger.length).toBe(known.length);
    const a1 = await ask(b, known);
    const a2 = await ask(b, stranger);
    expect(a1.status).toBe(200);
    expect(comparable(a1, known)).toEqual(comparable(a2, stranger));
    expect(a1.headers['set-cookie']).toBeUndefined();
    expect(a1.text).toContain(`If <strong>${known}</strong> belongs to someone on this board, a sign-in link is on its way`);
    await settled(b);
    expect(links(known)).toHaveLength(1);
    expect(mailsTo(stranger)).toHaveLength(0);
    const mail = links(known)[0]!;
    expect(mail.from).toBe(FROM);
    expect(mail.text).toContain('Hello Ana Silva,');
    expect(mail.text).toContain(`sign in to ${TITLE}`);
    expect(mail.text).toContain('valid for 15 minutes, once');
    expect(linkIn(mail).origin).toBe(wb.base);
  });

  it('sends the link to where the person is now, lands on the page asked for, and works once', async () => {
    const b = await visit();
    const run = await payoutAwaitingApproval(wb);
    const next = `/runs/${run}`;
    expect((await ask(b, `  ${PEOPLE.cy.toUpperCase()} `, { next })).status).toBe(200);
    const mail = await until(() => links(PEOPLE.cy)[0], 20_000);
    const link = linkIn(mail);
    expect(link.searchParams.get('next')).toBe(next);

    const confirm = await request(wb.base, 'GET', `${link.pathname}${link.search}`, {});
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`Sign in as ${PEOPLE.cy}`);
    const code = link.searchParams.get('code')!;
    const post = (c: string, n: string) =>
      request(wb.base, 'POST', '/signin', { origin: wb.base, 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ code: c, next: n }).toString());
    const first = await post(code, /name="next" value="([^"]+)"/.exec(confirm.text)![1]!);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe(next);
    const session = /(wb_session=[^;]+)/.exec([first.headers['set-cookie'] ?? []].flat().join('\n'))![1]!;
    const landed = await request(wb.base, 'GET', next, { cookie: session });
    expect(landed.status).toBe(200);
    expect((await post(code, next)).status).toBe(400); // used
  });

  it('sends nothing more past 3 asks for one address, or for one person under several addresses, and answers the same', async () => {
    const b = await visit();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await ask(b, PEOPLE.ops));
    // A person renamed keeps their old address as a former one: both are the same person, one bucket.
    await addPerson(wb.board, 'test', 'dee@example.com', 'Dee Park');
    await renamePerson(wb.board, 'test', 'dee@example.com', 'dee.park@example.com');
    for (const a of ['dee@example.com', 'dee.park@example.com', 'dee@example.com', 'dee.park@example.com']) answers.push(await ask(b, a));
    await settled(b);
    expect(links(PEOPLE.ops)).toHaveLength(3);
    expect(links('dee.park@example.com')).toHaveLength(3);
    expect(mailsTo('dee@example.com')).toHaveLength(0); // a former address is never written to
    expect(links('dee.park@example.com')[0]!.text).toContain('Hello Dee Park,');
    for (const a of answers) expect(a.status).toBe(200);
    expect(comparable(answers[4]!, PEOPLE.ops)).toEqual(comparable(answers[0]!, PEOPLE.ops));
  });

  it("gives an agent's id, a removed person and a bad address nothing", async () => {
    const b = await visit();
    const agent = await ask(b, 'helper');
    expect(agent.status).toBe(400);
    expect(agent.text).toContain('&quot;helper&quot; is not an email address');
    expect((await ask(b, '')).text).toContain('Enter your email address.');
    await addPerson(wb.board, 'test', 'gone@example.com');
    await removePerson(wb.board, 'test', 'gone@example.com');
    const gone = await ask(b, 'gone@example.com');
    const never = await ask(b, 'nope@example.com');
    expect(comparable(gone, 'gone@example.com')).toEqual(comparable(never, 'nope@example.com'));
    await settled(b);
    expect(mailsTo('gone@example.com')).toHaveLength(0);
    expect(mailsTo('helper')).toHaveLength(0);
  });

  it('never follows a next that leads to another site, from the form or the link', async () => {
    const b = await visit();
    await ask(b, PEOPLE.ben, { next: '//evil.example/work' });
    const mail = await until(() => links(PEOPLE.ben)[0], 20_000);
    const link = linkIn(mail);
    expect(link.searchParams.has('next')).toBe(false);
    const code = link.searchParams.get('code')!;
    const confirm = await request(wb.base, 'GET', `/signin?code=${code}&next=${encodeURIComponent('https://evil.example/work')}`, {});
    expect(confirm.status).toBe(200);
    expect(confirm.text).not.toContain('evil.example');
    const signed = await request(
      wb.base,
      'POST',
      '/signin',
      { origin: wb.base, 'content-type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ code, next: 'https://evil.example/work' }).toString(),
    );
    expect(signed.status).toBe(303);
    expect(signed.headers.location).toBe('/work');
  });

  it("never builds the link from the request's Host: a forged Host and Origin still get a link to the board's own address", async () => {
    // A script, not a browser, may send any Host and a matching Origin, after a visit of its own for the token.
    const forged = { host: 'evil.example', origin: 'http://evil.example' };
    const first = await request(wb.base, 'GET', '/signin', { host: forged.host });
    const b = { cookie: /(wb_pre=[^;]+)/.exec([first.headers['set-cookie'] ?? []].flat().join('\n'))![1]!, csrf: /name="csrf" value="([^"]+)"/.exec(first.text)![1]! };
    await addPerson(wb.board, 'test', 'host@example.com');
    expect((await ask(b, 'host@example.com', {}, forged)).status).toBe(200);
    const mail = await until(() => links('host@example.com')[0], 20_000);
    expect(linkIn(mail).origin).toBe(wb.base);
    expect(mail.text).not.toContain('evil.example');
  });

  it('offers the form on a page a notification links to, empty and keeping the page, and never fills it from the URL', async () => {
    const run = await payoutAwaitingApproval(wb);
    const item = `/runs/${run}`;
    const page = await request(wb.base, 'GET', `${item}?address=${encodeURIComponent(PEOPLE.ana)}`, {});
    expect(page.status).toBe(401);
    expect(page.text).toContain('Email me a sign-in link');
    expect(page.text).toMatch(/<input id="signin-address" type="email" name="address"[^>]*>/);
    expect(/<input id="signin-address"[^>]*>/.exec(page.text)![0]).not.toContain('value=');
    expect(page.text).not.toContain(PEOPLE.ana);
    expect(page.text).toContain(`name="next" value="${item}?address=`);
    const set = [page.headers['set-cookie'] ?? []].flat().join('\n');
    expect(set).toMatch(/wb_next=/);
    expect(set).toMatch(/wb_pre=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax/);
    const q = await request(wb.base, 'GET', `/signin?address=${encodeURIComponent(PEOPLE.ana)}`, {});
    expect(/<input id="signin-address"[^>]*>/.exec(q.text)![0]).not.toContain('value=');
  });

  it('refuses a post from another site, or without the pre-session token, and sends nothing', async () => {
    const b = await visit();
    const other = await ask(b, PEOPLE.ana, {}, { origin: 'https://evil.example' });
    expect(other.status).toBe(403);
    const noToken = await ask({ cookie: b.cookie, csrf: 'x' }, PEOPLE.ana);
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('The form was out of date, so nothing was sent');
    const noCookie = await request(
      wb.base,
      'POST',
      '/signin',
      { origin: wb.base, 'content-type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ csrf: b.csrf, address: PEOPLE.ana }).toString(),
    );
    expect(noCookie.status).toBe(403);
    expect([noCookie.headers['set-cookie'] ?? []].flat().join('\n')).toMatch(/wb_pre=/); // a fresh one, to ask again at once
    const before = links(PEOPLE.ana).length;
    await settled(b);
    expect(links(PEOPLE.ana)).toHaveLength(before);
  });

  it('answers before the email goes out: while the SMTP server holds every message, the answer has come', async () => {
    const b = await visit();
    await addPerson(wb.board, 'test', 'held@example.com');
    smtp.hold = true;
    try {
      const a = await ask(b, 'held@example.com');
      expect(a.status).toBe(200);
      // The email is still waiting on the SMTP server when the answer is read: it was not on the request's path.
      await until(() => (smtp.held.some((m) => m.to.includes('held@example.com')) ? true : undefined), 20_000);
      expect(links('held@example.com')).toHaveLength(0);
    } finally {
      smtp.release();
    }
    await until(() => (links('held@example.com').length === 1 ? true : undefined), 20_000);
  });

  it(`keeps at most ${MAX_WAITING_ASKS} asks waiting while the mail server is slow, dropping the rest with a log line and the same answer`, async () => {
    const b = await visit();
    let log = '';
    const listen = (c: Buffer) => void (log += c.toString());
    wb.server.stdout!.on('data', listen);
    await addPerson(wb.board, 'test', 'slow@example.com');
    smtp.hold = true;
    try {
      expect((await ask(b, 'slow@example.com')).status).toBe(200);
      // The one ask being dealt with waits on the mail server; the next ones queue behind it.
      await until(() => (smtp.held.some((m) => m.to.includes('slow@example.com')) ? true : undefined), 20_000);
      const flood = (i: number) => `flood-${String(i).padStart(4, '0')}@example.com`; // all as long
      const answers = [];
      for (let i = 0; i <= MAX_WAITING_ASKS; i++) answers.push(await ask(b, flood(i)));
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
      expect(comparable(answers[MAX_WAITING_ASKS]!, flood(MAX_WAITING_ASKS))).toEqual(comparable(answers[0]!, flood(0)));
      await until(() => (log.includes(`sign-in links: ${MAX_WAITING_ASKS} asks already waiting; one dropped`) ? true : undefined), 20_000);
    } finally {
      smtp.release();
      wb.server.stdout!.off('data', listen);
    }
    await settled(b);
    expect(links('slow@example.com')).toHaveLength(1);
  });

  it('says to ask an operator where the board sends no email', async () => {
    await editManifest(wb.board, 'test', 'notifications.set', (d) => {
      d.notifications = { baseUrl: wb.base };
      return 'notifications';
    });
    const page = await request(wb.base, 'GET', '/signin', {});
    expect(page.status).toBe(200);
    expect(page.text).toContain('Ask an operator of this board to send you one');
    expect(page.text).not.toContain('workboard login-link');
    expect(page.text).not.toContain('Email me a sign-in link');
    expect(page.headers['set-cookie']).toBeUndefined();
    const posted = await request(wb.base, 'POST', '/signin', { origin: wb.base, 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ address: PEOPLE.ana }).toString());
    expect(posted.status).toBe(400);
    expect(posted.text).toContain('This board does not send sign-in links by email.');
  });
});

describe('asking for a sign-in link behind a trusted proxy (WORKBOARD_TRUST_PROXY=127.0.0.1)', () => {
  beforeAll(async () => {
    await wb.stop();
    process.env.WORKBOARD_TRUST_PROXY = '127.0.0.1';
    try {
      wb = await emailingBoard();
    } finally {
      delete process.env.WORKBOARD_TRUST_PROXY;
    }
  });

  it('counts the client the proxy names: past 10 asks it gets no link, another client behind the same proxy does', async () => {
    const b = await visit();
    await addPerson(wb.board, 'test', 'pat@example.com');
    const from = (client: string) => ({ 'x-forwarded-for': client });
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await ask(b, `other-${i}@example.com`, {}, from('203.0.113.7')));
    answers.push(await ask(b, 'pat@example.com', {}, from('203.0.113.7')));
    for (const a of answers) expect(a.status).toBe(200);
    // Asks are dealt with in order: once the other client's link has come, the first client's was dealt with.
    expect((await ask(b, 'pat@example.com', {}, from('203.0.113.8'))).status).toBe(200);
    await until(() => (links('pat@example.com').length ? true : undefined), 20_000);
    expect(links('pat@example.com')).toHaveLength(1);
  });
});

/**
 * Web sign-in on real files: a login link's code works once and only within
 * 15 minutes, sessions end when idle, at their absolute limit, at sign-out,
 * when revoked and when their person's sessions are revoked; only hashes are
 * stored; agents and unknown identities get no link.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addAgent, addPerson } from '../../src/board/people.js';
import { CODE_TTL_MS, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../src/web/session-rules.js';
import { createLoginLink, endSession, listSessions, peekCode, redeemCode, revokeSession, revokeSessionsOf, sessionFor } from '../../src/web/sessions.js';
import { cleanupTmp, newBoard } from '../support/tmp-board.js';

afterAll(cleanupTmp);

async function board() {
  const b = await newBoard();
  await addPerson(b.board, 'test', 'mira@example.com');
  await addPerson(b.board, 'test', 'jon@example.com');
  await addAgent(b.board, 'test', 'helper');
  return b;
}
const codeOf = (url: string) => new URL(url).searchParams.get('code')!;
const T = new Date('2026-11-29T09:00:00.000Z');
const at = (ms: number) => new Date(T.getTime() + ms);

describe('web sessions', () => {
  it('a code signs in once, within 15 minutes; only hashes are kept', async () => {
    const { board: b, root } = await board();
    const url = await createLoginLink(b, 'Mira@Example.com', 'https://work.example.com', T);
    expect(url.startsWith('https://work.example.com/signin?code=wbl_')).toBe(true);
    const code = codeOf(url);
    expect(await peekCode(b, code, at(1000))).toBe('mira@example.com');
    const s = await redeemCode(b, code, at(1000));
    expect(s?.email).toBe('mira@example.com');
    expect(await redeemCode(b, code, at(2000))).toBeNull(); // single use
    const stored = readFileSync(path.join(root, '.work/web/sessions.json'), 'utf8');
    expect(stored).not.toContain(code);
    expect(stored).not.toContain(s!.token);
    const late = codeOf(await createLoginLink(b, 'mira@example.com', 'http://x', T));
    expect(await redeemCode(b, late, at(CODE_TTL_MS + 1))).toBeNull();
  });

  it('refuses agents and unknown identities', async () => {
    const { board: b } = await board();
    await expect(createLoginLink(b, 'helper', 'http://x')).rejects.toThrow(/agent/);
    await expect(createLoginLink(b, 'nobody@example.com', 'http://x')).rejects.toThrow(/unknown identity/);
  });

  it('a session ends when idle, at its absolute limit, at sign-out, and when revoked', async () => {
    const { board: b } = await board();
    const open = async (who = 'mira@example.com', when = T) => (await redeemCode(b, codeOf(await createLoginLink(b, who, 'http://x', when)), when))!;
    const idle = await open();
    expect(await sessionFor(b, idle.token, at(SESSION_IDLE_MS - 1000))).not.toBeNull();
    expect(await sessionFor(b, idle.token, at(2 * SESSION_IDLE_MS - 2000))).not.toBeNull(); // the use above moved it on
    expect(await sessionFor(b, idle.token, at(3 * SESSION_IDLE_MS))).toBeNull();
    const busy = await open();
    let t = 0;
    for (; t < SESSION_ABSOLUTE_MS - SESSION_IDLE_MS; t += SESSION_IDLE_MS / 2) expect(await sessionFor(b, busy.token, at(t))).not.toBeNull();
    expect(await sessionFor(b, busy.token, at(SESSION_ABSOLUTE_MS))).toBeNull();
    const out = await open();
    await endSession(b, out.token);
    expect(await sessionFor(b, out.token, T)).toBeNull();
    const one = await open();
    const jon = await open('jon@example.com');
    const listed = (await listSessions(b, at(1000))).map((s) => s.id);
    expect(listed).toEqual(expect.arrayContaining([one.id, jon.id]));
    expect(listed).not.toContain(out.id);
    expect(await revokeSession(b, one.id)).toBe(true);
    expect(await revokeSession(b, one.id)).toBe(false);
    expect(await sessionFor(b, one.token, T)).toBeNull();
    expect(await revokeSessionsOf(b, 'JON@example.com')).toEqual([jon.id]);
    expect(await sessionFor(b, jon.token, T)).toBeNull();
  });
});

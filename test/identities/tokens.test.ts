/**
 * Bearer tokens a team can manage (issue 17): create with an expiry and a
 * label, list without secrets, revoke, rotate; concurrent creates through real
 * CLI processes lose nothing; a revoke made by another process, or an expiry,
 * shuts out the very next request to a running `serve --http`.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { createToken, listTokens } from '../../src/service/credentials.js';
import { expiryFrom, findToken, matchToken, parseTokens, serializeTokens, type StoredToken } from '../../src/service/token-rules.js';
import { sha256Hex } from '../../src/core/hash.js';
import { chainEvents, cleanupTmp } from '../support/tmp-board.js';
import { boardWith, rpc, serveHttp, type Serving } from './support.js';

afterAll(cleanupTmp);

describe('token rules (pure)', () => {
  const now = new Date('2026-12-01T10:00:00.000Z');

  it('reads durations and dates for --expires, refusing the past, the far future and nonsense', () => {
    expect(expiryFrom('30d', now)).toEqual({ ok: true, expiresAt: '2026-12-31T10:00:00.000Z' });
    expect(expiryFrom('12h', now)).toEqual({ ok: true, expiresAt: '2026-12-01T22:00:00.000Z' });
    expect(expiryFrom('2w', now)).toEqual({ ok: true, expiresAt: '2026-12-15T10:00:00.000Z' });
    expect(expiryFrom('2027-01-31', now)).toEqual({ ok: true, expiresAt: '2027-01-31T00:00:00.000Z' });
    for (const bad of ['0d', '30', 'never', '2026-11-30', '400d', '-1d', '1y']) expect(expiryFrom(bad, now).ok, bad).toBe(false);
  });

  it('a stored hash stands for its token until the moment it expires; anything else is unknown', () => {
    const t: StoredToken = { id: 't-000000000001', name: 'ci', identity: 'reviewer', createdAt: now.toISOString(), expiresAt: '2026-12-01T11:00:00.000Z', lastUsedAt: null, sha256: sha256Hex('wb_a') };
    expect(matchToken([t], sha256Hex('wb_a'), now)).toEqual({ ok: true, token: t });
    expect(matchToken([t], sha256Hex('wb_a'), new Date('2026-12-01T11:00:00.000Z'))).toEqual({ ok: false, reason: 'expired' });
    expect(matchToken([t], sha256Hex('wb_b'), now)).toEqual({ ok: false, reason: 'unknown' });
    expect(findToken([t], 'ci')).toEqual({ ok: true, token: t });
    expect(findToken([t], 't-000000000001')).toEqual({ ok: true, token: t });
    expect(findToken([t], 'other')).toMatchObject({ ok: false, message: expect.stringContaining('t-000000000001 (ci)') });
    // The file round-trips, and a file written before expiry existed reads as "never expires".
    expect(parseTokens(serializeTokens([t]))).toEqual([t]);
    expect(parseTokens(JSON.stringify({ tokens: [{ id: 't-1', identity: 'x', sha256: 'ab', createdAt: 'c' }] }))).toEqual([
      { id: 't-1', name: null, identity: 'x', createdAt: 'c', expiresAt: null, lastUsedAt: null, sha256: 'ab' },
    ]);
    expect(() => parseTokens('{"tokens": 5}')).toThrow();
  });
});

describe('token commands', () => {
  it('create, list, rotate and revoke; the secret is shown once and never stored; each change is audited with the OS user', async () => {
    const { dir, wb } = await boardWith({ agents: ['reviewer'], people: ['mira@example.com'] });
    const made = JSON.parse((await wb('--json', 'token', 'create', 'reviewer', '--name', 'ci', '--expires', '2w')).stdout).data;
    expect(made.token).toMatch(/^wb_[A-Za-z0-9_-]{43}$/);
    const days = (Date.parse(made.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.9);
    expect(days).toBeLessThanOrEqual(14);
    const plain = JSON.parse((await wb('--json', 'token', 'create', 'MIRA@example.com')).stdout).data;
    expect(plain.identity).toBe('mira@example.com');
    // The default expiry is docs/operators.md's: 30 days.
    expect(Math.round((Date.parse(plain.expiresAt) - Date.now()) / 86_400_000)).toBe(30);

    const file = await fs.readFile(path.join(dir, '.work/tokens.json'), 'utf8');
    expect(file).not.toContain(made.token);
    expect(file).toContain(sha256Hex(made.token));

    const list = JSON.parse((await wb('--json', 'token', 'list')).stdout).data.tokens;
    expect(list).toEqual([
      { id: made.id, name: 'ci', identity: 'reviewer', createdAt: expect.any(String), expiresAt: made.expiresAt, lastUsedAt: null },
      { id: plain.id, name: null, identity: 'mira@example.com', createdAt: expect.any(String), expiresAt: plain.expiresAt, lastUsedAt: null },
    ]);
    const text = (await wb('token', 'list')).stdout;
    expect(text).toContain(made.id);
    expect(text).not.toContain(made.token);

    const dup = await wb('token', 'create', 'reviewer', '--name', 'ci');
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('a token named "ci" exists already');
    // Every problem at once, and nothing changes.
    const bad = await wb('token', 'create', 'nobody', '--name', 'two words', '--expires', '999d');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown identity "nobody"[\s\S]*999d is more than 366 days[\s\S]*"two words" must be/);
    expect(await fs.readFile(path.join(dir, '.work/tokens.json'), 'utf8')).toBe(file);

    const rotated = JSON.parse((await wb('--json', 'token', 'rotate', 'ci')).stdout).data;
    expect(rotated).toMatchObject({ id: made.id, name: 'ci', identity: 'reviewer' });
    expect(rotated.token).not.toBe(made.token);
    expect((await wb('--json', 'token', 'revoke', plain.id)).code).toBe(0);
    expect((await wb('token', 'revoke', plain.id)).stderr).toContain(`no token "${plain.id}"`);
    expect(JSON.parse((await wb('--json', 'token', 'list')).stdout).data.tokens.map((t: { id: string }) => t.id)).toEqual([made.id]);

    const events = (await chainEvents(path.join(dir, 'audit/board.jsonl'))).filter((e) => e.action.startsWith('token.'));
    expect(events.map((e) => [e.action, e.input.changes.id])).toEqual([
      ['token.created', made.id],
      ['token.created', plain.id],
      ['token.rotated', made.id],
      ['token.revoked', plain.id],
    ]);
    for (const e of events) {
      expect(typeof e.input.osUser).toBe('string');
      for (const secret of [made.token, rotated.token, plain.token]) {
        expect(JSON.stringify(e)).not.toContain(secret);
        expect(JSON.stringify(e)).not.toContain(sha256Hex(secret));
      }
    }
    expect((await wb('audit', 'verify')).code).toBe(0);
  });

  it('8 concurrent token create processes leave 8 tokens, each of which works', async () => {
    const { dir, wb } = await boardWith({ agents: ['reviewer'] });
    const made = await Promise.all(Array.from({ length: 8 }, (_, i) => wb('--json', 'token', 'create', 'reviewer', '--name', `w${i}`)));
    for (const r of made) expect(r.code, r.stderr).toBe(0);
    const secrets = made.map((r) => JSON.parse(r.stdout).data.token as string);
    const board = await Board.open(dir);
    expect((await listTokens(board.state)).map((t) => t.name).sort()).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7']);
    const serving = await serveHttp(dir);
    try {
      for (const s of secrets) expect((await rpc(serving.url, s)).status).toBe(200);
    } finally {
      await serving.stop();
    }
    expect((await chainEvents(path.join(dir, 'audit/board.jsonl'))).filter((e) => e.action === 'token.created')).toHaveLength(8);
  });
});

describe('a running serve --http and tokens changed by other processes', () => {
  let dir: string;
  let wb: Awaited<ReturnType<typeof boardWith>>['wb'];
  let serving: Serving;
  const clients: Client[] = [];

  beforeAll(async () => {
    ({ dir, wb } = await boardWith({ agents: ['reviewer'], people: ['mira@example.com'] }));
    serving = await serveHttp(dir);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  });
  afterAll(async () => serving.stop());

  async function connect(token: string): Promise<Client> {
    const c = new Client({ name: 'test', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(serving.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(c);
    return c;
  }

  it('revoked by another process while a client is connected: the next request is 401', async () => {
    const t = JSON.parse((await wb('--json', 'token', 'create', 'reviewer', '--name', 'laptop')).stdout).data;
    const other = JSON.parse((await wb('--json', 'token', 'create', 'reviewer')).stdout).data;
    const c = await connect(t.token);
    expect((await c.listTools()).tools.length).toBeGreaterThan(0);
    expect((await wb('token', 'revoke', 'laptop')).code).toBe(0);
    await expect(c.listTools()).rejects.toThrow(/401|nauthorized/);
    const raw = await rpc(serving.url, t.token);
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toBe('Bearer');
    // Another token of the same agent is untouched.
    expect((await rpc(serving.url, other.token)).status).toBe(200);
  });

  it('rotated by another process: the old secret is 401 at once, the new one works', async () => {
    const t = JSON.parse((await wb('--json', 'token', 'create', 'reviewer', '--name', 'rot')).stdout).data;
    expect((await rpc(serving.url, t.token)).status).toBe(200);
    const next = JSON.parse((await wb('--json', 'token', 'rotate', 'rot')).stdout).data;
    expect((await rpc(serving.url, t.token)).status).toBe(401);
    expect((await rpc(serving.url, next.token)).status).toBe(200);
  });

  it('an expired token is 401, saying it expired', async () => {
    const board = await Board.open(dir);
    // Made two hours ago to live one hour: it expired an hour ago.
    const t = await createToken(board.store, 'mira@example.com', new Date(Date.now() - 2 * 3_600_000), { expires: '1h' });
    const res = await rpc(serving.url, t.token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ error: 'unauthorized', reason: 'this token has expired; make a new one with workboard token rotate' });
    expect((await wb('token', 'list')).stdout).toMatch(new RegExp(`${t.id}.*expires expired `));
  });

  it('a use is written down as last used (to the minute) by the server, without losing a concurrent create', async () => {
    const t = JSON.parse((await wb('--json', 'token', 'create', 'reviewer', '--name', 'used')).stdout).data;
    const before = Date.now();
    const [res, created] = await Promise.all([rpc(serving.url, t.token), wb('--json', 'token', 'create', 'reviewer', '--name', 'meanwhile')]);
    expect(res.status).toBe(200);
    expect(created.code).toBe(0);
    const board = await Board.open(dir);
    let used: string | null = null;
    for (let i = 0; i < 100 && used === null; i++) {
      used = (await listTokens(board.state)).find((x) => x.id === t.id)?.lastUsedAt ?? null;
      if (used === null) await new Promise((r) => setTimeout(r, 50));
    }
    expect(used).not.toBeNull();
    expect(Date.parse(used!)).toBeGreaterThanOrEqual(before - 1000);
    expect((await listTokens(board.state)).map((x) => x.name)).toContain('meanwhile');
  });
});

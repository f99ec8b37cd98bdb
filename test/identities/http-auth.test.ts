/**
 * HTTP authentication hygiene (issue 17): 401 says `WWW-Authenticate: Bearer`;
 * the OAuth discovery paths MCP clients probe answer 404, so the SDK's own
 * discovery finds nothing and a client configured with the header connects;
 * an address that keeps failing is answered 429 without its token being
 * looked at, with bounded memory.
 */
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { addressKey, Throttle } from '../../src/core/throttle.js';
import { createHttpServer } from '../../src/http/server.js';
import { createToken } from '../../src/service/credentials.js';
import { Service } from '../../src/service/service.js';
import { cleanupTmp } from '../support/tmp-board.js';
import { boardWith, rpc, serveHttp, type Serving } from './support.js';

afterAll(cleanupTmp);

describe('the failure throttle (pure, time given in)', () => {
  it('allows a burst, then one more per refill period; successes are not counted', () => {
    const t = new Throttle({ burst: 3, refillMs: 1000, maxKeys: 10 });
    for (let i = 0; i < 3; i++) {
      expect(t.waitMs('10.0.0.1', 0)).toBe(0);
      t.failed('10.0.0.1', 0);
    }
    expect(t.waitMs('10.0.0.1', 0)).toBe(1000);
    expect(t.waitMs('10.0.0.1', 400)).toBe(600);
    expect(t.waitMs('10.0.0.2', 0)).toBe(0); // another address is not slowed
    expect(t.waitMs('10.0.0.1', 1000)).toBe(0);
    t.failed('10.0.0.1', 1000);
    expect(t.waitMs('10.0.0.1', 1000)).toBe(1000);
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped one as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  it('remembers at most maxAddresses addresses', () => {
    const t = new Throttle({ burst: 1, refillMs: 60_000, maxKeys: 100 });
    for (let i = 0; i < 10_000; i++) t.failed(`10.0.${i >> 8}.${i & 255}`, 0);
    expect((t as unknown as { buckets: Map<string, unknown> }).buckets.size).toBe(100);
    expect(t.waitMs('10.0.39.15', 0)).toBeGreaterThan(0); // the most recent are kept
  });
});

describe('a real serve --http', () => {
  let serving: Serving;
  let token: string;

  beforeAll(async () => {
    const { dir, wb } = await boardWith({ agents: ['reviewer'] });
    token = JSON.parse((await wb('--json', 'token', 'create', 'reviewer')).stdout).data.token;
    serving = await serveHttp(dir);
  });
  afterAll(async () => serving.stop());

  it('answers 404, not 401, on the OAuth discovery paths, with or without a token', async () => {
    const base = new URL('/', serving.url);
    const paths = [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-authorization-server/mcp',
      '/.well-known/openid-configuration',
      '/mcp/.well-known/openid-configuration',
    ];
    for (const p of paths) {
      for (const headers of [{}, { authorization: `Bearer ${token}` }, { authorization: 'Bearer wb_wrong' }] as Record<string, string>[]) {
        const res = await fetch(new URL(p, base), { headers });
        expect(res.status, p).toBe(404);
        expect(res.headers.get('www-authenticate')).toBeNull();
      }
    }
    // The SDK's own discovery, as an MCP client runs it, finds no OAuth and so uses the header.
    await expect(discoverOAuthProtectedResourceMetadata(serving.url)).rejects.toThrow(/404|not/i);
    expect(await discoverAuthorizationServerMetadata(base)).toBeUndefined();
  });

  it('401 carries WWW-Authenticate: Bearer; the SDK client configured with the header connects and calls a tool', async () => {
    for (const t of [null, 'wb_wrong', 'not-even-a-token']) {
      const res = await rpc(serving.url, t);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    const c = new Client({ name: 'test', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(serving.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const r = await c.callTool({ name: 'describe', arguments: {} });
    expect((r.structuredContent as { ok: boolean }).ok).toBe(true);
    await c.close();
  });
});

describe('repeated failures from one address over HTTP', () => {
  it('after the burst, the address gets 429 with Retry-After, even with a good token; the well-known paths stay 404', async () => {
    const { dir } = await boardWith({ agents: ['reviewer'] });
    const board = await Board.open(dir);
    const good = (await createToken(board.store, 'reviewer', new Date())).token;
    const service = await Service.open(board);
    const server = createHttpServer(service, 'test', { authFailureBurst: 5, authFailureRefillMs: 60_000 });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    try {
      expect((await rpc(url, good)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await rpc(url, `wb_guess${i}`)).status).toBe(401);
      const slowed = await rpc(url, 'wb_guess6');
      expect(slowed.status).toBe(429);
      expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await slowed.json()).error).toMatch(/too many failed authentications/);
      // The token is not even looked at while the address is slowed down.
      expect((await rpc(url, good)).status).toBe(429);
      expect((await fetch(new URL('/.well-known/oauth-protected-resource', url))).status).toBe(404);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

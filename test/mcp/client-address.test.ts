/**
 * Whose address a failed authentication is counted under (issue 25, item 4),
 * for MCP's bearer tokens and the web's sign-in codes alike: the socket's
 * peer, unless WORKBOARD_TRUST_PROXY names it as a proxy; then the last
 * address X-Forwarded-For gives that is not a trusted proxy. Pure.
 */
import { describe, expect, it } from 'vitest';
import { clientAddress, trustedProxies } from '../../src/core/client-address.js';

describe('the client address behind a proxy', () => {
  it('X-Forwarded-For is ignored unless WORKBOARD_TRUST_PROXY is set, and from any peer it does not name', () => {
    expect(trustedProxies({})).toBeNull();
    expect(clientAddress('127.0.0.1', '203.0.113.7', null)).toBe('127.0.0.1');
    expect(clientAddress('198.51.100.2', '203.0.113.7', trustedProxies({ WORKBOARD_TRUST_PROXY: '127.0.0.1' }))).toBe('198.51.100.2');
  });

  it("from a trusted proxy, the last hop it appended; what the client wrote before it, and the proxies' own hops, are not believed", () => {
    const t = trustedProxies({ WORKBOARD_TRUST_PROXY: 'loopback, 10.0.0.5' });
    expect(clientAddress('::1', '203.0.113.7', t)).toBe('203.0.113.7');
    expect(clientAddress('127.0.0.1', '6.6.6.6, 203.0.113.7', t)).toBe('203.0.113.7');
    expect(clientAddress('127.0.0.1', ['6.6.6.6', '203.0.113.7, 10.0.0.5'], t)).toBe('203.0.113.7');
    expect(clientAddress('::ffff:127.0.0.1', undefined, t)).toBe('::ffff:127.0.0.1');
  });
});

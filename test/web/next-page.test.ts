/** Where a signed-out visitor may be sent back to after sign-in: only pages of ours, never another site. */
import { describe, expect, it } from 'vitest';
import { safeNext } from '../../src/web/security.js';

describe('the page to land on after sign-in', () => {
  it('keeps the pages notifications link to, with a query', () => {
    for (const p of ['/operators', '/runs/r-01m8ryx2q2v3jvhd2f1j384h6b', '/work/r-01m8ryx2q2v3jvhd2f1j384h6b/w-2382b96ffae2065b6855fca9c0', '/runs?process=payout&state=active', '/processes/payout']) {
      expect(safeNext(p)).toBe(p);
    }
  });

  it('refuses anything that could lead elsewhere or loop', () => {
    for (const p of ['//evil.example.com/work', 'https://evil.example.com/work', '/\\evil.example.com', '/signin', '/signout', '/events?topic=work', '/work/../signin', '/work/<script>', '', 'work']) {
      expect(safeNext(p)).toBeNull();
    }
    expect(safeNext(undefined)).toBeNull();
  });
});

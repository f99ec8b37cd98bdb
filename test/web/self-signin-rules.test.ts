/**
 * The rules of asking for a sign-in link, without disk or network: how a
 * typed address is read, whom it reaches (a declared person under any of
 * their addresses; never an agent, an operator who is no person, or a
 * stranger), the email's words, and the throttle per address, per person
 * and per trusted client on a clock of our own.
 */
import { describe, expect, it } from 'vitest';
import { addressProblem, normaliseAddress, recipientFor, signInMessage } from '../../src/web/signin-email.js';
import { LinkThrottle } from '../../src/web/signin-throttle.js';

const PEOPLE = {
  people: [
    { email: 'Mira@Example.com', name: 'Mira Okafor', formerEmails: ['mira.o@old.example', 'm@old.example'] },
    { email: 'jon@example.com' },
    // Took an address Mira once had: the current owner of an address wins.
    { email: 'm@old.example', name: 'Max Olsen' },
  ],
};

describe('whom an address reaches', () => {
  it('reads what was typed trimmed and in lower case, and names what is not an address', () => {
    expect(normaliseAddress('  Mira@Example.COM \n')).toBe('mira@example.com');
    expect(addressProblem('')).toBe('Enter your email address.');
    expect(addressProblem('reviewer')).toMatch(/"reviewer" is not an email address/);
    expect(addressProblem('mira@example.com')).toBeNull();
  });

  it('is the declared person, by a current or a former address, and the link goes to where they are now', () => {
    expect(recipientFor(PEOPLE, 'mira@example.com')).toEqual({ email: 'mira@example.com', name: 'Mira Okafor' });
    expect(recipientFor(PEOPLE, 'mira.o@old.example')).toEqual({ email: 'mira@example.com', name: 'Mira Okafor' });
    expect(recipientFor(PEOPLE, 'jon@example.com')).toEqual({ email: 'jon@example.com', name: 'jon@example.com' });
    expect(recipientFor(PEOPLE, 'm@old.example')).toEqual({ email: 'm@old.example', name: 'Max Olsen' });
  });

  it('is nobody for a stranger, an agent id or an operator WORK.md does not list as a person', () => {
    const board = { people: PEOPLE.people, agents: [{ id: 'reviewer' }], operators: ['ops@example.com'] };
    for (const a of ['nobody@example.com', 'reviewer', 'ops@example.com', '']) expect(recipientFor(board, a)).toBeNull();
  });
});

describe('the email', () => {
  it('names the board and the person, says how long the link lasts, and carries it in both parts', () => {
    const link = 'https://work.example.com/signin?code=wbl_abc&next=%2Fwork%2Fr-1%2Fw-2';
    const m = signInMessage({ title: 'Finance <& Ops>' }, { email: 'mira@example.com', name: 'Mira Okafor' }, link);
    expect(m.subject).toBe('Your sign-in link for Finance <& Ops>');
    expect(m.text).toContain('Hello Mira Okafor,');
    expect(m.text).toContain('sign in to Finance <& Ops>');
    expect(m.text).toContain('valid for 15 minutes, once');
    expect(m.text).toContain(`\n${link}\n`);
    // The HTML escapes what the board's title holds, and links to the very same URL.
    expect(m.html).toContain('Finance &lt;&amp; Ops>');
    expect(m.html).toContain(`href="${link.replace(/&/g, '&amp;')}"`);
    expect(m.html).not.toContain('<& Ops>');
  });
});

describe('the throttle on links', () => {
  const asker = (peer: string, forwardedFor?: string) => ({ peer, forwardedFor });

  it('lets 3 asks for one address through in a burst, then one every 5 minutes', () => {
    let now = 0;
    const t = new LinkThrottle(null, () => now);
    const a = asker('10.0.0.1');
    expect([1, 2, 3, 4].map(() => t.ask(a, 'mira@example.com'))).toEqual([true, true, true, false]);
    expect(t.ask(a, 'jon@example.com')).toBe(true); // another address has its own bucket
    now += 4 * 60_000;
    expect(t.ask(a, 'mira@example.com')).toBe(false);
    now += 60_000;
    expect(t.ask(a, 'mira@example.com')).toBe(true);
    expect(t.ask(a, 'mira@example.com')).toBe(false);
  });

  it('counts a person under every address of theirs: 3 links, then one every 5 minutes', () => {
    let now = 0;
    const t = new LinkThrottle(null, () => now);
    expect([1, 2, 3, 4].map(() => t.send('mira@example.com'))).toEqual([true, true, true, false]);
    now += 5 * 60_000;
    expect(t.send('mira@example.com')).toBe(true);
    expect(t.send('jon@example.com')).toBe(true);
  });

  it('counts a client only when a trusted proxy says who it is: 10 asks, then one every 90 s', () => {
    let now = 0;
    const trusted = new LinkThrottle(new Set(['127.0.0.1']), () => now);
    const client = asker('127.0.0.1', '203.0.113.9');
    const asks = Array.from({ length: 11 }, (_, i) => trusted.ask(client, `p${i}@example.com`));
    expect(asks.filter(Boolean)).toHaveLength(10);
    expect(asks[10]).toBe(false);
    expect(trusted.ask(asker('127.0.0.1', '203.0.113.10'), 'q@example.com')).toBe(true); // another client behind the same proxy
    now += 90_000;
    expect(trusted.ask(client, 'r@example.com')).toBe(true);

    const untrusted = new LinkThrottle(null, () => now);
    expect(Array.from({ length: 20 }, (_, i) => untrusted.ask(asker('127.0.0.1'), `p${i}@example.com`)).every(Boolean)).toBe(true);
  });
});

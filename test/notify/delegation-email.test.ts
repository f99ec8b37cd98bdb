/**
 * A delegate is told, by email over real SMTP on loopback, through the
 * outbox (docs/people.md "Out of office"): when a person hands them their
 * work (who, from when to when in the board's zone, which processes, the
 * note), when it ends early (and who ended it), and when the person hands it
 * to someone else instead. A refused delegation tells nobody.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { allEntries } from '../../src/notify/outbox.js';
import { cleanupHarnesses, type Harness } from '../support/svc-harness.js';
import { CAST, daemonOn, notifyBoard, smtpServer, type Clocks, type Smtp } from './support.js';

// Monday 7 December 2026, 09:00 in Berlin.
const MONDAY_9 = '2026-12-07T08:00:00.000Z';
const FRIDAY_17 = '2026-12-11T16:00:00.000Z';

const open: (Clocks | Smtp)[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('daemon' in x ? x.stop() : x.close());
  await cleanupHarnesses();
});

async function setup(): Promise<{ smtp: Smtp; h: Harness; d: Clocks }> {
  const smtp = await smtpServer();
  open.push(smtp);
  const h = await notifyBoard({
    finance: [CAST.fin, CAST.lee],
    notifications: { email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port } }, timeZone: 'Europe/Berlin' },
    spec: { start: MONDAY_9 },
  });
  const names: Record<string, string> = { [CAST.fin]: 'Fin Lund', [CAST.bob]: 'Bob Ames', [CAST.lee]: 'Lee Park', [CAST.operator]: 'Olga Berg' };
  await editManifest(h.board, CAST.operator, 'people.named', (m) => {
    for (const p of m.people as { email: string; name?: string }[]) if (names[p.email]) p.name = names[p.email];
    return 'names';
  });
  const d = await daemonOn(h);
  open.push(d);
  return { smtp, h, d };
}

describe('a delegate is told', () => {
  it('by email when handed the work, in words and the board’s time zone, and again when it ends early', async () => {
    const { smtp, h, d } = await setup();
    const set = await h.service.delegate({ from: CAST.fin, to: CAST.bob, until: FRIDAY_17, note: 'Back on Friday.' }, h.as(CAST.fin));
    expect(set.ok).toBe(true);
    await d.plan();
    expect(smtp.mails.map((m) => m.to)).toEqual([[CAST.bob]]);
    const told = smtp.mails[0]!;
    expect(told.subject).toBe('Fin Lund handed you their work until Fri 11 Dec 2026, 17:00 CET');
    expect(told.text).toContain('Fin Lund is out of office from Mon 7 Dec 2026, 09:00 CET until Fri 11 Dec 2026, 17:00 CET, and handed you their work in “Claim review”.');
    expect(told.text).toContain('marked “For Fin Lund”');
    expect(told.text).toContain('Their note: “Back on Friday.”');
    expect(told.text).not.toContain('Set by');
    expect(told.text).toContain('/work');

    // A day later an operator ends it: Bob is told it ended early, when, and by whom.
    await d.advance(24 * 3_600_000);
    expect(await h.service.endDelegation(CAST.fin, h.as(CAST.operator))).toEqual({ ok: true, data: { ended: true } });
    await d.plan();
    expect(smtp.mails).toHaveLength(2);
    const ended = smtp.mails[1]!;
    expect(ended.to).toEqual([CAST.bob]);
    expect(ended.subject).toBe('Fin Lund is back: their work no longer comes to you');
    expect(ended.text).toContain('ended early, at Tue 8 Dec 2026, 09:00 CET');
    expect(ended.text).toContain('Ended by Olga Berg.');
    // Ending it again tells nobody.
    expect(await h.service.endDelegation(CAST.fin, h.as(CAST.operator))).toEqual({ ok: true, data: { ended: false } });
    await d.plan();
    expect(smtp.mails).toHaveLength(2);
  }, 60_000);

  it('when the work goes to someone else instead, both are told; a refused delegation tells nobody', async () => {
    const { smtp, h, d } = await setup();
    expect((await h.service.delegate({ from: CAST.fin, to: CAST.bob, until: FRIDAY_17 }, h.as(CAST.fin))).ok).toBe(true);
    expect((await h.service.delegate({ from: CAST.fin, to: 'nobody@example.com', until: '2026-12-01T00:00:00.000Z' }, h.as(CAST.fin))).ok).toBe(false);
    expect((await h.service.delegate({ from: CAST.fin, to: CAST.ed, until: FRIDAY_17 }, h.as(CAST.operator))).ok).toBe(true);
    await d.plan();
    // The outbox delivers them in any order.
    expect(smtp.mails.map((m) => `${m.to.join(',')}: ${m.subject}`).sort()).toEqual([
      `${CAST.bob}: Fin Lund handed you their work until Fri 11 Dec 2026, 17:00 CET`,
      `${CAST.bob}: Fin Lund’s work goes to ed@example.com now, no longer to you`,
      `${CAST.ed}: Fin Lund handed you their work until Fri 11 Dec 2026, 17:00 CET`,
    ]);
    expect(smtp.mails.find((m) => m.to[0] === CAST.ed)!.text).toContain('Set by Olga Berg.');
    // Every record went out: nothing is left waiting in the outbox.
    expect((await allEntries(h.board.state)).filter((e) => e.kind.startsWith('delegation_') && (e.deliveries === null || e.deliveries === undefined))).toEqual([]);
  }, 60_000);
});

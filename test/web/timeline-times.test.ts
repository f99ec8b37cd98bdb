/**
 * The run page's timeline says a moment a line names (a lease's end, a wait's
 * end) in the board's time zone and in words, as the rest of the page does;
 * `workboard log` and git keep the UTC form. In process on a real socket,
 * with a real session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editManifest } from '../../src/board/people.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { inProcessWeb, pageAs } from './http-support.js';

const CONFIG = { publicOrigin: null, secure: false };

let h: Harness;
let origin: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  h = await Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });
  await editManifest(h.board, 'test', 'timeZone.set', (d) => {
    d.notifications = { ...(d.notifications ?? {}), timeZone: 'America/New_York' };
    return 'time zone';
  });
  ({ origin, close } = await inProcessWeb(h.service, CONFIG));
});

afterAll(async () => {
  await close?.();
  await cleanupHarnesses();
});

describe('the run page timeline', () => {
  it('says when a claim runs out in the board’s zone, in words', async () => {
    const started = await h.start('claim-review', { claimant: CAST.ann, amount: 10 });
    const claimed = await h.claim(started.run.id, 'check');
    const page = await pageAs(h.board, origin, `/runs/${started.run.id}`, CAST.fin);
    const timeline = /<ol class="timeline"[^>]*>([\s\S]*?)<\/ol>/.exec(page)?.[1] ?? '';
    const claim = timeline.split('</li>').find((li) => li.includes('claimed')) ?? '';
    // 2026-10-06 is summer time in New York: UTC-4, so a lease ending at 10:00Z ends at 06:00 EDT.
    const ends = new Date(claimed.expiresAt);
    expect(ends.toISOString()).toMatch(/^2026-10-06T/);
    const hour = String(ends.getUTCHours() - 4).padStart(2, '0');
    const minute = String(ends.getUTCMinutes()).padStart(2, '0');
    expect(claim).toContain(`until Tue 6 Oct 2026, ${hour}:${minute} EDT`);
    expect(claim).not.toContain('2026-10-06 ');
  });
});

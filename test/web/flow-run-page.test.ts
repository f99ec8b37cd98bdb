/**
 * flow-1 on the people's run page (docs/profile-flow-1.md): a blocked run says
 * it is blocked and names each run it waits for by its title, linked, with
 * where it stands; once woken it shows what it waited for; its priority is in
 * words. A run of a process without the profile shows none of it. In process,
 * on a real socket, signed in with a real session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { inProcessWeb, pageAs, sectionText, shownRunIds } from './http-support.js';

const CONFIG = { publicOrigin: null, secure: false };

let h: Harness;
let origin: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  h = await Harness.open({
    groups: { legal: [CAST.lee], finance: [CAST.fin] },
    processes: [
      { folder: 'contract-approval', roles: { legal: 'legal' } },
      { folder: 'supplier-payment', roles: { finance: 'finance' } },
    ],
  });
  ({ origin, close } = await inProcessWeb(h.service, CONFIG));
});

afterAll(async () => {
  await close?.();
  await cleanupHarnesses();
});

const page = (path: string, email: string = CAST.fin) => pageAs(h.board, origin, path, email, CONFIG);

const flowText = (html: string) => sectionText(html, 'flow-h');

describe('the run page of a flow-1 run', () => {
  it('says a blocked run is blocked and names what it waits for; once woken, what it waited for', async () => {
    const contract = await h.start('contract-approval', { supplier: 'Acme' });
    const payment = await h.start('supplier-payment', { supplier: 'Acme', amount: 100, urgency: 'urgent', after: [contract.run.id] });
    const blocked = await page(`/runs/${payment.run.id}`);
    expect(blocked).toContain('<span class="blocked-tag">Blocked</span>');
    expect(blocked).toContain(`<a href="/runs/${contract.run.id}">Contract approval · Acme</a>`);
    expect(flowText(blocked)).toBe('BlockedPriority: UrgentIts work starts once every one of these runs has ended well:Contract approval · Acme · Waiting');
    // The timeline and the inputs name the contract by its title, the inputs with a link; no id is shown as words.
    expect(sectionText(blocked, 'audit-h')).toContain('the run waits for “Contract approval · Acme” to end');
    expect(sectionText(blocked, 'inputs-h')).toContain('Contract approval · Acme');
    expect(new RegExp(`<section aria-labelledby="inputs-h">[\\s\\S]*<a href="/runs/${contract.run.id}">Contract approval · Acme</a>`).test(blocked)).toBe(true);
    expect(shownRunIds(blocked)).toEqual([]);

    await h.decide(await h.view(contract.run.id), 'review', 'approved', CAST.lee);
    const woken = await page(`/runs/${payment.run.id}`);
    expect(woken).not.toContain('blocked-tag');
    expect(flowText(woken)).toBe('Priority and dependenciesPriority: UrgentIt waited for:Contract approval · Acme · Ended: approved');
    expect(shownRunIds(woken)).toEqual([]);

    // A blocker rejected: the run it blocked ends naming it by title, on the page of the run that ended.
    const other = await h.start('contract-approval', { supplier: 'Shady' });
    const failing = await h.start('supplier-payment', { supplier: 'Shady', amount: 5, after: [other.run.id] });
    await h.decide(await h.view(other.run.id), 'review', 'rejected', CAST.lee, { note: 'Sanctioned owner.' });
    const failed = await page(`/runs/${failing.run.id}`);
    expect(failed).toContain('blocked by “Contract approval · Shady”, which ended rejected');
    expect(shownRunIds(failed)).toEqual([]);
  });

  it('shows nothing of the profile on a run of a process without it', async () => {
    const contract = await h.start('contract-approval', { supplier: 'Plain' });
    const html = await page(`/runs/${contract.run.id}`);
    expect(flowText(html)).toBeNull();
    expect(html).not.toContain('Priority');
  });
});

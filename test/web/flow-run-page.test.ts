/**
 * flow-1 on the people's run page (docs/profile-flow-1.md): a blocked run says
 * it is blocked and names each run it waits for by its title, linked, with
 * where it stands; once woken it shows what it waited for; its priority is in
 * words. A run of a process without the profile shows none of it. In process,
 * on a real socket, signed in with a real session.
 */
import { describe, expect, it } from 'vitest';
import { CAST } from '../support/svc-harness.js';
import { sectionText, servedHarness, shownRunIds } from './http-support.js';

const web = servedHarness({
  groups: { legal: [CAST.lee], finance: [CAST.fin] },
  processes: [
    { folder: 'contract-approval', roles: { legal: 'legal' } },
    { folder: 'supplier-payment', roles: { finance: 'finance' } },
  ],
});

const flowText = (html: string) => sectionText(html, 'flow-h');

describe('the run page of a flow-1 run', () => {
  it('says a blocked run is blocked and names what it waits for; once woken, what it waited for', async () => {
    const contract = await web.h.start('contract-approval', { supplier: 'Acme' });
    const payment = await web.h.start('supplier-payment', { supplier: 'Acme', amount: 100, urgency: 'urgent', after: [contract.run.id] });
    const blocked = await web.page(`/runs/${payment.run.id}`);
    expect(blocked).toContain('<span class="blocked-tag">Blocked</span>');
    expect(blocked).toContain(`<a href="/runs/${contract.run.id}">Contract approval · Acme</a>`);
    expect(flowText(blocked)).toBe('BlockedPriority: UrgentIts work starts once every one of these runs has ended well:Contract approval · Acme · Waiting');
    // The timeline and the inputs name the contract by its title, the inputs with a link; no id is shown as words.
    expect(sectionText(blocked, 'audit-h')).toContain('the run waits for “Contract approval · Acme” to end');
    expect(sectionText(blocked, 'inputs-h')).toContain('Contract approval · Acme');
    expect(new RegExp(`<section aria-labelledby="inputs-h">[\\s\\S]*<a href="/runs/${contract.run.id}">Contract approval · Acme</a>`).test(blocked)).toBe(true);
    expect(shownRunIds(blocked)).toEqual([]);

    await web.h.decide(await web.h.view(contract.run.id), 'review', 'approved', CAST.lee);
    const woken = await web.page(`/runs/${payment.run.id}`);
    expect(woken).not.toContain('blocked-tag');
    expect(flowText(woken)).toBe('Priority and dependenciesPriority: UrgentIt waited for:Contract approval · Acme · Ended: approved');
    expect(shownRunIds(woken)).toEqual([]);

    // A blocker rejected: the run it blocked ends naming it by title, on the page of the run that ended.
    const other = await web.h.start('contract-approval', { supplier: 'Shady' });
    const failing = await web.h.start('supplier-payment', { supplier: 'Shady', amount: 5, after: [other.run.id] });
    await web.h.decide(await web.h.view(other.run.id), 'review', 'rejected', CAST.lee, { note: 'Sanctioned owner.' });
    const failed = await web.page(`/runs/${failing.run.id}`);
    expect(failed).toContain('blocked by “Contract approval · Shady”, which ended rejected');
    expect(shownRunIds(failed)).toEqual([]);
  });

  it('shows nothing of the profile on a run of a process without it', async () => {
    const contract = await web.h.start('contract-approval', { supplier: 'Plain' });
    const html = await web.page(`/runs/${contract.run.id}`);
    expect(flowText(html)).toBeNull();
    expect(html).not.toContain('Priority');
  });
});

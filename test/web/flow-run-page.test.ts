/**
 * flow-1 on the people's run page (docs/profile-flow-1.md): a blocked run says
 * it is blocked and names each run it waits for by its title, linked, with
 * where it stands; once woken it shows what it waited for; its priority is in
 * words. A run of a process without the profile shows none of it. In process,
 * on a real socket, signed in with a real session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieName } from '../../src/web/security.js';
import { createLoginLink, redeemCode } from '../../src/web/sessions.js';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
import { inProcessWeb } from './http-support.js';

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

async function page(path: string, email = CAST.fin): Promise<string> {
  const code = new URL(await createLoginLink(h.board, email, origin)).searchParams.get('code')!;
  const token = (await redeemCode(h.board, code))!.token;
  const res = await fetch(`${origin}${path}`, { headers: { cookie: `${cookieName(CONFIG)}=${token}` } });
  expect(res.status).toBe(200);
  return res.text();
}

/** The page's text between its flow section's heading and the next section, tags dropped. */
const flowText = (html: string) => /<section aria-labelledby="flow-h">([\s\S]*?)<\/section>/.exec(html)?.[1]?.replace(/<[^>]+>/g, '').replace(/&#x27;|&#39;/g, "'") ?? null;

describe('the run page of a flow-1 run', () => {
  it('says a blocked run is blocked and names what it waits for; once woken, what it waited for', async () => {
    const contract = await h.start('contract-approval', { supplier: 'Acme' });
    const payment = await h.start('supplier-payment', { supplier: 'Acme', amount: 100, urgency: 'urgent', after: [contract.run.id] });
    const blocked = await page(`/runs/${payment.run.id}`);
    expect(blocked).toContain('<span class="blocked-tag">Blocked</span>');
    expect(blocked).toContain(`<a href="/runs/${contract.run.id}">Contract approval · Acme</a>`);
    expect(flowText(blocked)).toBe('BlockedPriority: UrgentIts work starts once every one of these runs has ended well:Contract approval · Acme · Waiting');

    await h.decide(await h.view(contract.run.id), 'review', 'approved', CAST.lee);
    const woken = await page(`/runs/${payment.run.id}`);
    expect(woken).not.toContain('blocked-tag');
    expect(flowText(woken)).toBe('Priority and dependenciesPriority: UrgentIt waited for:Contract approval · Acme · Ended: approved');
  });

  it('shows nothing of the profile on a run of a process without it', async () => {
    const contract = await h.start('contract-approval', { supplier: 'Plain' });
    const html = await page(`/runs/${contract.run.id}`);
    expect(flowText(html)).toBeNull();
    expect(html).not.toContain('Priority');
  });
});

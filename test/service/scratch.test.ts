import { afterAll, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness, upstream } from '../support/svc-harness.js';
afterAll(cleanupHarnesses);
it('scratch', async () => {
  let t = Date.now();
  upstream(); console.log('ajv', Date.now() - t); t = Date.now();
  const h = await Harness.open({ groups: { finance: [CAST.fin] }, processes: [{ folder: 'claim-review', roles: { 'finance-approver': 'finance' } }] });
  console.log('open', Date.now() - t); t = Date.now();
  const v = await h.start('claim-review', { claimant: CAST.ann, amount: 12 });
  console.log('start', Date.now() - t); t = Date.now();
  const c = await h.claim(v.run.id, 'check');
  console.log('claim', Date.now() - t); t = Date.now();
  await h.view(v.run.id);
  console.log('view', Date.now() - t); t = Date.now();
  for (let i = 0; i < 5; i++) await h.ok('renew', { token: (await h.ok('renew', { token: c.token }, CAST.agent)).token }, CAST.agent).catch(() => {});
  console.log('renews', Date.now() - t); t = Date.now();
});

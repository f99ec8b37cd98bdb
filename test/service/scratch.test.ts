import { afterAll, it } from 'vitest';
import { CAST, cleanupHarnesses, Harness } from '../support/svc-harness.js';
afterAll(cleanupHarnesses);
it('scratch', async () => {
  const h = await Harness.open({ processes: [{ folder: 'welcome-pack' }] });
  const v = await h.start('welcome-pack', { newcomer: 'Sam' }, CAST.cat);
  const c = await h.claim(v.run.id, 'pick_gift');
  console.log('claim view state', (await h.view(v.run.id)).run.state);
  const after = await h.ok('submit', { token: c.token, output: { gift: 'A mug' }, summary: 'Picked.' }, CAST.agent);
  console.log('submit', after.run.state, 'get_run', (await h.view(v.run.id)).run.state);
});

/**
 * What operators hear about the board itself, through a daemon on a fake
 * clock as `serve` runs one: a refused hand edit reaches the operators once,
 * linking to the run's page.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cleanupHarnesses } from '../support/svc-harness.js';
import { CAST, daemonOn, notifyBoard, toApproval, webhookReceiver, type Clocks, type Receiver } from './support.js';
import { until as waitUntil } from '../support/until.js';

const until = <T>(what: () => Promise<T | undefined> | T | undefined, ms = 10_000) => waitUntil(what, ms, 50);

const open: (Receiver | Clocks)[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('daemon' in x ? x.stop() : x.close());
  await cleanupHarnesses();
});

it('a refused hand edit is told to the operators once, linking to the run', async () => {
  const hook = await webhookReceiver();
  open.push(hook);
  const h = await notifyBoard({ notifications: { webhook: { url: hook.url } } });
  const view = await toApproval(h);
  const runId = view.run.id as string;
  const clocks = await daemonOn(h);
  open.push(clocks);
  await clocks.plan();
  const file = path.join(h.root, 'runs', runId, 'RUN.md');
  await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(/^mode: live$/m, 'mode: sometimes'));
  // The daemon's clock is a fake one: plan by hand until the watcher's notice of the edit is acted on.
  const told = await until(async () => {
    await clocks.plan();
    return hook.hooks.find((x) => x.body.kind === 'edit_refused');
  });
  expect(told.body).toMatchObject({ kind: 'edit_refused', run: { id: runId }, recipients: [{ email: CAST.operator }], link: `https://wb.example.com/runs/${runId}` });
  expect(told.body.details).toContain('mode');
  // Another change to the same broken run is refused again, but not told again.
  await fs.appendFile(file, '\nMore text.\n');
  const refusals = () => clocks.log.filter((l) => l.startsWith(`${runId}: refused`)).length;
  await until(async () => {
    await clocks.plan();
    return refusals() >= 2 ? true : undefined;
  });
  // The second refusal has been acted on; whatever it told would now be delivered.
  await clocks.plan();
  expect(hook.hooks.filter((x) => x.body.kind === 'edit_refused')).toHaveLength(1);
});

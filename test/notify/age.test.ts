/**
 * The outbox does not grow without end and does not send stale news: a
 * notification a courier first sees more than a day after it was made is
 * recorded as not sent, and a finished one is deleted a week after it was made.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { allEntries, statusOf } from '../../src/notify/outbox.js';
import { cleanupHarnesses } from '../support/svc-harness.js';
import { daemonOn, notifyBoard, toApproval, webhookReceiver, type Clocks, type Receiver } from './support.js';

const open: (Receiver | Clocks)[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('daemon' in x ? x.stop() : x.close());
  await cleanupHarnesses();
});

const DAY = 24 * 3600_000;

it('news a courier first sees after a day is recorded, not sent; a finished notification is deleted after a week', async () => {
  const hook = await webhookReceiver();
  open.push(hook);
  const h = await notifyBoard({ notifications: { webhook: { url: hook.url } } });
  // Made while no daemon runs; the daemon starts two days later.
  await toApproval(h);
  const [made] = await allEntries(h.board.state);
  expect(made).toBeDefined();
  h.advance(2 * DAY);
  const clocks = await daemonOn(h);
  open.push(clocks);
  await clocks.plan();
  const seen = (await allEntries(h.board.state)).find((e) => e.id === made!.id);
  expect(statusOf(seen!)).toBe('not sent');
  expect(seen!.deliveries!.webhook).toMatchObject({ skipped: 'older than a day when a courier first saw it' });
  // (The approval went overdue meanwhile: that notification is new, and it is sent.)
  expect(hook.hooks.map((x) => x.id)).not.toContain(made!.id);
  // A copy under a name that does not say when it was made (as by hand): its own `at` is read when it is old enough to go.
  const outbox = path.join(h.root, '.work/notifications');
  const original = (await fs.readdir(outbox)).find((f) => f.includes(made!.id))!;
  await fs.copyFile(path.join(outbox, original), path.join(outbox, 'board-kept-by-hand.json'));
  await clocks.plan();
  expect(await fs.readdir(outbox)).toContain('board-kept-by-hand.json');
  // A week after it was made, the courier deletes both.
  await clocks.advance(6 * DAY);
  await clocks.plan();
  const dir = await fs.readdir(outbox);
  expect(dir.filter((f) => f.includes(made!.id) || f === 'board-kept-by-hand.json')).toEqual([]);
});

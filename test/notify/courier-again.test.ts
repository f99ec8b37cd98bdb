/**
 * A retry that falls due while the attempt before it is still finishing (its
 * failure recorded, its lock not yet given back) is not lost until the
 * courier next happens to look: the courier runs it as soon as that attempt
 * ends. The window is made certain here: right after the first attempt records
 * its failure, still inside that attempt, the clock moves past the retry's
 * time and the courier is asked to run, as a daemon pass would be. No second
 * pass follows, so only the courier itself can send the retry.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Courier } from '../../src/notify/courier.js';
import { allEntries } from '../../src/notify/outbox.js';
import { cleanupHarnesses } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { notifyBoard, toApproval, webhookReceiver, type Receiver } from './support.js';

const hook = vi.hoisted(() => ({ afterRecord: null as null | (() => Promise<void>) }));

vi.mock('../../src/notify/outbox.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/notify/outbox.js')>();
  return {
    ...real,
    updateDelivery: async (...args: Parameters<typeof real.updateDelivery>) => {
      const recorded = await real.updateDelivery(...args);
      const then = hook.afterRecord;
      hook.afterRecord = null;
      if (then) await then();
      return recorded;
    },
  };
});

const open: Receiver[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
  await cleanupHarnesses();
});

describe('the courier', () => {
  it('runs a retry asked for while the attempt before it is still finishing, once that attempt ends', async () => {
    const receiver = await webhookReceiver();
    open.push(receiver);
    receiver.answer = () => (receiver.hooks.length === 1 ? 503 : 204);
    const h = await notifyBoard({ notifications: { webhook: { url: receiver.url } } });
    let now = Date.now();
    const courier = new Courier(
      h.board,
      () => new Date(now),
      () => {},
    );
    await toApproval(h);

    hook.afterRecord = async () => {
      // The failure is on record; its retry is due within a minute. A pass comes now, mid-attempt.
      now += 3_600_000;
      await courier.run();
    };
    await courier.run();
    await until(() => (receiver.hooks.length >= 2 ? true : undefined), 20_000, 20);
    const sent = await until(
      async () => {
        const [entry] = await allEntries(h.board.state);
        return entry?.deliveries?.webhook?.doneAt ? entry.deliveries.webhook : undefined;
      },
      20_000,
      20,
    );
    expect(sent).toMatchObject({ attempts: 2 });
    expect(receiver.hooks.map((x) => x.status)).toEqual([503, 204]);
    expect(hook.afterRecord).toBeNull();
  });
});

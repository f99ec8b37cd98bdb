/**
 * Channels are delivered independently: a real `workboard serve` with a
 * webhook that never answers (the receiver holds every request open) and a
 * real SMTP server on loopback sends every email while the webhook requests
 * are still open, with no more webhook requests in flight than its bound;
 * once the webhook answers, each channel's delivery of each notification is
 * recorded once, each sent once.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { allEntries, statusOf } from '../../src/notify/outbox.js';
import { ensureBuilt } from '../support/cli-run.js';
import { cleanupHarnesses } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { CAST, kill, notifyBoard, serve, smtpServer, toApproval, webhookReceiver, type Receiver, type Serve, type Smtp } from './support.js';

/** The courier's bound on attempts in flight per channel (src/notify/courier.ts). */
const PER_CHANNEL = 4;
const NOTIFICATIONS = PER_CHANNEL + 1;

const open: (Receiver | Smtp | Serve)[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('child' in x ? kill(x.child) : x.close());
  await cleanupHarnesses();
});

it('a hanging webhook holds up no email: every email arrives while the webhook requests are still held open', async () => {
  const rx = await webhookReceiver();
  open.push(rx);
  rx.answer = () => 'hold';
  const smtp = await smtpServer();
  open.push(smtp);
  const h = await notifyBoard({ notifications: { webhook: { url: rx.url }, email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port } } } });
  // Each approval tells finance by webhook and by email.
  for (let i = 0; i < NOTIFICATIONS; i++) await toApproval(h, 'live', 100 + i);
  const s = serve(h.root);
  open.push(s);

  // Until every email is in and the webhook's lane is full, or the courier gives up on a held webhook request.
  await until(() => ((smtp.mails.length >= NOTIFICATIONS && rx.hooks.length >= PER_CHANNEL) || rx.hooks.some((x) => x.abandoned) ? true : undefined), 120_000);
  expect(
    rx.hooks.filter((x) => x.abandoned).map((x) => x.id),
    'a webhook request timed out before every email was sent',
  ).toEqual([]);
  expect(rx.hooks.every((x) => x.status === null)).toBe(true);
  expect(smtp.mails.map((m) => m.to)).toEqual(Array(NOTIFICATIONS).fill([CAST.fin]));
  expect(rx.maxOpen).toBe(PER_CHANNEL);

  rx.release();
  const entries = await until(async () => {
    const es = await allEntries(h.board.state);
    return es.length === NOTIFICATIONS && es.every((e) => statusOf(e) === 'sent') ? es : undefined;
  }, 60_000);
  for (const e of entries) {
    expect(Object.keys(e.deliveries!).sort()).toEqual([`email:${CAST.fin}`, 'webhook']);
    for (const d of Object.values(e.deliveries!)) expect(d).toMatchObject({ attempts: 1, doneAt: expect.any(String) });
  }
  expect(rx.hooks.map((x) => x.id).sort()).toEqual(entries.map((e) => e.id).sort());
  expect(rx.maxOpen).toBe(PER_CHANNEL);
  expect(smtp.mails).toHaveLength(NOTIFICATIONS);
}, 180_000);

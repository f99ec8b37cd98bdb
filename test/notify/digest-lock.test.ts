/**
 * Two real `workboard serve` processes on one board send one digest once: the
 * first holds the digest lock while the SMTP server keeps its message
 * unaccepted; the second, started meanwhile, finds the digest due but in the
 * other courier's hands and sends nothing. Once the first message is
 * accepted the digest is recorded as sent, and no second one ever went out.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { allEntries } from '../../src/notify/outbox.js';
import { ensureBuilt } from '../support/cli-run.js';
import { cleanupHarnesses } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { kill, notifyBoard, serve, smtpServer, toApproval, type Serve, type Smtp } from './support.js';

const DEE = 'dee@example.com';
const open: (Smtp | Serve)[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('child' in x ? kill(x.child) : x.close());
  await cleanupHarnesses();
});

it('two serves on one board send a due digest once', async () => {
  const smtp = await smtpServer();
  open.push(smtp);
  const h = await notifyBoard({
    finance: [DEE],
    prefs: { [DEE]: 'digest' },
    notifications: { email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port } }, digestMinutes: 5 },
    // Made ten minutes ago: Dee's digest is due as soon as a courier looks.
    spec: { start: new Date(Date.now() - 10 * 60_000).toISOString() },
  });
  await toApproval(h);
  smtp.hold = true;
  const first = serve(h.root);
  open.push(first);
  await until(() => (smtp.held.length > 0 ? true : undefined), 60_000);
  const second = serve(h.root);
  open.push(second);
  // The second courier has seen the digest due: it either sent it too, or found it in the first one's hands.
  await until(() => (smtp.held.length > 1 || /another courier/.test(second.out()) ? true : undefined), 60_000);
  expect(smtp.held.map((m) => m.to)).toEqual([[DEE]]);

  smtp.release();
  const [entry] = await until(async () => {
    const es = await allEntries(h.board.state);
    return es[0]?.deliveries?.[`digest:${DEE}`]?.doneAt ? es : undefined;
  }, 60_000);
  expect(entry!.deliveries![`digest:${DEE}`]).toMatchObject({ attempts: 1 });
  expect(smtp.mails.map((m) => m.to)).toEqual([[DEE]]);
  expect(smtp.mails[0]!.subject).toContain('1 new on Service test board');
}, 180_000);

/**
 * The sign-in mailer's thread (signin-mailer.ts starts it): it takes each ask
 * for a link, one at a time, and does all the work an address causes, the
 * throttle, the look-up, the code (made as `workboard login-link` makes one:
 * hashed and written to the sessions file under its lock) and the email, on
 * its own event loop. So a request the server answers next never waits
 * behind a known address's work. Each ask is answered with the same
 * message, whatever became of it; what became of it is logged from here.
 */
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { boardBaseUrl } from '../core/public-url.js';
import { trustedProxies } from '../core/client-address.js';
import { sendEmail } from '../notify/channels/email.js';
import { openServedBoard, servedAt } from '../service/web-board.js';
import { createLoginLink } from './sessions.js';
import { recipientFor, signInMessage } from './signin-email.js';
import type { LinkAsk } from './signin-mailer.js';
import { LinkThrottle } from './signin-throttle.js';

/** As long as a notification's email may take. */
const EMAIL_TIMEOUT_MS = 30_000;

/** A line in `serve`'s log, written by this thread itself (a line is one write, whole). */
const log = (line: string) => void writeSync(1, `${new Date().toISOString()} ${line}\n`);

const port = parentPort!;
const board = await openServedBoard((workerData as { root: string }).root);
const throttle = new LinkThrottle(trustedProxies());

async function deal(a: LinkAsk): Promise<void> {
  if (!throttle.ask(a.who, a.address)) return;
  await board.refresh();
  const m = board.manifest;
  const to = recipientFor(m, a.address);
  if (m.notifications.email === null || to === null || !throttle.send(to.email)) return;
  const link = await createLoginLink(board, to.email, boardBaseUrl(m, { served: servedAt(board.state) }), new Date(), a.next ? { next: a.next } : {});
  await sendEmail(m.notifications.email, to.email, signInMessage(m, to, link), AbortSignal.timeout(EMAIL_TIMEOUT_MS));
  log(`sign-in link emailed to ${to.email}`);
}

// One at a time, in order: the next ask waits for this one's email.
let queue = Promise.resolve();
port.on('message', (a: LinkAsk | 'close') => {
  if (a === 'close') return void queue.then(() => port.close());
  queue = queue.then(async () => {
    try {
      await deal(a);
    } catch (e) {
      log(`sign-in link not sent: ${e instanceof Error ? e.message : String(e)}`);
    }
    port.postMessage('dealt');
  });
});

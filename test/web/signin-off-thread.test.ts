/**
 * Asking for a sign-in link does the same work on the server's thread for a
 * known address as for an unknown one (issue 39, item 7): a request answered
 * next must not wait behind a known address's code and email. Measured
 * without a clock: every async operation (file, socket, timer, promise) the
 * ask causes on this thread is recorded through async_hooks, following each
 * operation to the ones it starts, from the ask until the mailer says it has
 * dealt with it; the records for a known and an unknown address must be the
 * same. The mailer is the real one, with its real thread (built, in dist/),
 * on a real board, sending to a real SMTP server on loopback: the known
 * address's email must arrive, the unknown's never.
 */
import { AsyncResource, createHook } from 'node:async_hooks';
import { readFile } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Board } from '../../src/board/board.js';
import { addPerson, editManifest } from '../../src/board/people.js';
import { SignInMailer, type LinkAsk } from '../../src/web/signin-mailer.js';
import { ensureBuilt, ROOT } from '../support/cli-run.js';
import { cleanupTmp, tmpDir } from '../support/tmp-board.js';
import { smtpServer, type Smtp } from '../notify/support.js';

const KNOWN = 'kai@example.com';
const WARM = 'wren@example.com';
const UNKNOWN = 'kay@example.com';

let smtp: Smtp;
let mailer: SignInMailer;
const logged: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  smtp = await smtpServer();
  const root = path.join(await tmpDir('wb-signin-thread-'), 'board');
  await Board.init(root, { name: 'thread', actor: 'test' });
  const board = await Board.open(root);
  for (const p of [KNOWN, WARM]) await addPerson(board, 'test', p);
  await editManifest(board, 'test', 'notifications.set', (d) => {
    d.notifications = { baseUrl: 'http://127.0.0.1:1', email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port } } };
    return 'notifications';
  });
  mailer = new SignInMailer(root, (l) => logged.push(l), new URL(`file://${path.join(ROOT, 'dist/web/signin-worker.js')}`));
}, 60_000);

afterAll(async () => {
  mailer?.close();
  await smtp?.close();
  await cleanupTmp();
});

const ask = (address: string): LinkAsk => ({ address, next: null, who: { peer: '127.0.0.1', forwardedFor: undefined } });

/** The async operations, by type in the order they began, that `start` caused on this thread until `done` resolved. */
async function operationsOf(start: () => void, done: () => Promise<unknown>): Promise<string[]> {
  const types: string[] = [];
  const caused = new Set<number>();
  const hook = createHook({
    init(id, type, trigger) {
      if (!caused.has(trigger)) return;
      caused.add(id);
      types.push(type);
    },
  }).enable();
  const root = new AsyncResource('SIGNIN_ASK');
  caused.add(root.asyncId());
  try {
    root.runInAsyncScope(start);
    await done();
  } finally {
    hook.disable();
    root.emitDestroy();
  }
  return types;
}

it('does the same on the server thread for a known address as for an unknown one, and the email still arrives', async () => {
  // The mailer's thread starts at the first ask, whoever it is for.
  mailer.ask(ask(WARM));
  await mailer.idle();
  expect(smtp.mails.filter((m) => m.to.includes(WARM))).toHaveLength(1);

  // The hook sees work where there is some: a file read started in the scope is recorded.
  let read: Promise<unknown> = Promise.resolve();
  expect(
    await operationsOf(
      () => void (read = new Promise((done) => readFile(path.join(ROOT, 'package.json'), done))),
      () => read,
    ),
  ).toContain('FSREQCALLBACK');

  const known = await operationsOf(
    () => mailer.ask(ask(KNOWN)),
    () => mailer.idle(),
  );
  const unknown = await operationsOf(
    () => mailer.ask(ask(UNKNOWN)),
    () => mailer.idle(),
  );
  expect(known).toEqual(unknown);
  expect(smtp.mails.filter((m) => m.to.includes(KNOWN))).toHaveLength(1);
  expect(smtp.mails.filter((m) => m.to.includes(UNKNOWN))).toHaveLength(0);
  expect(smtp.mails.find((m) => m.to.includes(KNOWN))!.text).toMatch(/http:\/\/127\.0\.0\.1:1\/signin\?code=wbl_/);
  expect(logged).toEqual([]);
}, 60_000);

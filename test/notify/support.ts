/**
 * Receivers and boards for the notification tests (not a test file): a
 * webhook receiver on loopback that records each POST's raw body and headers
 * and answers as the test says (or holds the request open); an SMTP server
 * (smtp-server, plain SMTP on loopback) that keeps each message with its
 * envelope and its text and HTML parts; a service-test board with the
 * notification settings the test gives, and a daemon on it as `serve` opens
 * one (its own Board and Service) on a fake clock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Board } from '../../src/board/board.js';
import { editManifest } from '../../src/board/people.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { evaluate } from '../../src/evaluator/evaluator.js';
import { allEntries } from '../../src/notify/outbox.js';
import { dueKeys } from '../../src/notify/schedule.js';
import { Service } from '../../src/service/service.js';
import { BIN } from '../support/cli-run.js';
import { CAST, CLAIM_REVIEW_SUBMISSION, Harness, type Data, type BoardSpec } from '../support/svc-harness.js';
import { FakeClock } from '../daemon/fake-clock.js';
import { until } from '../support/until.js';

export { CAST };

// ---- the webhook receiver ------------------------------------------------------------

export interface Hook {
  id: string | undefined;
  signature: string | undefined;
  timestamp: string | undefined;
  raw: string;
  body: Data;
  /** The status the receiver answered, or null while it holds the request open. */
  status: number | null;
  /** The sender gave up on it (closed the connection) before it was answered. */
  abandoned: boolean;
}

export type Answer = number | 'hold';

export interface Receiver {
  url: string;
  hooks: Hook[];
  /** What to answer the next request; the default answers 204. */
  answer: (h: Hook) => Answer;
  /** Resolves once `n` requests have come in. */
  received(n: number): Promise<void>;
  /** The most requests open at once (received, not yet answered or abandoned). */
  maxOpen: number;
  /** Answer every held request with 204, and answer 204 from now on. */
  release(): void;
  close(): Promise<void>;
}

export async function webhookReceiver(): Promise<Receiver> {
  const hooks: Hook[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const held = new Map<ServerResponse, Hook>();
  let open = 0;
  const reply = (h: Hook, res: ServerResponse, status: number) => {
    h.status = status;
    res.statusCode = status;
    res.end();
  };
  const r: Receiver = {
    url: '',
    hooks,
    answer: () => 204,
    received: (n) => new Promise((resolve) => (hooks.length >= n ? resolve() : waiters.push({ n, resolve }))),
    maxOpen: 0,
    release: () => {
      r.answer = () => 204;
      for (const [res, h] of held) reply(h, res, 204);
      held.clear();
    },
    close: async () => {
      for (const res of held.keys()) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    r.maxOpen = Math.max(r.maxOpen, ++open);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Data = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = null;
      }
      const h: Hook = {
        id: req.headers['x-workboard-id'] as string | undefined,
        signature: req.headers['x-workboard-signature'] as string | undefined,
        timestamp: req.headers['x-workboard-timestamp'] as string | undefined,
        raw,
        body,
        status: null,
        abandoned: false,
      };
      hooks.push(h);
      res.on('close', () => {
        open--;
        held.delete(res);
        if (h.status === null) h.abandoned = true;
      });
      const a = r.answer(h);
      if (a === 'hold') held.set(res, h);
      else reply(h, res, a);
      for (const w of waiters.splice(0)) (hooks.length >= w.n ? w.resolve : () => waiters.push(w))();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return r;
}

/** The signature a receiver expects: HMAC-SHA256 of the exact body with the shared secret, in hex. */
export function expectedSignature(secret: string, raw: string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

// ---- the SMTP server ---------------------------------------------------------------

export interface Mail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export interface Smtp {
  port: number;
  mails: Mail[];
  /** Recipients refused at RCPT TO (a 450, which the sender takes as a failed attempt). */
  refuse: (rcpt: string) => boolean;
  /** While true, a message is kept and not yet accepted (no answer to its DATA) until `release`. */
  hold: boolean;
  /** Messages received while held, not yet accepted. */
  held: Mail[];
  /** Accept every held message, and hold no more. */
  release(): void;
  close(): Promise<void>;
}

export async function smtpServer(): Promise<Smtp> {
  const waiting: (() => void)[] = [];
  const smtp: Smtp = {
    port: 0,
    mails: [],
    refuse: () => false,
    hold: false,
    held: [],
    release: () => {
      smtp.hold = false;
      smtp.held.splice(0);
      for (const accept of waiting.splice(0)) accept();
    },
    close: () => {
      smtp.release(); // else the server waits on the held connections before it closes
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = new SMTPServer({
    hideSTARTTLS: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    // A sender killed in the middle of a message leaves its connection open: closing waits this long for it, not 30 s.
    closeTimeout: 1000,
    onRcptTo(address, _session, callback) {
      if (!smtp.refuse(address.address.toLowerCase())) return callback();
      callback(Object.assign(new Error('mailbox busy, try again later'), { responseCode: 450 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const env = session.envelope;
        const mail: Mail = {
          from: env.mailFrom ? env.mailFrom.address : '',
          to: env.rcptTo.map((a) => a.address.toLowerCase()),
          ...parts(raw),
          raw,
        };
        const accept = () => {
          smtp.mails.push(mail);
          callback();
        };
        if (!smtp.hold) return accept();
        smtp.held.push(mail);
        waiting.push(accept);
      });
    },
  });
  // A sender SIGKILLed in the middle of a conversation resets its connection: expected in these tests, and without
  // a listener the server's 'error' event would be thrown in the test process as an unhandled error.
  server.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'ECONNRESET' && e.code !== 'EPIPE') console.error(`the test's SMTP server: ${e.message}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  smtp.port = (server.server.address() as AddressInfo).port;
  return smtp;
}

/** Headers of one MIME part (unfolded, lower-cased names) and its body. */
function split(part: string): { headers: Record<string, string>; body: string } {
  const at = part.search(/\r?\n\r?\n/);
  const head = at < 0 ? part : part.slice(0, at);
  const body = at < 0 ? '' : part.slice(at).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { headers, body };
}

function decodeBody(body: string, encoding: string | undefined): string {
  const e = (encoding ?? '').toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => `%${h}`);
    return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, '%25'));
  }
  return body;
}

/** An RFC 2047 encoded header word (=?UTF-8?Q?…?= or ?B?) as text. */
function decodeHeader(v: string): string {
  return v
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_m, kind: string, text: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
    );
}

/** The subject and the text/plain and text/html parts of a message (one level of multipart is enough for these). */
function parts(raw: string): { subject: string; text: string; html: string } {
  const top = split(raw);
  const out = { subject: decodeHeader(top.headers.subject ?? ''), text: '', html: '' };
  const boundary = /boundary="?([^";]+)"?/i.exec(top.headers['content-type'] ?? '')?.[1];
  const bodies = boundary ? top.body.split(`--${boundary}`).slice(1, -1).map(split) : [top];
  for (const p of bodies) {
    const type = (p.headers['content-type'] ?? 'text/plain').toLowerCase();
    const text = decodeBody(p.body, p.headers['content-transfer-encoding']);
    if (type.startsWith('text/plain')) out.text = text;
    else if (type.startsWith('text/html')) out.html = text;
  }
  return out;
}

// ---- boards and daemons ------------------------------------------------------------

export const FINANCE = 'finance';
export const BASE_URL = 'https://wb.example.com';

/**
 * A board with claim-review published (finance-approver → finance), then
 * WORK.md's `notifications` (and people's preferences) set as given.
 */
export async function notifyBoard(opts: { notifications: Record<string, unknown>; finance?: string[]; prefs?: Record<string, 'email' | 'digest' | 'none'>; spec?: BoardSpec }): Promise<Harness> {
  const h = await Harness.open({
    groups: { [FINANCE]: opts.finance ?? [CAST.fin] },
    processes: [{ folder: 'claim-review', roles: { 'finance-approver': FINANCE } }],
    start: new Date().toISOString(),
    ...opts.spec,
  });
  await editManifest(h.board, CAST.operator, 'notifications.set', (d) => {
    d.notifications = { baseUrl: BASE_URL, ...opts.notifications };
    for (const p of d.people as { email: string; notify?: string }[]) {
      const pref = opts.prefs?.[p.email];
      if (pref) p.notify = pref;
    }
    return 'notifications';
  });
  return h;
}

/** A run of claim-review the agent has checked: its approval now waits for finance. Returns the run view. */
export async function toApproval(h: Harness, mode: 'live' | 'test' = 'live', amount = 120): Promise<Data> {
  const run = await h.start('claim-review', { claimant: CAST.ann, amount }, CAST.ann, mode === 'test' ? { mode } : {});
  const c = await h.claim(run.run.id, 'check');
  await h.ok('submit', { token: c.token, ...CLAIM_REVIEW_SUBMISSION }, CAST.agent);
  return h.view(run.run.id);
}

/**
 * The daemon's clock and the service's together. The courier does not wait
 * for its attempts (each records its own result), so `plan` and `advance`
 * wait until it is idle: no delivery in the outbox is due and unrecorded
 * (digests, on their own schedule, are waited for by the test).
 */
export interface Clocks {
  clock: FakeClock;
  daemon: Daemon;
  log: string[];
  /** The daemon plans (and the courier starts what is due), and its attempts are recorded. */
  plan(): Promise<void>;
  /** Once idle, both clocks move by `ms`, what fell due runs, and its attempts are recorded. */
  advance(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/** A daemon as `serve` opens it (its own Board and Service) on a fake clock that starts at the harness's time. */
export async function daemonOn(h: Harness): Promise<Clocks> {
  const clock = new FakeClock(h.clock);
  const own = await Board.open(h.root);
  const log: string[] = [];
  const daemon = new Daemon(own, await Service.open(own, { now: clock.now, evaluate }), { clock, log: (l) => log.push(l) });
  await daemon.start();
  // The daemon looks (its outbox watch may not have spoken yet), then every attempt it started is recorded.
  const settle = async () => {
    await daemon.plan();
    await until(async () => ((await allEntries(h.board.state)).some((e) => !e.deliveries || dueKeys(e, clock.now()).length > 0) ? undefined : true), 20_000, 20);
  };
  return {
    clock,
    daemon,
    log,
    plan: settle,
    advance: async (ms) => {
      await settle();
      h.advance(ms);
      await clock.advance(ms);
      await settle();
    },
    stop: () => daemon.stop(),
  };
}

// ---- real serves -------------------------------------------------------------------

export interface Serve {
  child: ChildProcess;
  /** What it has printed so far. */
  out(): string;
  /** Resolves once it says it is coordinating (its first delivery pass is done). */
  ready: Promise<void>;
}

/** `workboard serve` on the board (needs dist/: ensureBuilt), without the caller's WORKBOARD_ settings. Kill it when done. */
export function serve(root: string): Serve {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKBOARD_')) env[k] = v;
  const child = spawn(process.execPath, [BIN, 'serve', '--board', root], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += String(d);
      if (out.includes('coordinating')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code} before it was ready: ${out}`)));
  });
  ready.catch(() => undefined); // a caller that does not wait for it is told nothing
  return { child, out: () => out, ready };
}

export async function kill(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const gone = new Promise((r) => c.once('exit', r));
  c.kill('SIGKILL');
  await gone;
}

/**
 * Slack's interactivity endpoint, `POST /slack/interactions` on serve --http
 * (docs/operators.md "Slack"). Every request is verified as Slack documents
 * (v0 HMAC-SHA256 of `v0:<timestamp>:<body>` with the app's signing secret,
 * compared in constant time by Slack's own verifier; a timestamp more than
 * 5 minutes from now refused) before its body is read as anything. The
 * Slack user must be declared on a WORK.md person (`slack: U…`), never
 * guessed. Then the same decide call as the web form, by that person, so
 * the same rules hold: snapshot and stale, a required note on reject (a
 * modal), four eyes, already_decided. A button's requestId is made from
 * the click (person, item, snapshot, decision), so a second click of it is
 * the same call and decides once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifySlackRequest } from '@slack/bolt/dist/receivers/verify-request.js';
import { sha256Hex } from '../core/hash.js';
import type { Actor } from '../engine/types.js';
import type { Service } from '../service/service.js';
import { resolveActor } from '../service/identity.js';
import { personName, refusalWords } from '../words/index.js';
import { NOTE_BLOCK, parseInteraction, rejectModal, type Interaction, type ItemRef, type MessageAt } from '../notify/channels/slack-blocks.js';
import { openModal, signingSecret, slackError, tellInSlack } from '../notify/channels/slack.js';
import { SlackMessages } from './slack-messages.js';

export const SLACK_PATH = '/slack/interactions';
/** Slack's payloads carry the message clicked on; none comes near this. */
const BODY_MAX = 1024 * 1024;
/** A request signed further than this from now is refused, both ways (Slack's own verifier looks only back). */
const SKEW_S = 5 * 60;

export interface SlackEndpoint {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): void;
}

function answer(res: ServerResponse, status: number, body: unknown = ''): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > BODY_MAX) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Why a request is not Slack's, in words for the log (never the secret, the signature or the body), or null when it is. */
export function refusal(headers: IncomingMessage['headers'], body: string, secret: string, nowMs: number): string | null {
  const sig = headers['x-slack-signature'];
  const ts = headers['x-slack-request-timestamp'];
  if (typeof sig !== 'string' || typeof ts !== 'string' || !/^\d{1,12}$/.test(ts)) return 'no Slack signature or timestamp';
  const at = Number(ts);
  if (Math.abs(nowMs / 1000 - at) > SKEW_S) return `signed ${Math.round(nowMs / 1000 - at)} s from now: more than 5 minutes (a replay, or a clock off)`;
  try {
    verifySlackRequest({ signingSecret: secret, body, headers: { 'x-slack-signature': sig, 'x-slack-request-timestamp': at }, nowMilliseconds: nowMs });
    return null;
  } catch {
    return 'the signature does not match the body with the signing secret';
  }
}

export function createSlackEndpoint(service: Service, log: (line: string) => void, now: () => Date = () => new Date()): SlackEndpoint {
  const board = service.board;
  const messages = new SlackMessages(service, log);
  messages.start();

  /** A word to the one person, in the channel of the message; a failure is logged (the click's answer stands). */
  const tell = (at: MessageAt | null, user: string, text: string) => {
    const cfg = board.manifest.notifications.slack;
    if (!cfg || !at) return;
    void tellInSlack(cfg, board.state, at.channel, user, text).catch((err: unknown) => log(`slack: could not tell ${user}: ${slackError(err)}`));
  };

  /** The person a Slack user is declared as, or null. */
  const personOf = (user: string): Extract<Actor, { kind: 'person' }> | null => {
    const p = board.manifest.people.find((x) => x.slack === user);
    const who = p ? resolveActor(board.manifest, p.email) : null;
    return who?.ok && who.actor.kind === 'person' ? who.actor : null;
  };

  const unmapped = (user: string) =>
    `Your Slack account (${user}) is not declared on this board, so workboard cannot tell who you are. Nothing was decided. An operator adds \`slack: ${user}\` to your entry under people: in WORK.md.`;

  /** Remember where the message is and bring it (and every other) up to date; never fails the click. */
  const refreshed = async (ref: ItemRef, at: MessageAt | null) => {
    await messages.remember(ref, at).catch((err: unknown) => log(`slack: ${String(err)}`));
    void messages.refresh();
  };

  /** The words for a decision that did not go through, and whether the message shows something new because of it. */
  const notDecided = (error: { code: string; message: string; issues?: string[] }): string => {
    const issues = error.issues ?? [];
    if (error.code === 'stale') return 'The run changed since this message was posted, so nothing was decided. The message now shows the item as it is: look again, then decide.';
    if (issues.includes('already_decided') || issues.includes('run_ended')) return 'This was already decided (the message now says how). Nothing more was done.';
    const words = refusalWords(issues);
    if (words) return `Not decided. ${words} Nothing was changed.`;
    return `Not decided: ${error.message}`;
  };

  async function decide(person: Extract<Actor, { kind: 'person' }>, ref: ItemRef, decision: 'approved' | 'rejected', requestId: string, note?: string) {
    return service.call('decide', { runId: ref.runId, workItemId: ref.workItemId, snapshot: ref.snapshot, decision, requestId, ...(note !== undefined ? { note } : {}) }, person, 'slack');
  }

  async function onButton(i: Extract<Interaction, { kind: 'button' }>, res: ServerResponse): Promise<void> {
    // A link button: Slack opens the page itself and tells us of the click, which needs only an answer.
    if (i.action === 'open') return answer(res, 200);
    const person = personOf(i.user);
    if (!person) {
      answer(res, 200);
      return tell(i.at, i.user, unmapped(i.user));
    }
    const ref = i.ref;
    if (!ref) return answer(res, 400, 'the button names no work item');
    if (i.action === 'reject') {
      // Only an open, current item gets the note's modal: anything else is said at once, as a decision would say it.
      const got = await service.call('get_run', { runId: ref.runId }, person);
      const item = got.ok ? got.data.workItems.find((w) => w.id === ref.workItemId) : undefined;
      const cfg = board.manifest.notifications.slack;
      if (got.ok && item && item.snapshot === ref.snapshot && i.triggerId && cfg) {
        const title = (await messages.inputFor({ ref: ref, title: '', mentions: [], link: '' }, got.data, item)).title;
        await openModal(cfg, board.state, i.triggerId, rejectModal(ref, i.at, title)).catch((err: unknown) => {
          log(`slack: the rejection's note could not be asked for: ${slackError(err)}`);
          tell(i.at, i.user, 'Slack did not open the note to reject with; nothing was decided. Try again, or open the item.');
        });
        return answer(res, 200);
      }
      answer(res, 200);
      await refreshed(ref, i.at);
      return tell(i.at, i.user, notDecided(!got.ok ? got.error : item ? { code: 'stale', message: '' } : { code: 'conflict', message: '', issues: ['already_decided'] }));
    }
    const requestId = `slack-${sha256Hex(`${i.user}|${ref.runId}|${ref.workItemId}|${ref.snapshot}|approved`).slice(0, 48)}`;
    const r = await decide(person, ref, 'approved', requestId);
    answer(res, 200);
    await refreshed(ref, i.at);
    if (!r.ok) tell(i.at, i.user, notDecided(r.error));
    else log(`slack: ${personName(board.manifest.people, person.email)} approved ${ref.runId} ${ref.workItemId}`);
  }

  async function onReject(i: Extract<Interaction, { kind: 'reject' }>, res: ServerResponse): Promise<void> {
    const person = personOf(i.user);
    if (!person) return answer(res, 200, { response_action: 'errors', errors: { [NOTE_BLOCK]: unmapped(i.user) } });
    if (i.note.trim() === '') return answer(res, 200, { response_action: 'errors', errors: { [NOTE_BLOCK]: 'A note is required to reject: say why, for the people it goes back to.' } });
    const r = await decide(person, i.ref, 'rejected', `slack-${sha256Hex(`${i.user}|${i.viewId}`).slice(0, 48)}`, i.note.trim());
    // Closing the modal is the answer to a decision made; anything else is said in it, beside the note.
    answer(res, 200, r.ok ? '' : { response_action: 'errors', errors: { [NOTE_BLOCK]: notDecided(r.error) } });
    await refreshed(i.ref, i.at);
  }

  return {
    async handle(req, res) {
      try {
        await handle(req, res);
      } catch (err) {
        log(`slack: ${err instanceof Error ? err.message : String(err)}`);
        if (!res.headersSent) answer(res, 500, 'internal error');
      }
    },
    close: () => messages.close(),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    {
      if (req.method !== 'POST') return answer(res, 405, 'POST only');
      const cfg = board.manifest.notifications.slack;
      if (!cfg) return answer(res, 404, 'no Slack channel is configured on this board');
      const secret = await signingSecret(cfg, board.state);
      if (!secret) {
        log(`slack: a request was refused: no signing secret (set ${cfg.signingSecretEnv ?? cfg.signingSecretFile ?? 'notifications.slack.signingSecretEnv'})`);
        return answer(res, 503, 'no signing secret is configured');
      }
      const body = await readBody(req);
      if (body === null) return answer(res, 413, 'too large');
      const why = refusal(req.headers, body, secret, now().getTime());
      if (why) {
        log(`slack: a request was refused: ${why}`);
        return answer(res, 401, 'not verified');
      }
      messages.start();
      const i = parseInteraction(body);
      if ('error' in i) return answer(res, 400, i.error);
      if (i.kind === 'button') return onButton(i, res);
      if (i.kind === 'reject') return onReject(i, res);
      return answer(res, 200);
    }
  }
}

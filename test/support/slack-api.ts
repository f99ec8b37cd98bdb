/**
 * Slack, as far as the tests need it (not a test file): a loopback HTTP
 * server that speaks the documented Web API methods workboard calls
 * (chat.postMessage, chat.update, chat.postEphemeral, views.open: a POST to
 * `<api url><method>` with a bearer token and a form-encoded or JSON body,
 * answered `{ ok, … }`), recording every call; and a client that signs
 * interactivity requests exactly as Slack does (v0 HMAC-SHA256 of
 * `v0:<timestamp>:<body>` with the signing secret, `payload=<json>` form-encoded).
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall {
  method: string;
  token: string | null;
  args: Record<string, any>;
  /** What it was answered (once answered). */
  answer?: Record<string, any>;
}

export interface FakeSlack {
  /** The Web API's base address, for WORK.md's `apiUrl`. */
  url: string;
  calls: SlackCall[];
  /** How to answer the next call: null answers as Slack does; a number answers that HTTP status; a string answers `{ ok: false, error }`; 'drop' closes the connection unanswered (Slack unreachable). */
  fail: (c: SlackCall) => number | string | null;
  /** Resolves with the first call (from `from` on) that `match` accepts. */
  next(match: (c: SlackCall) => boolean, from?: number, timeoutMs?: number): Promise<SlackCall>;
  of(method: string): SlackCall[];
  close(): Promise<void>;
}

/** A form-encoded body as Slack's client sends it: objects and arrays as JSON strings. */
function argsOf(req: IncomingMessage, raw: string): Record<string, any> {
  if ((req.headers['content-type'] ?? '').includes('application/json')) return JSON.parse(raw || '{}');
  const out: Record<string, any> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    try {
      out[k] = v.startsWith('[') || v.startsWith('{') ? JSON.parse(v) : v;
    } catch {
      out[k] = v;
    }
  }
  return out;
}

export async function fakeSlack(token: string): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const waiters: (() => void)[] = [];
  let ts = 1_764_900_000;
  const s: FakeSlack = {
    url: '',
    calls,
    fail: () => null,
    next: (match, from = 0, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const hit = calls.slice(from).find(match);
          if (hit) {
            clearTimeout(timer);
            resolve(hit);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => reject(new Error(`no such Slack call within ${timeoutMs} ms; calls: ${JSON.stringify(calls.map((c) => c.method))}`)), timeoutMs);
        if (!look()) {
          const again = () => {
            if (!look()) waiters.push(again);
          };
          waiters.push(again);
        }
      }),
    of: (method) => calls.filter((c) => c.method === method),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const send = (res: ServerResponse, status: number, body: Record<string, any>, call?: SlackCall) => {
    if (call) call.answer = body;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '').replace(/\?.*$/, '');
      const auth = req.headers.authorization;
      const call: SlackCall = { method, token: typeof auth === 'string' ? auth.replace(/^Bearer /, '') : null, args: argsOf(req, Buffer.concat(chunks).toString('utf8')) };
      const failure = s.fail(call);
      const answer = (status: number, body: Record<string, any>) => {
        send(res, status, body, call);
        calls.push(call);
        for (const w of waiters.splice(0)) w();
      };
      if (failure === 'drop') {
        calls.push(call);
        for (const w of waiters.splice(0)) w();
        return req.socket.destroy();
      }
      if (typeof failure === 'number') return answer(failure, { ok: false, error: 'fatal_error' });
      if (typeof failure === 'string') return answer(200, { ok: false, error: failure });
      if (call.token !== token) return answer(200, { ok: false, error: 'invalid_auth' });
      switch (method) {
        case 'chat.postMessage':
          return answer(200, { ok: true, channel: call.args.channel, ts: `${++ts}.000100`, message: { text: call.args.text } });
        case 'chat.update':
          return answer(200, { ok: true, channel: call.args.channel, ts: call.args.ts, text: call.args.text });
        case 'chat.postEphemeral':
          return answer(200, { ok: true, message_ts: `${++ts}.000200` });
        case 'views.open':
          return answer(200, { ok: true, view: { id: `V${++ts}`, ...call.args.view } });
        default:
          return answer(200, { ok: false, error: 'unknown_method' });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  return s;
}

/** Slack's signature of a request body at a time (seconds), as its docs give it. */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export const formBody = (payload: unknown): string => `payload=${encodeURIComponent(JSON.stringify(payload))}`;

/** POST an interaction as Slack does; `sign` can change what is signed (a wrong secret, an old timestamp, a body altered after signing). */
export async function postInteraction(
  base: string,
  payload: unknown,
  secret: string,
  opts: { timestamp?: number; body?: (signed: string) => string } = {},
): Promise<{ status: number; text: string; json: any }> {
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const signed = formBody(payload);
  const body = opts.body ? opts.body(signed) : signed;
  const res = await fetch(`${base}/slack/interactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': slackSignature(secret, timestamp, signed) },
    body,
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, text, json };
}

/** A block_actions payload for a click of one of a message's buttons. */
export function buttonClick(user: string, message: { channel: string; ts: string; blocks: any[] }, actionId: string, n = 1): unknown {
  const button = message.blocks.flatMap((b: any) => (b.type === 'actions' ? b.elements : [])).find((e: any) => e.action_id === actionId);
  if (!button) throw new Error(`no button ${actionId} on the message`);
  return {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), team_id: 'T0TEAM' },
    team: { id: 'T0TEAM', domain: 'example' },
    api_app_id: 'A0APP',
    trigger_id: `trigger-${user}-${n}`,
    response_url: 'https://hooks.slack.invalid/actions/T0TEAM/1/abc',
    container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    channel: { id: message.channel, name: 'approvals' },
    message: { type: 'message', ts: message.ts, text: 'the message', blocks: message.blocks },
    actions: [{ type: 'button', action_id: button.action_id, block_id: 'wb.decide', value: button.value, text: button.text, action_ts: `${Date.now() / 1000}` }],
  };
}

/** A view_submission payload for the rejection modal Slack was asked to open, with the note typed. */
export function modalSubmit(user: string, view: any, note: string, viewId = 'V0MODAL1'): unknown {
  return {
    type: 'view_submission',
    user: { id: user, username: user.toLowerCase(), team_id: 'T0TEAM' },
    team: { id: 'T0TEAM', domain: 'example' },
    api_app_id: 'A0APP',
    trigger_id: `trigger-${user}-submit`,
    view: { ...view, id: viewId, state: { values: { 'wb.note': { note: { type: 'plain_text_input', value: note } } } } },
  };
}

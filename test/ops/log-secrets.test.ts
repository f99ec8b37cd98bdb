/**
 * serve's log holds no secret (docs/operations.md, Logs): real serves, in
 * words and in JSON, at debug (every line there is), are used with bearer
 * tokens (good and wrong), a sign-in link's code and the session cookie it
 * gives, the metrics token, and notifications through a webhook with a
 * signing secret, SMTP with a password and Slack with a bot token, all
 * failing so their errors are logged, and Slack interactivity requests
 * signed with the signing secret and with a wrong one. Every line any of them wrote is searched for each
 * secret; and each line is one event with its level and time.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createLoginLink } from '../../src/web/sessions.js';
import { ensureBuilt } from '../support/cli-run.js';
import { cleanupHarnesses, CAST } from '../support/svc-harness.js';
import { until } from '../support/until.js';
import { notifyBoard, smtpServer, toApproval, webhookReceiver } from '../notify/support.js';
import { allLines, call, serveOps, tokenFor, type Served } from './support.js';
import { fakeSlack, postInteraction } from '../support/slack-api.js';

const HOOK_SECRET = 'hook-secret-7f3a9c1e5b2d4f6a8c0e';
const SMTP_PASSWORD = 'smtp-password-2b4d6f8a0c1e3g5i';
const METRICS_TOKEN = 'metrics-token-9e8d7c6b5a4f3e2d1c';
const SLACK_TOKEN = 'xoxb-slack-bot-token-4c6e8a0b2d';
const SLACK_SECRET = 'slack-signing-secret-1a3c5e7g9i';
const secrets: string[] = [HOOK_SECRET, SMTP_PASSWORD, METRICS_TOKEN, SLACK_TOKEN, SLACK_SECRET];

const running: Served[] = [];
const closing: (() => Promise<void>)[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  for (const c of closing.splice(0)) await c();
});
afterAll(cleanupHarnesses);

for (const format of ['text', 'json'] as const) {
  it(`a serve logging ${format} at debug, used with every kind of secret, writes none of them`, async () => {
    const rx = await webhookReceiver();
    rx.answer = () => 500;
    const smtp = await smtpServer();
    smtp.refuse = () => true; // every recipient refused: the send (with the password) fails and is logged
    const slack = await fakeSlack('xoxb-another-token'); // answers invalid_auth: the post fails and is logged
    closing.push(
      () => rx.close(),
      () => smtp.close(),
      () => slack.close(),
    );
    const h = await notifyBoard({
      notifications: {
        webhook: { url: rx.url, secretEnv: 'WB_TEST_HOOK_SECRET' },
        email: { from: 'workboard@example.com', smtp: { host: '127.0.0.1', port: smtp.port, userEnv: 'WB_TEST_SMTP_USER', passwordEnv: 'WB_TEST_SMTP_PASS' } },
        slack: { channel: 'C0LOGS', botTokenEnv: 'WB_TEST_SLACK_TOKEN', signingSecretEnv: 'WB_TEST_SLACK_SECRET', apiUrl: slack.url },
      },
    });
    const ann = await tokenFor(h, CAST.ann);
    secrets.push(ann);
    const s = await serveOps(h.root, ['--log-format', format, '--log-level', 'debug'], {
      WB_TEST_HOOK_SECRET: HOOK_SECRET,
      WB_TEST_SMTP_USER: 'mailer',
      WB_TEST_SMTP_PASS: SMTP_PASSWORD,
      WORKBOARD_METRICS_TOKEN: METRICS_TOKEN,
      WB_TEST_SLACK_TOKEN: SLACK_TOKEN,
      WB_TEST_SLACK_SECRET: SLACK_SECRET,
    });
    running.push(s);
    // Tools with a good token and a wrong one of the right shape.
    expect((await call(s.mcp, ann, 'get_work', {})).ok).toBe(true);
    const wrong = `wb_${'x'.repeat(43)}`;
    secrets.push(wrong);
    expect((await fetch(s.mcp, { method: 'POST', headers: { authorization: `Bearer ${wrong}`, 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    expect((await fetch(new URL('/metrics', s.base), { headers: { authorization: `Bearer ${METRICS_TOKEN}`, 'x-forwarded-for': '203.0.113.5' } })).status).toBe(200);
    // A sign-in link's code, used once (a session cookie) and once more (refused).
    const base = s.base.href.replace(/\/$/, '');
    const code = new URL(await createLoginLink(h.board, CAST.fin, base)).searchParams.get('code')!;
    secrets.push(code);
    const signIn = () => fetch(`${base}/signin`, { method: 'POST', redirect: 'manual', headers: { origin: base }, body: new URLSearchParams({ code }) });
    const first = await signIn();
    const cookie = /wb_session=([^;]+)/.exec(first.headers.get('set-cookie') ?? '')?.[1];
    expect(cookie, 'the sign-in gave a session cookie').toBeDefined();
    secrets.push(cookie!);
    expect((await fetch(`${base}/`, { headers: { cookie: `wb_session=${cookie}` } })).status).toBe(200);
    await signIn();
    // A transition whose notifications fail on both channels, so their errors are logged.
    await toApproval(h, 'live');
    // Slack's interactivity endpoint: a request signed with a wrong secret (refused, logged), and one signed right by a user declared for nobody.
    const click = { type: 'block_actions', user: { id: 'U0NOBODY' }, container: { channel_id: 'C0LOGS', message_ts: '1.1' }, actions: [{ action_id: 'wb.approve', value: '{}' }] };
    expect((await postInteraction(base, click, 'a-wrong-signing-secret')).status).toBe(401);
    expect((await postInteraction(base, click, SLACK_SECRET)).status).toBe(200);
    await until(
      () => (s.lines().some((l) => l.includes('via webhook')) && s.lines().some((l) => l.includes(`via email:${CAST.fin}`)) && s.lines().some((l) => l.includes('via slack')) ? true : undefined),
      60_000,
    );
    await s.stop();

    const lines = s.lines().filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(5);
    for (const l of lines) {
      if (format === 'json') expect(JSON.parse(l)).toMatchObject({ level: expect.stringMatching(/^(debug|info|warn|error)$/), time: expect.any(String), msg: expect.any(String) });
      else expect(l).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (debug|info |warn |error) /);
    }
    // The calls' lines name the request and who acted.
    const getWork = lines.find((l) => l.includes('get_work: ok'))!;
    expect(getWork).toContain(CAST.ann);
    expect(getWork).toMatch(format === 'json' ? /"req":"[0-9a-f]{6}-[0-9a-z]+"/ : /\[req [0-9a-f]{6}-[0-9a-z]+, /);
  }, 120_000);
}

it('no line any serve of this file wrote holds a secret', () => {
  expect(allLines.length).toBeGreaterThan(10);
  expect(secrets.length).toBe(5 + 2 * 4);
  const leaks = allLines.flatMap((l) => secrets.filter((x) => l.includes(x)).map((x) => `${x.slice(0, 8)}… in: ${l.slice(0, 200)}`));
  expect(leaks).toEqual([]);
});

/**
 * The Slack channel in the outbox: a daemon on a fake clock (as `serve`
 * opens one) posts through Slack's client to a local server that speaks the
 * Web API. Where Slack cannot be reached, or answers an error, nothing is
 * lost: the delivery is tried again after its backoff, as for the webhook,
 * and posts once it can; the token never shows in what is recorded or
 * logged. A test run is never posted; a board without Slack plans no Slack
 * delivery. The pure parts: messages, payloads and the signature check.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupHarnesses } from '../support/svc-harness.js';
import { allEntries } from '../../src/notify/outbox.js';
import { decodeRef, messageBlocks, parseInteraction } from '../../src/notify/channels/slack-blocks.js';
import { refusal } from '../../src/http/slack.js';
import { manifestIssues } from '../../src/board/manifest.js';
import { fakeSlack, formBody, slackSignature, type FakeSlack } from '../support/slack-api.js';
import { daemonOn, notifyBoard, toApproval, type Clocks } from './support.js';

const TOKEN = 'xoxb-outbox-test-token-42';
const open: (FakeSlack | Clocks)[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('daemon' in x ? x.stop() : x.close());
  await cleanupHarnesses();
});

async function setup(apiUrl: string, extra: Record<string, unknown> = {}) {
  const h = await notifyBoard({ notifications: { slack: { channel: 'C0FINANCE', botTokenFile: '.work/slack-token', apiUrl }, ...extra } });
  await fs.writeFile(path.join(h.root, '.work/slack-token'), TOKEN);
  const d = await daemonOn(h);
  open.push(d);
  return { h, d };
}

describe('the Slack channel in the outbox', () => {
  it('posts an approval with its buttons through the Web API, once', async () => {
    const slack = await fakeSlack(TOKEN);
    open.push(slack);
    const { h, d } = await setup(slack.url);
    const view = await toApproval(h);
    await d.plan();
    const post = await slack.next((c) => c.method === 'chat.postMessage');
    expect(post.token).toBe(TOKEN);
    expect(post.args.channel).toBe('C0FINANCE');
    const item = view.workItems[0];
    const approve = post.args.blocks.find((b: any) => b.type === 'actions').elements[0];
    expect(decodeRef(approve.value)).toEqual({ runId: view.run.id, workItemId: item.id, stepId: 'approve', snapshot: item.snapshot });
    await d.advance(3_600_000);
    expect(slack.of('chat.postMessage')).toHaveLength(1);
    const [entry] = await allEntries(h.board.state);
    expect(entry!.deliveries!.slack).toMatchObject({ attempts: 1, doneAt: expect.any(String) });
  });

  it('where Slack cannot be reached or answers an error, the delivery is tried again after its backoff: nothing lost', async () => {
    const slack = await fakeSlack(TOKEN);
    open.push(slack);
    // The first attempt finds no answer (the connection drops), the second an error, the third Slack as it should be.
    slack.fail = () => (slack.calls.length === 0 ? 'drop' : slack.calls.length === 1 ? 'internal_error' : null);
    const { h, d } = await setup(slack.url);
    await toApproval(h);
    await d.plan();
    const [waiting] = await allEntries(h.board.state);
    expect(waiting!.deliveries!.slack).toMatchObject({ attempts: 1, lastError: expect.stringContaining('Slack could not be reached'), nextAt: expect.any(String) });
    expect(JSON.stringify(waiting)).not.toContain(TOKEN);
    // Not before the first backoff (15 s, jitter up to 10%).
    await d.advance(14_000);
    expect(slack.calls).toHaveLength(1);
    await d.advance(3_000);
    await slack.next((c) => c.answer?.error === 'internal_error');
    const [failedAgain] = await allEntries(h.board.state);
    expect(failedAgain!.deliveries!.slack).toMatchObject({ attempts: 2, lastError: 'Slack answered internal_error' });
    await d.advance(34_000);
    await slack.next((c) => c.method === 'chat.postMessage' && c.answer?.ok === true);
    const [sent] = await allEntries(h.board.state);
    expect(sent!.deliveries!.slack).toMatchObject({ attempts: 3, doneAt: expect.any(String) });
    await d.advance(3_600_000);
    expect(slack.of('chat.postMessage')).toHaveLength(3);
    expect(slack.calls.filter((c) => c.answer?.ok === true)).toHaveLength(1);
    expect(d.log.join('\n')).not.toContain(TOKEN);
  });

  it('never posts a test run, and a board without Slack plans no Slack delivery', async () => {
    const slack = await fakeSlack(TOKEN);
    open.push(slack);
    const { h, d } = await setup(slack.url);
    await toApproval(h, 'test');
    await d.advance(60_000);
    expect(slack.calls).toEqual([]);
    expect((await allEntries(h.board.state))[0]!.deliveries!.slack).toEqual({ attempts: 0, skipped: 'test run' });

    const plain = await notifyBoard({ notifications: {} });
    const run = await toApproval(plain);
    const entries = await allEntries(plain.board.state);
    expect(entries.length).toBeGreaterThan(0);
    // Nothing of Slack in what a board without it records.
    expect(JSON.stringify(entries)).not.toMatch(/slack|snapshot|stepKind/);
    expect(run.run.id).toMatch(/^r-/);
  });
});

describe('Slack messages and payloads (pure)', () => {
  const ref = { runId: 'r-01', workItemId: 'w-01', stepId: 'approve', snapshot: 'abc' };

  it('escapes &, < and > in what people wrote, and shows an outcome instead of the buttons', () => {
    const m = messageBlocks({ title: 'Pay <Ann> & co', lines: ['a > b'], link: 'https://wb.example.com/work/r-01/w-01', mentions: ['U1'], decide: ref });
    expect(m.blocks[0]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: '*<https://wb.example.com/work/r-01/w-01|Pay &lt;Ann&gt; &amp; co>*\na &gt; b' } });
    const done = messageBlocks({ title: 'Pay', lines: [], link: 'https://x.example/', mentions: [], decide: ref, outcome: 'Approved by Ann Lind in Slack' });
    expect(JSON.stringify(done.blocks)).not.toContain('wb.approve');
    expect(done.text).toBe('Pay — Approved by Ann Lind in Slack');
  });

  it('reads button clicks and modal submissions, and refuses what is not one', () => {
    const click = {
      type: 'block_actions',
      user: { id: 'U1' },
      trigger_id: 't1',
      container: { channel_id: 'C1', message_ts: '1.2' },
      actions: [{ action_id: 'wb.approve', value: JSON.stringify({ r: 'r-01', w: 'w-01', t: 'approve', s: 'abc' }) }],
    };
    expect(parseInteraction(formBody(click))).toEqual({ kind: 'button', user: 'U1', action: 'approve', ref, at: { channel: 'C1', ts: '1.2' }, triggerId: 't1' });
    expect(parseInteraction('payload=not-json')).toEqual({ error: 'the payload is not JSON' });
    expect(parseInteraction('other=1')).toEqual({ error: 'no payload field' });
    const forged = { ...click, actions: [{ action_id: 'wb.approve', value: '{"r":"r-01"}' }] };
    expect(parseInteraction(formBody(forged))).toMatchObject({ kind: 'button', ref: null });
  });

  it('refuses one Slack user declared for two people, naming both, with every other problem at once', () => {
    const data = {
      notifications: { timeZone: 'Europe/Atlantis' },
      people: [
        { email: 'a@x.example', slack: 'U1' },
        { email: 'b@x.example', slack: 'U2' },
        { email: 'c@x.example', slack: 'U1' },
      ],
    };
    expect(manifestIssues(data)).toEqual([
      { path: 'notifications.timeZone', message: expect.stringContaining('not an IANA time zone') },
      { path: 'people.2.slack', message: 'the Slack user U1 is declared for people 1 and 3: one Slack user is one person' },
    ]);
    expect(manifestIssues({ people: [{ email: 'a@x.example', slack: 'U1' }, { email: 'b@x.example' }] })).toEqual([]);
  });

  it('checks the signature as Slack documents it: secret, body and a timestamp within 5 minutes either way', () => {
    const body = formBody({ type: 'block_actions' });
    const now = 1_764_900_000_000;
    const at = now / 1000;
    const headers = (sig: string, ts: number) => ({ 'x-slack-signature': sig, 'x-slack-request-timestamp': String(ts) });
    expect(refusal(headers(slackSignature('s3cret', at, body), at), body, 's3cret', now)).toBeNull();
    expect(refusal(headers(slackSignature('wrong', at, body), at), body, 's3cret', now)).toMatch(/does not match/);
    expect(refusal(headers(slackSignature('s3cret', at, body), at), `${body}x`, 's3cret', now)).toMatch(/does not match/);
    expect(refusal(headers(slackSignature('s3cret', at - 301, body), at - 301), body, 's3cret', now)).toMatch(/more than 5 minutes/);
    expect(refusal(headers(slackSignature('s3cret', at + 301, body), at + 301), body, 's3cret', now)).toMatch(/more than 5 minutes/);
    expect(refusal(headers(slackSignature('s3cret', at - 290, body), at - 290), body, 's3cret', now)).toBeNull();
    expect(refusal({}, body, 's3cret', now)).toMatch(/no Slack signature/);
    expect(refusal(headers(slackSignature('s3cret', at, body).replace('v0=', 'v1='), at), body, 's3cret', now)).toMatch(/does not match/);
  });
});

/**
 * A served board with a Slack channel (not a test file): the web tests'
 * board (approvers Ana Silva and Ben, declared as Slack users U0ANA and
 * U0BEN), WORK.md's `notifications.slack` pointing at a local server that
 * speaks Slack's Web API, the bot token and signing secret in files under
 * `.work/`, and a real `workboard serve --http` on it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { editManifest } from '../../src/board/people.js';
import { fakeSlack, type FakeSlack, type SlackCall } from '../support/slack-api.js';
import { agentDoes, HELPER, PEOPLE, rid, serveBoard, startBoard, stopServer, type WebBoard } from './web-support.js';

export const TOKEN = 'xoxb-test-bot-token-0123456789';
export const SECRET = 'slack-signing-secret-for-the-test';
export const CHANNEL = 'C0APPROVALS';
export const USERS = { ana: 'U0ANA', ben: 'U0BEN', nobody: 'U0NOBODY' };

export interface SlackBoard {
  /** The board; its `base` is the serve with Slack configured. */
  wb: WebBoard;
  slack: FakeSlack;
  /** Everything serve printed so far. */
  out(): string;
  stop(): Promise<void>;
}

export async function slackBoard(): Promise<SlackBoard> {
  const slack = await fakeSlack(TOKEN);
  const wb = await startBoard();
  await wb.stop();
  await editManifest(wb.board, 'test', 'notifications.slack', (d) => {
    d.notifications = { slack: { channel: CHANNEL, botTokenFile: '.work/slack-bot-token', signingSecretFile: '.work/slack-signing-secret', apiUrl: slack.url } };
    for (const p of d.people as { email: string; slack?: string }[]) {
      if (p.email === PEOPLE.ana) p.slack = USERS.ana;
      if (p.email === PEOPLE.ben) p.slack = USERS.ben;
    }
    return 'slack';
  });
  await fs.writeFile(path.join(wb.root, '.work/slack-bot-token'), `${TOKEN}\n`);
  await fs.writeFile(path.join(wb.root, '.work/slack-signing-secret'), `${SECRET}\n`);
  const served = await serveBoard(wb.root);
  let out = '';
  served.server.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  served.server.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const stop = () => stopServer(served.server);
  return {
    wb: { ...wb, base: served.base, server: served.server, stop },
    slack,
    out: () => out,
    stop: async () => {
      await stop();
      await slack.close();
    },
  };
}

/** A payout run at its approval, and the message Slack was asked to post for it. */
export async function approvalPosted(sb: SlackBoard, payee: string): Promise<{ runId: string; message: { channel: string; ts: string; blocks: any[] }; post: SlackCall }> {
  const from = sb.slack.calls.length;
  const start = await sb.wb.service.call('start_run', { process: 'payout', inputs: { payee, amount: 120 }, requestId: rid() }, HELPER);
  if (!start.ok) throw new Error(JSON.stringify(start));
  const runId = start.data.run.id;
  await agentDoes(sb.wb, runId, 'draft', { memo: `Payout for ${payee}` });
  const post = await sb.slack.next((c) => c.method === 'chat.postMessage' && JSON.stringify(c.args.blocks ?? '').includes(runId), from);
  return { runId, message: { channel: CHANNEL, ts: post.answer!.ts, blocks: post.args.blocks }, post };
}

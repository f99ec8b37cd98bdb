/**
 * Slack through Slack's own client (@slack/web-api): a notification posted to
 * the board's channel (chat.postMessage), updated in place later
 * (chat.update), a word to one person only (chat.postEphemeral) and the
 * rejection modal (views.open). The client never retries on its own: the
 * outbox does, as for every channel. Where each message of a work item is
 * is kept under `.work/slack/`, so it can be updated when the item changes
 * (docs/operators.md "Slack"). The bot token and the signing secret come
 * from the environment or a file under `.work/`, like the webhook's secret.
 * The client is loaded at the first call to Slack: a serve that sends
 * nothing there starts without it.
 */
import type { Logger, WebClient } from '@slack/web-api';
import type { PersonLike } from '../../words/index.js';
import type { SlackConfig } from '../../board/manifest.js';
import { SLACK_DIR } from '../../board/layout.js';
import type { WorkState } from '../../board/state.js';
import { linkOf } from '../message.js';
import type { Notification } from '../rules.js';
import { webhookSecret } from './webhook.js';
import { messageBlocks, type ItemRef, type MessageAt, type MessageInput, type SlackMessage } from './slack-blocks.js';
import type { View } from '@slack/web-api';

export const SLACK_API_URL = 'https://slack.com/api/';
/** Where each posted message of a work item is: `<run>-<work item>.json`. */
export { SLACK_DIR };

/** A message of a work item in Slack, and the snapshot its buttons carry (null once it shows how the item ended). */
export interface MessageRecord extends MessageAt {
  ref: ItemRef;
  title: string;
  lines: string[];
  mentions: string[];
  link: string;
}

export const botToken = (cfg: SlackConfig, state: WorkState): Promise<string | null> =>
  webhookSecret({ ...(cfg.botTokenEnv ? { secretEnv: cfg.botTokenEnv } : {}), ...(cfg.botTokenFile ? { secretFile: cfg.botTokenFile } : {}) }, state);
export const signingSecret = (cfg: SlackConfig, state: WorkState): Promise<string | null> =>
  webhookSecret({ ...(cfg.signingSecretEnv ? { secretEnv: cfg.signingSecretEnv } : {}), ...(cfg.signingSecretFile ? { secretFile: cfg.signingSecretFile } : {}) }, state);

/** Slack's client for the board's bot: one attempt per call (the outbox retries), within 10 s. */
async function slackClient(cfg: SlackConfig, token: string): Promise<WebClient> {
  // A CommonJS package: its exports are the default export, in Node and in the bundle alike.
  const { LogLevel, WebClient } = (await import('@slack/web-api')).default;
  /** The client logs nothing of its own: what went wrong is the attempt's error, logged once by the courier, never with the token. */
  const quiet: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    setLevel: () => undefined,
    getLevel: () => LogLevel.ERROR,
    setName: () => undefined,
  };
  return new WebClient(token, { slackApiUrl: cfg.apiUrl ?? SLACK_API_URL, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: 10_000, logger: quiet, logLevel: LogLevel.ERROR });
}

/** What went wrong in a call to Slack, in one line without the token. */
export function slackError(err: unknown): string {
  const e = err as { code?: unknown; data?: { error?: unknown }; message?: unknown };
  if (e && typeof e.data?.error === 'string') return `Slack answered ${e.data.error}`;
  return `Slack could not be reached: ${err instanceof Error ? err.message : String(err)}`;
}

/** A call to Slack that gives up when `signal` fires. */
async function within<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    p.then(resolve, reject);
  });
}

async function clientOf(cfg: SlackConfig, state: WorkState): Promise<WebClient> {
  const token = await botToken(cfg, state);
  if (!token) throw new Error(`no Slack bot token: set ${cfg.botTokenEnv ?? cfg.botTokenFile ?? 'notifications.slack.botTokenEnv in WORK.md'}`);
  return slackClient(cfg, token);
}

/** The people a notification is for, by their declared Slack ids. */
export function mentionsOf(n: Pick<Notification, 'recipients'>, people: readonly (PersonLike & { slack?: string })[]): string[] {
  const byEmail = new Map(people.map((p) => [p.email.toLowerCase(), p.slack]));
  return n.recipients.map((e) => byEmail.get(e.toLowerCase())).filter((s): s is string => typeof s === 'string');
}

/** The message a notification makes: buttons on an approval's (told with its snapshot), Open on every other. */
export function notificationInput(n: Notification, baseUrl: string, people: readonly (PersonLike & { slack?: string })[]): MessageInput {
  const decide = n.stepKind === 'approve' && n.snapshot && n.runId && n.workItemId && n.stepId ? { runId: n.runId, workItemId: n.workItemId, stepId: n.stepId, snapshot: n.snapshot } : null;
  return { title: n.subject, lines: n.text.split('\n').filter((l) => l.trim() !== ''), link: linkOf(n, baseUrl), mentions: mentionsOf(n, people), decide };
}

const recordFile = (runId: string, workItemId: string) => `${SLACK_DIR}/${runId}-${workItemId}.json`;

/** Post a notification to the channel; a work item's message is remembered to be updated later. */
export async function postToSlack(cfg: SlackConfig, state: WorkState, n: Notification, baseUrl: string, people: readonly (PersonLike & { slack?: string })[], signal?: AbortSignal): Promise<void> {
  const client = await clientOf(cfg, state);
  const input = notificationInput(n, baseUrl, people);
  const m = messageBlocks(input);
  const res = await within(client.chat.postMessage({ channel: cfg.channel, text: m.text, blocks: m.blocks, unfurl_links: false, unfurl_media: false }), signal).catch((err: unknown) => {
    throw new Error(slackError(err));
  });
  if (input.decide && typeof res.ts === 'string') {
    await writeRecord(state, {
      channel: typeof res.channel === 'string' ? res.channel : cfg.channel,
      ts: res.ts,
      ref: input.decide,
      title: input.title,
      lines: [...input.lines],
      mentions: [...input.mentions],
      link: input.link,
    });
  }
}

export async function updateMessage(cfg: SlackConfig, state: WorkState, at: MessageAt, m: SlackMessage): Promise<void> {
  const client = await clientOf(cfg, state);
  await client.chat.update({ channel: at.channel, ts: at.ts, text: m.text, blocks: m.blocks }).catch((err: unknown) => {
    throw new Error(slackError(err));
  });
}

/** A word to one person in the channel, seen only by them. */
export async function tellInSlack(cfg: SlackConfig, state: WorkState, channel: string, user: string, text: string): Promise<void> {
  const client = await clientOf(cfg, state);
  await client.chat.postEphemeral({ channel, user, text }).catch((err: unknown) => {
    throw new Error(slackError(err));
  });
}

export async function openModal(cfg: SlackConfig, state: WorkState, triggerId: string, view: View): Promise<void> {
  const client = await clientOf(cfg, state);
  await client.views.open({ trigger_id: triggerId, view }).catch((err: unknown) => {
    throw new Error(slackError(err));
  });
}

const isRecord = (v: unknown): v is MessageRecord => {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.channel === 'string' &&
    typeof r.ts === 'string' &&
    typeof r.ref === 'object' &&
    r.ref !== null &&
    typeof r.title === 'string' &&
    Array.isArray(r.lines) &&
    Array.isArray(r.mentions) &&
    typeof r.link === 'string'
  );
};

export async function writeRecord(state: WorkState, r: MessageRecord): Promise<void> {
  await state.replace(recordFile(r.ref.runId, r.ref.workItemId), `${JSON.stringify(r, null, 2)}\n`);
}

export async function readRecord(state: WorkState, name: string): Promise<MessageRecord | null> {
  const text = await state.readText(`${SLACK_DIR}/${name}`);
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

export const recordOf = (state: WorkState, runId: string, workItemId: string): Promise<MessageRecord | null> => readRecord(state, `${runId}-${workItemId}.json`);

export function recordNames(state: WorkState): string[] {
  return state.list(SLACK_DIR).filter((n) => n.endsWith('.json') && !n.includes('.tmp-'));
}

export async function removeRecord(state: WorkState, r: Pick<MessageRecord, 'ref'>): Promise<void> {
  await state.remove(recordFile(r.ref.runId, r.ref.workItemId));
}

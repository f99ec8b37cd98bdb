/**
 * What a notification says in Slack, and what Slack posts back (pure): the
 * message as Block Kit blocks with Approve, Reject and Open buttons, the
 * modal that asks for a rejection's note, and the interaction payloads of
 * the interactivity endpoint read with type guards, never by cast
 * (docs/operators.md "Slack").
 */
import type { KnownBlock, View } from '@slack/web-api';

/** The buttons' action ids, and the rejection modal's callback id and note field. */
export const ACTION = { approve: 'wb.approve', reject: 'wb.reject', open: 'wb.open' } as const;
export const REJECT_VIEW = 'wb.reject';
export const NOTE_BLOCK = 'wb.note';
export const NOTE_ACTION = 'note';
const NOTE_MAX = 4000;
/** Slack refuses a section's text longer than this. */
const SECTION_MAX = 3000;

/** The work item a button decides, with the snapshot of the run data the message showed. */
export interface ItemRef {
  runId: string;
  workItemId: string;
  stepId: string;
  snapshot: string;
}

/** Where a message is in Slack: its channel and its timestamp (Slack's id of a message). */
export interface MessageAt {
  channel: string;
  ts: string;
}

/** What one message shows, in words made by the caller. */
export interface MessageInput {
  title: string;
  lines: readonly string[];
  link: string;
  /** Slack user ids of the people it is for. */
  mentions: readonly string[];
  /** The approval the buttons decide; absent: only Open. */
  decide?: ItemRef | null;
  /** How the item ended ("Approved by Fin Nordqvist in Slack, …"): shown instead of the buttons. */
  outcome?: string | null;
}

export interface SlackMessage {
  /** The fallback text (notifications, screen readers). */
  text: string;
  blocks: KnownBlock[];
}

/** Slack's mrkdwn escapes: only these three characters (https://api.slack.com/reference/surfaces/formatting#escaping). */
export const escapeMrkdwn = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const cut = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

export function encodeRef(ref: ItemRef): string {
  return JSON.stringify({ r: ref.runId, w: ref.workItemId, t: ref.stepId, s: ref.snapshot });
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function decodeRef(value: unknown): ItemRef | null {
  if (typeof value !== 'string') return null;
  let v: unknown;
  try {
    v = JSON.parse(value);
  } catch {
    return null;
  }
  if (!isObj(v)) return null;
  const [runId, workItemId, stepId, snapshot] = [str(v.r), str(v.w), str(v.t), str(v.s)];
  return runId && workItemId && stepId && snapshot ? { runId, workItemId, stepId, snapshot } : null;
}

/** The message: the title linked to its page, the lines, who it is for, then the buttons or how it ended. */
export function messageBlocks(m: MessageInput): SlackMessage {
  const body = cut([`*<${m.link}|${escapeMrkdwn(m.title)}>*`, ...m.lines.map(escapeMrkdwn)].join('\n'), SECTION_MAX);
  const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: body } }];
  if (m.mentions.length > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `For ${m.mentions.map((u) => `<@${u}>`).join(', ')}` }] });
  if (m.outcome) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cut(escapeMrkdwn(m.outcome), SECTION_MAX) } });
  const open = { type: 'button' as const, action_id: ACTION.open, text: { type: 'plain_text' as const, text: 'Open' }, url: m.link };
  if (m.decide && !m.outcome) {
    const value = encodeRef(m.decide);
    blocks.push({
      type: 'actions',
      block_id: 'wb.decide',
      elements: [
        {
          type: 'button',
          action_id: ACTION.approve,
          style: 'primary',
          text: { type: 'plain_text', text: 'Approve' },
          value,
          // A chat approval must earn trust: one more click, naming what is approved.
          confirm: {
            title: { type: 'plain_text', text: 'Approve?' },
            text: { type: 'plain_text', text: cut(`Approve “${m.title}”?`, 300) },
            confirm: { type: 'plain_text', text: 'Approve' },
            deny: { type: 'plain_text', text: 'Cancel' },
          },
        },
        { type: 'button', action_id: ACTION.reject, style: 'danger', text: { type: 'plain_text', text: 'Reject' }, value },
        open,
      ],
    });
  } else blocks.push({ type: 'actions', block_id: 'wb.open', elements: [open] });
  return { text: cut(m.outcome ? `${m.title} — ${m.outcome}` : m.title, SECTION_MAX), blocks };
}

/** The modal a Reject button opens: a required note, and where the message is, so the submission can update it. */
export function rejectModal(ref: ItemRef, at: MessageAt | null, title: string): View {
  return {
    type: 'modal',
    callback_id: REJECT_VIEW,
    private_metadata: JSON.stringify({ ref: encodeRef(ref), ...(at ? { channel: at.channel, ts: at.ts } : {}) }),
    title: { type: 'plain_text', text: 'Reject' },
    submit: { type: 'plain_text', text: 'Reject' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: cut(escapeMrkdwn(title), SECTION_MAX) } },
      {
        type: 'input',
        block_id: NOTE_BLOCK,
        label: { type: 'plain_text', text: 'Why? (the note goes to the people the rejection sends it back to)' },
        element: { type: 'plain_text_input', action_id: NOTE_ACTION, multiline: true, min_length: 1, max_length: NOTE_MAX },
      },
    ],
  };
}

/** What a person did in Slack, as the interactivity endpoint reads it. */
export type Interaction =
  | { kind: 'button'; user: string; action: 'approve' | 'reject' | 'open'; ref: ItemRef | null; at: MessageAt | null; triggerId: string | null }
  | { kind: 'reject'; user: string; viewId: string; ref: ItemRef; at: MessageAt | null; note: string }
  | { kind: 'other'; user: string | null; type: string };

const BUTTONS: Record<string, 'approve' | 'reject' | 'open'> = { [ACTION.approve]: 'approve', [ACTION.reject]: 'reject', [ACTION.open]: 'open' };

/** The interaction a verified request's body carries (`payload=<json>`, form-encoded), or why it carries none. */
export function parseInteraction(body: string): Interaction | { error: string } {
  const raw = new URLSearchParams(body).get('payload');
  if (raw === null) return { error: 'no payload field' };
  let p: unknown;
  try {
    p = JSON.parse(raw);
  } catch {
    return { error: 'the payload is not JSON' };
  }
  if (!isObj(p) || typeof p.type !== 'string') return { error: 'the payload names no type' };
  const user = isObj(p.user) ? str(p.user.id) : null;
  if (p.type === 'block_actions' && user) {
    const action = Array.isArray(p.actions) ? p.actions.find((a): a is Record<string, unknown> => isObj(a) && typeof a.action_id === 'string' && Object.hasOwn(BUTTONS, a.action_id)) : undefined;
    const which = action ? BUTTONS[String(action.action_id)] : undefined;
    if (!action || !which) return { kind: 'other', user, type: p.type };
    const container = isObj(p.container) ? p.container : {};
    const channel = str(container.channel_id) ?? (isObj(p.channel) ? str(p.channel.id) : null);
    const ts = str(container.message_ts) ?? (isObj(p.message) ? str(p.message.ts) : null);
    return { kind: 'button', user, action: which, ref: decodeRef(action.value), at: channel && ts ? { channel, ts } : null, triggerId: str(p.trigger_id) };
  }
  if (p.type === 'view_submission' && user && isObj(p.view) && p.view.callback_id === REJECT_VIEW) {
    const view = p.view;
    let meta: unknown = null;
    try {
      meta = JSON.parse(typeof view.private_metadata === 'string' ? view.private_metadata : 'null');
    } catch {
      meta = null;
    }
    const ref = isObj(meta) ? decodeRef(meta.ref) : null;
    const viewId = str(view.id);
    if (!ref || !viewId || !isObj(meta)) return { error: 'the rejection names no work item' };
    const values = isObj(view.state) && isObj(view.state.values) ? view.state.values : {};
    const block = isObj(values[NOTE_BLOCK]) ? values[NOTE_BLOCK] : {};
    const field = isObj(block[NOTE_ACTION]) ? block[NOTE_ACTION] : {};
    const channel = str(meta.channel);
    const ts = str(meta.ts);
    return { kind: 'reject', user, viewId, ref, at: channel && ts ? { channel, ts } : null, note: typeof field.value === 'string' ? field.value : '' };
  }
  return { kind: 'other', user, type: p.type };
}

/**
 * What a notification says on each channel (pure): plain text and HTML with
 * the link to the page where the person acts, the webhook's JSON body, and a
 * digest listing several notifications in one message.
 */
import { personName, webHref, type PersonLike } from '../words/index.js';
import { dueSentence, type Notification } from './rules.js';

export function linkOf(n: Pick<Notification, 'path'>, baseUrl: string): string {
  return new URL(n.path, baseUrl).toString();
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface Message {
  subject: string;
  text: string;
  html: string;
}

/** A web address in the text as a link (the one rule of src/words/links.ts); everything else escaped. */
function linked(line: string): string {
  return line
    .split(/(\s+)/)
    .map((w) => {
      const href = webHref(w);
      return href ? `<a href="${escape(href)}">${escape(w)}</a>` : escape(w);
    })
    .join('');
}

function paragraphs(text: string): string {
  return text
    .split('\n')
    .map((l) => `<p>${linked(l)}</p>`)
    .join('\n');
}

/** An email is signed with the board's title as WORK.md gives it ("Finance board"), never its id. */
export function emailOf(n: Notification, baseUrl: string, boardTitle: string): Message {
  const link = linkOf(n, baseUrl);
  const test = n.mode === 'test' ? '[test run] ' : '';
  return {
    subject: `${test}${n.subject}`,
    text: `${n.text}\n\nOpen it: ${link}\n\n— workboard (${boardTitle})\n`,
    html: `<!doctype html><html><body>\n${paragraphs(n.text)}\n<p><a href="${escape(link)}">Open it in workboard</a></p>\n<p style="color:#666">workboard (${escape(boardTitle)})</p>\n</body></html>\n`,
  };
}

/**
 * One message for several notifications to one person. Each is listed in the words its own email uses: its
 * subject (the run's and the step's titles), its first line, and when it is due as rules.ts writes it, in the
 * board's zone.
 */
export function digestOf(notes: readonly Notification[], baseUrl: string, boardTitle: string, timeZone: string): Message {
  const items = notes.map((n) => ({
    n,
    link: linkOf(n, baseUrl),
    lines: [n.text.split('\n')[0] ?? '', dueSentence(n.due, timeZone, n.kind === 'overdue')].filter((l): l is string => l !== undefined && l !== ''),
  }));
  const subject = `${notes.length} new on ${boardTitle}: ${notes[0]?.subject ?? ''}${notes.length > 1 ? ' and more' : ''}`;
  const text = `${items.map(({ n, link, lines }, i) => [`${i + 1}. ${n.subject}`, ...lines, link].join('\n   ')).join('\n\n')}\n\n— workboard (${boardTitle})\n`;
  const html = `<!doctype html><html><body>\n<ol>\n${items.map(({ n, link, lines }) => `<li><p><a href="${escape(link)}">${escape(n.subject)}</a></p>${lines.length > 0 ? paragraphs(lines.join('\n')) : ''}</li>`).join('\n')}\n</ol>\n<p style="color:#666">workboard (${escape(boardTitle)})</p>\n</body></html>\n`;
  return { subject, text, html };
}

/**
 * What a webhook receiver (and the notify command) gets: what happened, on which board, the run and
 * step by id and in words, who it is for, the link and the times. Never the
 * outbox's own record (delivery attempts, schedules): a receiver has no use
 * for them, and they change between retries of one notification.
 */
export interface WebhookPayload {
  kind: Notification['kind'];
  id: string;
  at: string;
  board: string;
  run: { id: string; title: string | null; process: string | null } | null;
  step: { id: string; title: string | null } | null;
  workItem: string | null;
  due: string | null;
  recipients: { email: string; name: string | null }[];
  subject: string;
  /** One line for chat tools: the subject and the link. */
  text: string;
  /** The message in full, in words. */
  details: string;
  link: string;
}

export function webhookPayload(n: Notification, baseUrl: string, people: readonly PersonLike[]): WebhookPayload {
  const link = linkOf(n, baseUrl);
  return {
    kind: n.kind,
    id: n.id,
    at: n.at,
    board: n.board,
    run: n.runId ? { id: n.runId, title: n.runTitle ?? null, process: n.process ?? null } : null,
    step: n.stepId ? { id: n.stepId, title: n.stepTitle ?? null } : null,
    workItem: n.workItemId ?? null,
    due: n.due ?? null,
    recipients: n.recipients.map((email) => {
      const name = personName(people, email);
      return { email, name: name === email ? null : name };
    }),
    subject: n.subject,
    text: `${n.subject} — ${link}`,
    details: n.text,
    link,
  };
}

export const webhookBody = (n: Notification, baseUrl: string, people: readonly PersonLike[]): string => JSON.stringify(webhookPayload(n, baseUrl, people));

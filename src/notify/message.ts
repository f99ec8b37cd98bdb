/**
 * What a notification says on each channel (pure): plain text and HTML with
 * the link to the page where the person acts, the webhook's JSON body, and a
 * digest listing several notifications in one message.
 */
import type { Notification } from './rules.js';

export function linkOf(n: Pick<Notification, 'path'>, baseUrl: string): string {
  return new URL(n.path, baseUrl).toString();
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface Message {
  subject: string;
  text: string;
  html: string;
}

function paragraphs(text: string): string {
  return text.split('\n').map((l) => `<p>${escape(l)}</p>`).join('\n');
}

export function emailOf(n: Notification, baseUrl: string): Message {
  const link = linkOf(n, baseUrl);
  const test = n.mode === 'test' ? '[test run] ' : '';
  return {
    subject: `${test}${n.subject}`,
    text: `${n.text}\n\nOpen it: ${link}\n\n— workboard (${n.board})\n`,
    html: `<!doctype html><html><body>\n${paragraphs(n.text)}\n<p><a href="${escape(link)}">Open it in workboard</a></p>\n<p style="color:#666">workboard (${escape(n.board)})</p>\n</body></html>\n`,
  };
}

/** One message for several notifications to one person. */
export function digestOf(notes: readonly Notification[], baseUrl: string, board: string): Message {
  const items = notes.map((n) => ({ n, link: linkOf(n, baseUrl) }));
  const subject = `${notes.length} new on ${board}: ${notes[0]?.subject ?? ''}${notes.length > 1 ? ' and more' : ''}`;
  const text = `${items.map(({ n, link }, i) => `${i + 1}. ${n.subject}\n   ${n.text.split('\n')[0] ?? ''}\n   ${link}`).join('\n\n')}\n\n— workboard (${board})\n`;
  const html = `<!doctype html><html><body>\n<ol>\n${items.map(({ n, link }) => `<li><p><a href="${escape(link)}">${escape(n.subject)}</a></p>${paragraphs(n.text.split('\n')[0] ?? '')}</li>`).join('\n')}\n</ol>\n<p style="color:#666">workboard (${escape(board)})</p>\n</body></html>\n`;
  return { subject, text, html };
}

/** The webhook's body: the notification, its link, and a plain `text` line chat tools can show. */
export function webhookBody(n: Notification, baseUrl: string): string {
  const link = linkOf(n, baseUrl);
  const { recipients, ...rest } = n;
  return JSON.stringify({ ...rest, recipients, link, text: `${n.subject} — ${link}`, details: n.text });
}

/**
 * Self-service sign-in as plain rules: how a typed address is read, which
 * person (if any) it reaches, and the email that carries their link. Pure:
 * the handler and the mailer (signin-mailer.ts) bring the board and the link.
 */
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import type { Manifest } from '../service/web-board.js';
import type { Message } from '../notify/message.js';
import { isPerson } from '../process/values.js';
import { CODE_TTL_MS } from './session-rules.js';

/** An address as typed, made comparable: trimmed, lower-case. */
export function normaliseAddress(typed: string): string {
  return typed.trim().toLowerCase();
}

/** What is wrong with a typed address, in words; null when it reads as an email address. */
export function addressProblem(address: string): string | null {
  if (address === '') return 'Enter your email address.';
  return isPerson(address) ? null : `"${address}" is not an email address; enter one like you@example.com.`;
}

export interface Recipient {
  /** Where the link goes: the person's address as WORK.md declares it now, whichever of theirs was typed. */
  email: string;
  name: string;
}

/**
 * The declared person an address belongs to: a current address first, then
 * one they had before a rename (`formerEmails`), so every alias of a person
 * is the same person. Agents, operators who are not people, and removed
 * people are nobody here.
 */
export function recipientFor(manifest: Pick<Manifest, 'people'>, address: string): Recipient | null {
  const p = manifest.people.find((x) => x.email.toLowerCase() === address) ?? manifest.people.find((x) => x.formerEmails?.some((f) => f.toLowerCase() === address));
  return p ? { email: p.email.toLowerCase(), name: p.name ?? p.email } : null;
}

/** Whether the board sends email at all: only then is a link offered by email. */
export function emailConfigured(manifest: Pick<Manifest, 'notifications'>): boolean {
  return manifest.notifications.email !== null;
}

const MINUTES = Math.round(CODE_TTL_MS / 60_000);

/** The email that carries a sign-in link, in plain text and HTML (rendered by preact, so every value is escaped). */
export function signInMessage(board: { title: string }, to: Recipient, link: string): Message {
  const lines = [
    `Hello ${to.name},`,
    `Someone asked to sign in to ${board.title} with this email address. If it was you, open this link: it signs you in, and it is valid for ${MINUTES} minutes, once.`,
    `If it was not you, ignore this email: nobody gets in without the link.`,
  ];
  const text = `${lines[0]}\n\n${lines[1]}\n\n${link}\n\n${lines[2]}\n\n— workboard (${board.title})\n`;
  const html = render(
    h(
      'html',
      null,
      h(
        'body',
        null,
        h('p', null, lines[0]),
        h('p', null, lines[1]),
        h('p', null, h('a', { href: link }, `Sign in to ${board.title}`)),
        h('p', null, lines[2]),
        h('p', { style: 'color:#666' }, `workboard (${board.title})`),
      ),
    ),
  );
  return { subject: `Your sign-in link for ${board.title}`, text, html: `<!doctype html>${html}\n` };
}

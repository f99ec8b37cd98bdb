/**
 * Telling a delegate (pure): a person handed them their work for a time, or
 * took it back before that time was up (docs/people.md "Out of office"). In
 * words: who, from when to when in the board's time zone, which processes,
 * the note, and who set it when an operator did. The email goes through the
 * outbox with the WORK.md edit that makes or ends the delegation.
 */
import type { Manifest } from '../board/manifest.js';
import type { Delegation } from '../engine/delegation.js';
import { exactTime, inList, personName } from '../words/index.js';
import type { Notification } from './rules.js';

export interface DelegationNews {
  /** Set: the delegate now decides for the person; ended: no longer, before its end. */
  kind: 'delegation_set' | 'delegation_ended';
  delegation: Delegation;
  /** The titles of the processes whose work reaches the person through their groups. */
  processes: readonly string[];
  /** Who made the change (the person, or an operator). */
  by: string;
  /** Ended because the person handed their work to this one instead. */
  replacedBy?: string;
  at: string;
  id: string;
}

export function delegationNotification(news: DelegationNews, manifest: Manifest): Notification {
  const { delegation: d, kind, by, at } = news;
  const name = (email: string) => personName(manifest.people, email);
  const time = (iso: string) => exactTime(iso, manifest.notifications.timeZone);
  const who = name(d.from);
  const work = news.processes.length > 0 ? `their work in ${inList(news.processes.map((p) => `“${p}”`))}` : 'the work assigned to them or their groups';
  const setBy = by.toLowerCase() === d.from.toLowerCase() ? [] : [`${kind === 'delegation_set' ? 'Set' : 'Ended'} by ${name(by)}.`];
  const base = { id: news.id, kind, at, mode: 'live' as const, board: manifest.name, recipients: [d.to] };
  if (kind === 'delegation_set') {
    return {
      ...base,
      subject: `${who} handed you their work until ${time(d.until)}`,
      text: [
        `${who} is out of office from ${time(d.since)} until ${time(d.until)}, and handed you ${work}.`,
        `Until then it shows on your My work marked “For ${who}”, and you decide it in your own name, for ${who}.`,
        ...(d.note ? [`Their note: “${d.note}”`] : []),
        ...setBy,
      ].join('\n'),
      path: '/work',
    };
  }
  const instead = news.replacedBy === undefined ? null : name(news.replacedBy);
  return {
    ...base,
    subject: instead === null ? `${who} is back: their work no longer comes to you` : `${who}’s work goes to ${instead} now, no longer to you`,
    text: [
      `${who}’s out of office, from ${time(d.since)} until ${time(d.until)}, ${instead === null ? 'ended early' : `was handed to ${instead} instead`}, at ${time(at)}.`,
      `${work.charAt(0).toUpperCase()}${work.slice(1)} goes to ${instead ?? 'them'} ${instead === null ? 'again' : 'from now on'}; what you already decided for them stays decided.`,
      ...setBy,
    ].join('\n'),
    path: '/work',
  };
}

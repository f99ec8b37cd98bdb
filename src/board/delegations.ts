/**
 * Out of office on the board: a delegation set or ended is one audited edit
 * of WORK.md's `delegations`, so it is committed, shared and merged as the
 * team's other facts about people are (docs/people.md "Out of office"). The
 * rules are pure, in engine/delegation.ts; this file only applies them.
 */
import type { Author } from './author.js';
import type { Board } from './board.js';
import { BoardError } from './errors.js';
import { manifestFrom } from './manifest.js';
import { editManifest } from './people.js';
import { delegationProblems, withDelegation, withoutDelegation, type Delegation, type DelegationAsk } from '../engine/delegation.js';

function put(data: Record<string, unknown>, next: Delegation[]): void {
  if (next.length > 0) data.delegations = next;
  else delete data.delegations;
}

/** Hand `ask.from`'s work to `ask.to` until `ask.until`, replacing one they had; every problem refused at once. */
export const setDelegation = (board: Board, by: Author | string, ask: DelegationAsk, now: Date) =>
  editManifest(board, by, 'delegation.set', (data) => {
    const m = manifestFrom({ data });
    const all = m.delegations ?? [];
    const issues = delegationProblems(ask, all, m.people, now);
    if (issues.length > 0) throw new BoardError('invalid', `cannot hand ${ask.from}'s work to ${ask.to}: ${issues.map((i) => i.message).join('; ')}`, issues);
    const next = withDelegation(all, ask, typeof by === 'string' ? by : by.actor, m.people, now);
    put(data, next);
    const made = next[next.length - 1];
    return `delegation ${made?.from ?? ask.from} to ${made?.to ?? ask.to} until ${made?.until ?? ask.until}`;
  });

/** End `from`'s delegation now; null when they had none in force. */
export const endDelegation = (board: Board, by: Author | string, from: string, now: Date) =>
  editManifest(board, by, 'delegation.ended', (data) => {
    const m = manifestFrom({ data });
    const all = m.delegations ?? [];
    const next = withoutDelegation(all, from, m.people, now);
    if (next === null) return null;
    const ended = all.find((d) => !next.includes(d) && Date.parse(d.until) > now.getTime());
    put(data, next);
    return `delegation ${ended?.from ?? from} to ${ended?.to ?? '?'} ended`;
  });

/**
 * Out of office on the board: a delegation set or ended is one audited edit
 * of WORK.md's `delegations`, so it is committed, shared and merged as the
 * team's other facts about people are (docs/people.md "Out of office"). The
 * rules are pure, in engine/delegation.ts; this file only applies them.
 * `tell` gives the records (the delegate's email in the outbox) that go in
 * the same commit, from the delegation as it was made or ended.
 */
import type { Author } from './author.js';
import type { Board } from './board.js';
import type { StateRecord } from './commit.js';
import { BoardError } from './errors.js';
import { manifestFrom } from './manifest.js';
import { editManifest } from './people.js';
import { delegationProblems, delegationsInForce, withDelegation, withoutDelegation, type Delegation, type DelegationAsk } from '../engine/delegation.js';

function put(data: Record<string, unknown>, next: Delegation[]): void {
  if (next.length > 0) data.delegations = next;
  else delete data.delegations;
}

/** What else a delegation's commit writes, given the delegation made (or ended) and the one it replaced, if any. */
export type Tell = (d: Delegation, replaced: Delegation | null) => StateRecord[];

const alsoTell = (tell: Tell | undefined, told: () => [Delegation, Delegation | null] | null) =>
  tell
    ? () => {
        const t = told();
        return Promise.resolve({ state: t ? tell(t[0], t[1]) : [], changes: {} });
      }
    : undefined;

/** Hand `ask.from`'s work to `ask.to` until `ask.until`, replacing one they had; every problem refused at once. */
export const setDelegation = (board: Board, by: Author | string, ask: DelegationAsk, now: Date, tell?: Tell) => {
  let told: [Delegation, Delegation | null] | null = null;
  return editManifest(
    board,
    by,
    'delegation.set',
    (data) => {
      const m = manifestFrom({ data });
      const all = m.delegations ?? [];
      const issues = delegationProblems(ask, all, m.people, now);
      if (issues.length > 0) throw new BoardError('invalid', `cannot hand ${ask.from}'s work to ${ask.to}: ${issues.map((i) => i.message).join('; ')}`, issues);
      const next = withDelegation(all, ask, typeof by === 'string' ? by : by.actor, m.people, now);
      put(data, next);
      const made = next[next.length - 1];
      if (made) told = [made, delegationsInForce(all, now).find((d) => d.from.toLowerCase() === made.from.toLowerCase()) ?? null];
      return `delegation ${made?.from ?? ask.from} to ${made?.to ?? ask.to} until ${made?.until ?? ask.until}`;
    },
    alsoTell(tell, () => told),
  );
};

/** End `from`'s delegation now; null when they had none in force. */
export const endDelegation = (board: Board, by: Author | string, from: string, now: Date, tell?: Tell) => {
  let told: [Delegation, Delegation | null] | null = null;
  return editManifest(
    board,
    by,
    'delegation.ended',
    (data) => {
      const m = manifestFrom({ data });
      const all = m.delegations ?? [];
      const next = withoutDelegation(all, from, m.people, now);
      if (next === null) return null;
      const ended = all.find((d) => !next.includes(d) && Date.parse(d.until) > now.getTime());
      put(data, next);
      if (ended) told = [ended, null];
      return `delegation ${ended?.from ?? from} to ${ended?.to ?? '?'} ended`;
    },
    alsoTell(tell, () => told),
  );
};

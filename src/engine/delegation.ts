/**
 * Out of office (pure): a person hands the work assigned to them, or to their
 * groups, to another person until a time (docs/people.md "Out of office").
 * The delegate decides in their own name "for" the delegator; four eyes holds
 * for both of them. Delegations are WORK.md's `delegations` list, so this
 * module decides only from data: who may set one, which are in force at a
 * moment, and for whom a person decides a work item.
 */
import type { Issue } from '../core/issues.js';
import { emailsOf } from './rights.js';
import type { Actor, Delegator } from './types.js';

export type { Delegator };

/** One delegation as WORK.md records it. */
export interface Delegation {
  from: string;
  to: string;
  /** When it began (ISO). */
  since: string;
  /** When it ends by itself (ISO): from then on it is no longer in force. */
  until: string;
  /** Who set it up: the delegator, or an operator. */
  by: string;
  note?: string;
}

type PersonLike = { email: string; formerEmails?: readonly string[] };

const lower = (e: string) => e.toLowerCase();

/** The person WORK.md declares under this email, now or before a rename. */
function personOf(people: readonly PersonLike[], email: string): PersonLike | undefined {
  const e = lower(email);
  return people.find((p) => emailsOf(p).has(e));
}

/** Is this delegation in force at `now`? It starts at `since` and ends by itself at `until`. */
export function inForce(d: Delegation, now: Date): boolean {
  const t = now.getTime();
  return Date.parse(d.since) <= t && t < Date.parse(d.until);
}

/** The delegations in force at `now`: at most one per delegator (the latest begun, should a merge of two clones leave two). */
export function delegationsInForce(all: readonly Delegation[], now: Date): Delegation[] {
  const byFrom = new Map<string, Delegation>();
  for (const d of all) {
    if (!inForce(d, now)) continue;
    const had = byFrom.get(lower(d.from));
    if (!had || d.since > had.since || (d.since === had.since && lower(d.to) > lower(had.to))) byFrom.set(lower(d.from), d);
  }
  return [...byFrom.values()];
}

/** Who has handed their work to this person at `now`, as people WORK.md declares (the current email first). */
export function delegatorsOf(email: string, all: readonly Delegation[], people: readonly PersonLike[], now: Date): Delegator[] {
  const me = personOf(people, email);
  const mine = me ? emailsOf(me) : new Set([lower(email)]);
  const out: Delegator[] = [];
  for (const d of delegationsInForce(all, now)) {
    if (!mine.has(lower(d.to))) continue;
    const p = personOf(people, d.from);
    if (!p) continue; // a delegator removed from the board hands nothing on
    if (mine.has(lower(p.email))) continue;
    out.push({ email: p.email, ...(p.formerEmails?.length ? { formerEmails: p.formerEmails } : {}) });
  }
  return out.sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}

/** A delegator as an actor: a person with no operator rights (escalations are not handed on). */
export function delegatorActor(d: Delegator): Actor {
  return { kind: 'person', email: d.email, operator: false, ...(d.formerEmails?.length ? { formerEmails: d.formerEmails } : {}) };
}

/**
 * For whom this person decides a work item: `null` for themselves (it is
 * assigned to them, or to a group of theirs), the delegator whose work it is,
 * or `undefined` when it is nobody's they may decide. `may` says whether an
 * actor is among the assignees; `blocked` whether four eyes keeps them out.
 * Their own assignment comes first, so a delegation never changes what a
 * person already decides in their own name.
 */
export function decidesFor(actor: Actor, may: (a: Actor) => boolean, blocked: (a: Actor) => boolean): Delegator | null | undefined {
  if (actor.kind !== 'person') return undefined;
  if (may(actor)) return blocked(actor) ? undefined : null;
  // Four eyes holds for both: the delegate may not decide what they submitted, nor what the delegator did.
  if (blocked(actor)) return undefined;
  for (const d of actor.delegators ?? []) {
    const as = delegatorActor(d);
    if (may(as) && !blocked(as)) return d;
  }
  return undefined;
}

/** What someone asks for: hand `from`'s work to `to` until `until`. */
export interface DelegationAsk {
  from: string;
  to: string;
  until: string;
  note?: string;
}

/**
 * Every problem with a new delegation, at once: an unknown person on either
 * side, delegating to oneself, an end that is not a time or already past,
 * a cycle (`to` has, in force, handed their work back along a chain to
 * `from`), and a `to` who is away themselves: delegations do not chain. One
 * already in force for `from` is replaced, not a problem.
 */
export function delegationProblems(ask: DelegationAsk, all: readonly Delegation[], people: readonly PersonLike[], now: Date): Issue[] {
  const issues: Issue[] = [];
  const from = personOf(people, ask.from);
  const to = personOf(people, ask.to);
  if (!from) issues.push({ path: 'from', message: `${ask.from} is not a person on this board` });
  if (!to) issues.push({ path: 'to', message: `${ask.to} is not a person on this board` });
  if (from && to && lower(from.email) === lower(to.email)) issues.push({ path: 'to', message: 'a person cannot hand their work to themselves' });
  const end = Date.parse(ask.until);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(ask.until) || Number.isNaN(end)) issues.push({ path: 'until', message: `"${ask.until}" is not a time (e.g. 2026-12-12T09:00:00Z)` });
  else if (end <= now.getTime()) issues.push({ path: 'until', message: `${ask.until} is already past` });
  if (from && to && lower(from.email) !== lower(to.email)) {
    const cycle = chainBack(from, to, all, people, now);
    const away = delegationsInForce(all, now).find((d) => emailsOf(to).has(lower(d.from)));
    if (cycle) issues.push({ path: 'to', message: `that would be a cycle: ${cycle.join(' → ')}` });
    // Work handed on is never handed on again (docs/people.md "Out of office"), so it would wait with someone away.
    else if (away)
      issues.push({
        path: 'to',
        message: `${to.email} is out of office themselves (their work goes to ${personOf(people, away.to)?.email ?? away.to}), and handed work is not handed on again: choose someone who is in`,
      });
  }
  return issues;
}

/** The chain from `to` through the delegations in force that reaches `from` again, as emails, or null. */
function chainBack(from: PersonLike, to: PersonLike, all: readonly Delegation[], people: readonly PersonLike[], now: Date): string[] | null {
  const live = delegationsInForce(all, now).filter((d) => !emailsOf(from).has(lower(d.from)));
  const chain = [from.email, to.email];
  let at: PersonLike | undefined = to;
  while (at) {
    const here: PersonLike = at;
    const next = live.find((d) => emailsOf(here).has(lower(d.from)));
    if (!next) return null;
    const p = personOf(people, next.to);
    if (!p) return null;
    chain.push(p.email);
    if (emailsOf(from).has(lower(p.email))) return chain;
    if (chain.length > people.length + 2) return null;
    at = p;
  }
  return null;
}

/**
 * WORK.md's delegations with `ask` set: those of `from` (in force or not) and
 * any that ended before `now` leave; the new one is added in their place.
 */
export function withDelegation(all: readonly Delegation[], ask: DelegationAsk, by: string, people: readonly PersonLike[], now: Date): Delegation[] {
  const from = personOf(people, ask.from);
  const mine = from ? emailsOf(from) : new Set([lower(ask.from)]);
  const to = personOf(people, ask.to);
  const kept = all.filter((d) => !mine.has(lower(d.from)) && Date.parse(d.until) > now.getTime());
  const note = ask.note?.trim();
  return [
    ...kept,
    { from: from?.email ?? ask.from, to: to?.email ?? ask.to, since: now.toISOString(), until: new Date(Date.parse(ask.until)).toISOString(), by: lower(by), ...(note ? { note } : {}) },
  ];
}

/** WORK.md's delegations once `from`'s is ended (and those already over left out); null when `from` had none in force. */
export function withoutDelegation(all: readonly Delegation[], from: string, people: readonly PersonLike[], now: Date): Delegation[] | null {
  const p = personOf(people, from);
  const mine = p ? emailsOf(p) : new Set([lower(from)]);
  if (!all.some((d) => mine.has(lower(d.from)) && inForce(d, now))) return null;
  return all.filter((d) => !mine.has(lower(d.from)) && Date.parse(d.until) > now.getTime());
}

/** Who may end or set a delegation of `from`: they themselves, or an operator. */
export function mayManage(actor: Actor, from: string, people: readonly PersonLike[]): boolean {
  if (actor.kind !== 'person') return false;
  if (actor.operator) return true;
  const p = personOf(people, from);
  return p !== undefined && emailsOf(p).has(lower(actor.email));
}

/** A delegation's people renamed or removed with WORK.md's person: `to` null drops those naming `from`. */
export function delegationsAfterRename(all: readonly Delegation[], from: string, to: string | null): Delegation[] {
  const f = lower(from);
  if (to === null) return all.filter((d) => lower(d.from) !== f && lower(d.to) !== f);
  return all.map((d) => ({ ...d, from: lower(d.from) === f ? to : d.from, to: lower(d.to) === f ? to : d.to }));
}

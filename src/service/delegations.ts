/**
 * Out of office through the service (docs/people.md "Out of office"): who
 * the caller decides for right now, the delegations a page or the CLI lists,
 * and setting or ending one as the caller, refused with every problem at
 * once. The rules are engine/delegation.ts; the edit is board/delegations.ts.
 * The delegate is emailed, in the same commit, when it is set and when it
 * ends early (notify/delegation-notes.ts).
 */
import type { Board } from '../board/board.js';
import { endDelegation, setDelegation, type Tell } from '../board/delegations.js';
import { listProcessNames, listVersions } from '../board/processes.js';
import { newId } from '../core/ids.js';
import { delegationNotification } from '../notify/delegation-notes.js';
import { outboxRecords } from '../notify/outbox.js';
import { processTitle } from '../words/index.js';
import type { Pinned } from '../engine/types.js';
import type { Author } from '../board/author.js';
import { issueText } from '../core/issues.js';
import { mayDecide } from '../engine/decide.js';
import { delegationProblems, delegationsInForce, delegatorActor, delegatorsOf, mayManage, type Delegation, type DelegationAsk } from '../engine/delegation.js';
import { emailsOf } from '../engine/rights.js';
import type { Actor } from '../engine/types.js';
import type { Assignment } from '../protocol/views.js';
import { resolveActor } from './identity.js';
import { instantOf } from '../words/index.js';
import { ToolError } from '../protocol/errors.js';

/** The caller with the people who have handed them their work at `now`; unchanged when nobody has (byte for byte as before). */
export function withDelegators(board: Board, actor: Actor, now: Date): Actor {
  const m = board.manifest;
  const all = m.delegations ?? [];
  if (actor.kind !== 'person' || all.length === 0) return actor;
  const delegators = delegatorsOf(actor.email, all, m.people, now);
  return delegators.length > 0 ? { ...actor, delegators } : actor;
}

/** The delegations in force at `now`, oldest first. */
export function delegationsNow(board: Board, now: Date): Delegation[] {
  return delegationsInForce(board.manifest.delegations ?? [], now).sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : 0));
}

function authorOf(actor: Actor, osUser: string | null): Author {
  return { actor: actor.kind === 'person' ? actor.email : actor.id, osUser };
}

function mustManage(board: Board, actor: Actor, from: string): void {
  if (!mayManage(actor, from, board.manifest.people)) {
    throw new ToolError('forbidden', `only ${from} or an operator may change ${from}'s out of office`, ['from: not you, and you are not an operator']);
  }
}

/** A published version as runs pin it (RunReader.pinned). */
export type PinnedOf = (name: string, version: number) => Promise<Pinned>;

/** The titles of the published processes (latest versions) whose roles reach `email` through a group of theirs. */
async function processesReaching(board: Board, pinnedOf: PinnedOf, email: string): Promise<string[]> {
  const person = board.manifest.people.find((p) => emailsOf(p).has(email.toLowerCase()));
  const mine = person ? emailsOf(person) : new Set([email.toLowerCase()]);
  const groups = Object.entries(board.manifest.groups).flatMap(([g, members]) => (members.some((m) => mine.has(m.toLowerCase())) ? [g] : []));
  const out: string[] = [];
  for (const name of await listProcessNames(board)) {
    const versions = await listVersions(board, name);
    const latest = versions[versions.length - 1];
    if (latest === undefined) continue;
    try {
      const p = await pinnedOf(name, latest);
      if (Object.values(p.roles).some((g) => groups.includes(g))) out.push(processTitle(p.process));
    } catch {
      // a version that no longer verifies reaches nobody
    }
  }
  return out;
}

/** The delegate's email (and, when a delegation to someone else is replaced, theirs) as outbox records of the commit. */
async function tellDelegates(board: Board, pinnedOf: PinnedOf, by: string, from: string, now: Date, kind: 'delegation_set' | 'delegation_ended'): Promise<Tell> {
  const processes = await processesReaching(board, pinnedOf, from);
  const at = now.toISOString();
  const note = (k: typeof kind, delegation: Delegation, replacedBy?: string) =>
    delegationNotification({ kind: k, delegation, processes, by, at, id: newId('n', now.getTime()), ...(replacedBy ? { replacedBy } : {}) }, board.manifest);
  return (d, replaced) => outboxRecords([note(kind, d), ...(replaced && replaced.to.toLowerCase() !== d.to.toLowerCase() ? [note('delegation_ended', replaced, d.to)] : [])]);
}

/** Hand `ask.from`'s work to `ask.to` as `actor` (the person themselves, or an operator). */
export async function delegateAs(board: Board, actor: Actor, ask: DelegationAsk, now: Date, osUser: string | null, pinnedOf: PinnedOf): Promise<Delegation> {
  await board.refresh();
  mustManage(board, actor, ask.from);
  const issues = delegationProblems(ask, board.manifest.delegations ?? [], board.manifest.people, now);
  if (issues.length > 0) throw new ToolError('invalid', `cannot hand ${ask.from}'s work to ${ask.to}`, issues.map(issueText));
  const author = authorOf(actor, osUser);
  await setDelegation(board, author, ask, now, await tellDelegates(board, pinnedOf, author.actor, ask.from, now, 'delegation_set'));
  const from = board.manifest.people.find((p) => emailsOf(p).has(ask.from.toLowerCase()));
  const made = delegationsNow(board, now).find((d) => from !== undefined && emailsOf(from).has(d.from.toLowerCase()));
  if (!made) throw new ToolError('conflict', 'the delegation was not recorded (it changed meanwhile); look again');
  return made;
}

/** End `from`'s delegation now as `actor` (the person themselves, or an operator); false when there was none in force. */
export async function endDelegationAs(board: Board, actor: Actor, from: string, now: Date, osUser: string | null, pinnedOf: PinnedOf): Promise<boolean> {
  await board.refresh();
  mustManage(board, actor, from);
  const author = authorOf(actor, osUser);
  return (await endDelegation(board, author, from, now, await tellDelegates(board, pinnedOf, author.actor, from, now, 'delegation_ended'))) !== null;
}

/**
 * Whom `email` would decide a work item so assigned for at `now`: null when it
 * is theirs (or nobody's they may decide), else the delegator's email, for the
 * "for Mira Okafor" beside it on My work and in `inbox`.
 */
export function decidedFor(board: Board, email: string, assigned: Assignment, now: Date): string | null {
  const who = resolveActor(board.manifest, email);
  if (!who.ok || who.actor.kind !== 'person') return null;
  const groups = board.manifest.groups;
  if (mayDecide(who.actor, assigned, groups)) return null;
  const actor = withDelegators(board, who.actor, now);
  const d = (actor.kind === 'person' ? (actor.delegators ?? []) : []).find((x) => mayDecide(delegatorActor(x), assigned, groups));
  return d?.email ?? null;
}

/**
 * The end a person typed, as an instant: a full time with its zone as given;
 * a date ("2026-12-12", back that day) as its first moment, and a clock time
 * without a zone, as the board's clocks show them (WORK.md
 * `notifications.timeZone`). Anything else is passed on as typed, for the
 * rules to refuse by name.
 */
export function untilFrom(text: string, timeZone: string): string {
  const t = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return instantOf(`${t}T00:00`, timeZone) ?? t;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(t)) return instantOf(t, timeZone) ?? t;
  return t;
}

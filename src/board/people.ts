/**
 * Changing who works on a board: people, groups, operators and agents in
 * WORK.md, each change one audited board commit recording who made it
 * (the identity and, from the CLI, the OS user). The edits themselves are pure
 * functions of WORK.md's data; what else the same commit must write (a
 * removed identity's tokens) is given in by the caller.
 */
import { eventBy, type Author } from './author.js';
import type { Board } from './board.js';
import type { CommitReads, StateRecord } from './commit.js';
import { BoardError } from './errors.js';
import { WORK_FILE } from './layout.js';
import { isPerson } from '../process/values.js';
import { delegationsAfterRename, type Delegation } from '../engine/delegation.js';

type Edit = (data: Record<string, unknown>) => string | null;

/** What else the same commit writes once WORK.md's edit is decided: its `.work/` records, and what joins the audit line's changes. */
export type Also = (reads: CommitReads) => Promise<{ state: StateRecord[]; changes: Record<string, unknown> }>;

const AGENT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const GROUP = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** An identity alone (a script, a test) or an identity and the OS user. */
const authorOf = (by: Author | string): Author => (typeof by === 'string' ? { actor: by, osUser: null } : by);

/** Apply one edit to WORK.md as one commit under the board lock; the edit returns what changed, or null when nothing did. */
export async function editManifest(board: Board, by: Author | string, action: string, edit: Edit, also?: Also): Promise<string | null> {
  const { value } = await board.store.apply({ kind: 'board' }, async (reads) => {
    const doc = await reads.read(WORK_FILE);
    if (!doc) throw new BoardError('invalid', `${WORK_FILE} is missing`);
    const data = structuredClone(doc.data);
    const change = edit(data);
    if (change === null) return { value: null, commit: null };
    const more = also ? await also(reads) : { state: [], changes: {} };
    const commit = { files: [{ rel: WORK_FILE, data, body: doc.body, readRev: doc.rev }], state: more.state, events: [eventBy(authorOf(by), action, WORK_FILE, { change, ...more.changes })] };
    return { value: change, commit };
  });
  await board.refresh();
  return value;
}

function list<T>(data: Record<string, unknown>, key: string): T[] {
  if (!Array.isArray(data[key])) data[key] = [];
  return data[key] as T[];
}

function email(e: string): string {
  if (!isPerson(e)) throw new BoardError('invalid', `"${e}" is not an email address; people are named by email`, [{ path: 'email', message: 'expected an email address' }]);
  return e.toLowerCase();
}

export const addPerson = (board: Board, actor: Author | string, who: string, name?: string) =>
  editManifest(board, actor, 'person.added', (d) => {
    const people = list<{ email: string; name?: string }>(d, 'people');
    const e = email(who);
    if (people.some((p) => p.email.toLowerCase() === e)) return null;
    people.push(name ? { email: e, name } : { email: e });
    return `person ${e}`;
  });

export const addOperator = (board: Board, actor: Author | string, who: string) =>
  editManifest(board, actor, 'operator.added', (d) => {
    const ops = list<string>(d, 'operators');
    const e = email(who);
    if (ops.some((o) => o.toLowerCase() === e)) return null;
    ops.push(e);
    return `operator ${e}`;
  });

export const addAgent = (board: Board, actor: Author | string, id: string, description?: string) =>
  editManifest(board, actor, 'agent.added', (d) => {
    if (!AGENT_ID.test(id)) throw new BoardError('invalid', `agent id "${id}" must be lowercase letters, digits, _ or -`, [{ path: 'id', message: 'expected ^[a-z0-9][a-z0-9_-]{0,63}$' }]);
    const agents = list<{ id: string; description?: string }>(d, 'agents');
    if (agents.some((a) => a.id === id)) return null;
    agents.push(description ? { id, description } : { id });
    return `agent ${id}`;
  });

/** Add members to a group (creating it); members must already be people on the board. */
export const addToGroup = (board: Board, actor: Author | string, group: string, members: string[]) =>
  editManifest(board, actor, 'group.changed', (d) => {
    if (!GROUP.test(group)) throw new BoardError('invalid', `group "${group}" must be lowercase letters, digits, _ or -`, [{ path: 'group', message: 'expected ^[a-z0-9][a-z0-9_-]{0,63}$' }]);
    const people = list<{ email: string }>(d, 'people').map((p) => p.email.toLowerCase());
    const unknown = members.map(email).filter((m) => !people.includes(m));
    if (unknown.length > 0) {
      throw new BoardError(
        'invalid',
        `not people on this board: ${unknown.join(', ')}`,
        unknown.map((m) => ({ path: 'members', message: `${m}: add with workboard person add ${m}` })),
      );
    }
    const groups = groupsOf(d);
    const current = groups[group] ?? [];
    const added = members.map(email).filter((m) => !current.includes(m));
    if (added.length === 0 && Object.hasOwn(groups, group)) return null;
    groups[group] = [...current, ...added];
    return `group ${group} + ${added.join(', ') || '(created)'}`;
  });

const known = (what: string, all: string[]) => (all.length ? ` (${what}: ${all.slice(0, 8).join(', ')}${all.length > 8 ? ', …' : ''})` : '');

function groupsOf(d: Record<string, unknown>): Record<string, string[]> {
  if (typeof d.groups !== 'object' || d.groups === null) d.groups = {};
  return d.groups as Record<string, string[]>;
}

/** A person under a new email, keeping every email they had (what runs and audit lines recorded them by). */
function renamed(p: { email: string; formerEmails?: string[] }, email: string): { email: string; formerEmails: string[] } {
  const former = [...(p.formerEmails ?? []), p.email.toLowerCase()].filter((e, i, all) => e !== email && all.indexOf(e) === i);
  return { ...p, email, formerEmails: former };
}

/** Replace (or, with `to` null, drop) a person everywhere WORK.md names them: people, every group, operators. Returns where they were. */
function swapPerson(d: Record<string, unknown>, from: string, to: { email: string } | null): string[] {
  const same = (e: string) => e.toLowerCase() === from;
  const where: string[] = [];
  const people = list<{ email: string; name?: string }>(d, 'people');
  d.people = to === null ? people.filter((p) => !same(p.email)) : people.map((p) => (same(p.email) ? renamed(p, to.email) : p));
  for (const [g, members] of Object.entries(groupsOf(d))) {
    if (!members.some(same)) continue;
    where.push(`group ${g}`);
    groupsOf(d)[g] = to === null ? members.filter((m) => !same(m)) : members.map((m) => (same(m) ? to.email : m));
  }
  const ops = list<string>(d, 'operators');
  if (ops.some(same)) {
    where.push('operators');
    d.operators = to === null ? ops.filter((o) => !same(o)) : ops.map((o) => (same(o) ? to.email : o));
  }
  // Out of office follows the person: renamed with them, or ended when they leave (docs/people.md "Out of office").
  if (Array.isArray(d.delegations)) {
    const next = delegationsAfterRename(d.delegations as Delegation[], from, to === null ? null : to.email);
    if (next.length > 0) d.delegations = next;
    else delete d.delegations;
  }
  return where;
}

function mustBePerson(d: Record<string, unknown>, e: string): void {
  const people = list<{ email: string }>(d, 'people').map((p) => p.email.toLowerCase());
  if (!people.includes(e)) throw new BoardError('invalid', `no person ${e} on this board${known('people', people)}`, [{ path: 'email', message: `${e} is not in WORK.md's people` }]);
}

/** Remove a person from the board: from people, every group and the operators. */
export const removePerson = (board: Board, by: Author | string, who: string, also?: Also) =>
  editManifest(
    board,
    by,
    'person.removed',
    (d) => {
      const e = email(who);
      mustBePerson(d, e);
      const where = swapPerson(d, e, null);
      return `person ${e} removed${where.length ? ` (from ${where.join(', ')})` : ''}`;
    },
    also,
  );

/** Change a person's email everywhere WORK.md names them; their name stays, and the old email joins their `formerEmails`. */
export const renamePerson = (board: Board, by: Author | string, from: string, to: string, also?: Also) =>
  editManifest(
    board,
    by,
    'person.renamed',
    (d) => {
      const problems: { path: string; message: string }[] = [];
      const f = isPerson(from) ? from.toLowerCase() : null;
      const t = isPerson(to) ? to.toLowerCase() : null;
      const people = list<{ email: string }>(d, 'people').map((p) => p.email.toLowerCase());
      if (f === null) problems.push({ path: 'email', message: `"${from}" is not an email address` });
      else if (!people.includes(f)) problems.push({ path: 'email', message: `no person ${f} on this board${known('people', people)}` });
      if (t === null) problems.push({ path: 'newEmail', message: `"${to}" is not an email address` });
      else if (people.includes(t) && t !== f) problems.push({ path: 'newEmail', message: `${t} is already a person on this board` });
      if (problems.length > 0 || f === null || t === null) throw new BoardError('invalid', `cannot rename ${from}: ${problems.map((p) => p.message).join('; ')}`, problems);
      if (f === t) return null;
      swapPerson(d, f, { email: t });
      return `person ${f} is now ${t}`;
    },
    also,
  );

/** Remove an agent from the board. */
export const removeAgent = (board: Board, by: Author | string, id: string, also?: Also) =>
  editManifest(
    board,
    by,
    'agent.removed',
    (d) => {
      const agents = list<{ id: string }>(d, 'agents');
      if (!agents.some((a) => a.id === id))
        throw new BoardError(
          'invalid',
          `no agent ${id} on this board${known(
            'agents',
            agents.map((a) => a.id),
          )}`,
          [{ path: 'id', message: `${id} is not in WORK.md's agents` }],
        );
      d.agents = agents.filter((a) => a.id !== id);
      return `agent ${id} removed`;
    },
    also,
  );

function mustBeGroup(groups: Record<string, string[]>, group: string): string[] {
  const members = Object.hasOwn(groups, group) ? groups[group] : undefined;
  if (!members) throw new BoardError('invalid', `no group ${group} on this board${known('groups', Object.keys(groups))}`, [{ path: 'group', message: `${group} is not in WORK.md's groups` }]);
  return members;
}

/** Remove a whole group (its people stay on the board). */
export const removeGroup = (board: Board, by: Author | string, group: string) =>
  editManifest(board, by, 'group.removed', (d) => {
    const groups = groupsOf(d);
    mustBeGroup(groups, group);
    delete groups[group];
    return `group ${group} removed`;
  });

/** Take people out of a group (they stay on the board); every one must be in it. */
export const removeFromGroup = (board: Board, by: Author | string, group: string, members: string[]) =>
  editManifest(board, by, 'group.changed', (d) => {
    const groups = groupsOf(d);
    const current = mustBeGroup(groups, group);
    const bad = members.filter((m) => !isPerson(m) || !current.includes(m.toLowerCase()));
    if (bad.length > 0)
      throw new BoardError(
        'invalid',
        `not members of group ${group}: ${bad.join(', ')}${known('members', current)}`,
        bad.map((m) => ({ path: 'members', message: `${m} is not in group ${group}` })),
      );
    const out = new Set(members.map((m) => m.toLowerCase()));
    groups[group] = current.filter((m) => !out.has(m));
    return `group ${group} - ${[...out].join(', ')}`;
  });

/**
 * Changing who works on a board: people, groups, operators and agents in
 * WORK.md, each change one audited board transaction.
 */
import type { Board } from './board.js';
import { BoardError } from './errors.js';
import { WORK_FILE } from './layout.js';
import { isPerson } from '../process/values.js';

type Edit = (data: Record<string, unknown>) => string | null;

const AGENT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const GROUP = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Apply one edit to WORK.md under the board lock; the edit returns what changed, or null when nothing did. */
export async function editManifest(board: Board, actor: string, action: string, edit: Edit): Promise<string | null> {
  const { value } = await board.store.transact({ kind: 'board' }, async (tx) => {
    const doc = await tx.read(WORK_FILE);
    if (!doc) throw new BoardError('invalid', `${WORK_FILE} is missing`);
    const data = structuredClone(doc.data);
    const change = edit(data);
    if (change === null) return null;
    tx.write(WORK_FILE, data, doc.body);
    tx.audit({ actor, action, entity: WORK_FILE, changes: { change } });
    return change;
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

export const addPerson = (board: Board, actor: string, who: string, name?: string) =>
  editManifest(board, actor, 'person.added', (d) => {
    const people = list<{ email: string; name?: string }>(d, 'people');
    const e = email(who);
    if (people.some((p) => p.email.toLowerCase() === e)) return null;
    people.push(name ? { email: e, name } : { email: e });
    return `person ${e}`;
  });

export const addOperator = (board: Board, actor: string, who: string) =>
  editManifest(board, actor, 'operator.added', (d) => {
    const ops = list<string>(d, 'operators');
    const e = email(who);
    if (ops.some((o) => o.toLowerCase() === e)) return null;
    ops.push(e);
    return `operator ${e}`;
  });

export const addAgent = (board: Board, actor: string, id: string, description?: string) =>
  editManifest(board, actor, 'agent.added', (d) => {
    if (!AGENT_ID.test(id)) throw new BoardError('invalid', `agent id "${id}" must be lowercase letters, digits, _ or -`, [{ path: 'id', message: 'expected ^[a-z0-9][a-z0-9_-]{0,63}$' }]);
    const agents = list<{ id: string; description?: string }>(d, 'agents');
    if (agents.some((a) => a.id === id)) return null;
    agents.push(description ? { id, description } : { id });
    return `agent ${id}`;
  });

/** Add members to a group (creating it); members must already be people on the board. */
export const addToGroup = (board: Board, actor: string, group: string, members: string[]) =>
  editManifest(board, actor, 'group.changed', (d) => {
    if (!GROUP.test(group)) throw new BoardError('invalid', `group "${group}" must be lowercase letters, digits, _ or -`, [{ path: 'group', message: 'expected ^[a-z0-9][a-z0-9_-]{0,63}$' }]);
    const people = list<{ email: string }>(d, 'people').map((p) => p.email.toLowerCase());
    const unknown = members.map(email).filter((m) => !people.includes(m));
    if (unknown.length > 0) {
      throw new BoardError('invalid', `not people on this board: ${unknown.join(', ')}`, unknown.map((m) => ({ path: 'members', message: `${m}: add with workboard person add ${m}` })));
    }
    if (typeof d.groups !== 'object' || d.groups === null) d.groups = {};
    const groups = d.groups as Record<string, string[]>;
    const current = groups[group] ?? [];
    const added = members.map(email).filter((m) => !current.includes(m));
    if (added.length === 0 && Object.hasOwn(groups, group)) return null;
    groups[group] = [...current, ...added];
    return `group ${group} + ${added.join(', ') || '(created)'}`;
  });

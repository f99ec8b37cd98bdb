/**
 * Removing and renaming identities. Each is one audited WORK.md commit
 * (board/people.ts) that, in the same commit, ends the identity's bearer
 * tokens (or moves them to a renamed person); a removed agent's claims then
 * end, each in its run's transaction (the step is ready again with a
 * handoff). Removal is never refused for
 * work still naming the identity; that work is reported as warnings instead:
 * published versions whose role map names a group concerned, and open runs
 * with a work item assigned to them, a claim they hold, an input naming
 * them, or started by them.
 */
import type { Author } from '../board/author.js';
import type { Board } from '../board/board.js';
import type { Manifest } from '../board/manifest.js';
import { removeAgent, removeFromGroup, removeGroup, removePerson, renamePerson, type Also } from '../board/people.js';
import { listProcessNames, listVersions } from '../board/processes.js';
import { paths } from '../board/layout.js';
import { retargetTokens } from './credentials.js';
import { leasePath, parseLease } from './runfiles.js';
import type { Service } from './service.js';

export interface Removal {
  /** What changed in WORK.md. */
  change: string | null;
  /** Ids of the bearer tokens ended (or, for a rename, moved). */
  tokens: string[];
  /** Where the board still names what was removed: never silent. */
  warnings: string[];
  /** A removed agent's claims, ended (`run/step`): each step is ready again with a handoff. */
  claimsEnded?: string[];
}

export type Named = { person: string } | { agent: string } | { group: string };

const MAX_WARNINGS = 50;

function capped(lines: string[]): string[] {
  return lines.length <= MAX_WARNINGS ? lines : [...lines.slice(0, MAX_WARNINGS), `… and ${lines.length - MAX_WARNINGS} more`];
}

/** Published versions whose role map sends a role to one of `groups`. */
async function roleMapsNaming(board: Board, groups: ReadonlySet<string>, why: (group: string) => string): Promise<string[]> {
  const out: string[] = [];
  if (groups.size === 0) return out;
  for (const name of await listProcessNames(board)) {
    for (const v of await listVersions(board, name)) {
      const roles = ((await board.store.read(`${paths.versionDir(name, v)}/VERSION.md`))?.data.roles ?? {}) as Record<string, string>;
      for (const [role, group] of Object.entries(roles)) if (groups.has(group)) out.push(`${name} v${v}: role ${role} goes to group ${group}${why(group)}`);
    }
  }
  return out;
}

/** Open runs that still name `who`: work items assigned to them, claims they hold, runs they started. */
async function openRunsNaming(service: Service, who: Named): Promise<string[]> {
  const out: string[] = [];
  for (const id of await service.openRunIds()) {
    const r = await service.call('get_run', { runId: id }, { kind: 'agent', id: 'server' });
    if (!r.ok) continue; // a refused run is doctor's business
    const view = r.data;
    if ('person' in who && view.run.startedBy.toLowerCase() === who.person) out.push(`${id}: started by them (steps for the initiator go to them)`);
    if ('agent' in who && view.run.startedBy === who.agent) out.push(`${id}: started by it`);
    if ('person' in who) {
      for (const [k, v] of Object.entries(view.data.inputs)) if (typeof v === 'string' && v.toLowerCase() === who.person) out.push(`${id}: its input ${k} names them`);
    }
    for (const w of view.workItems) {
      const to = w.assignedTo;
      if ('person' in who && to.person?.toLowerCase() === who.person) out.push(`${id}/${w.stepId}: work item ${w.id} is assigned to them personally`);
      if ('group' in who && to.group === who.group) out.push(`${id}/${w.stepId}: work item ${w.id} is assigned to the group`);
    }
  }
  return out;
}

/** The open runs in which `agent` holds a live claim. */
async function runsClaimedBy(service: Service, agent: string): Promise<string[]> {
  const out: string[] = [];
  for (const id of await service.openRunIds()) {
    const r = await service.call('get_run', { runId: id }, { kind: 'agent', id: 'server' });
    if (!r.ok) continue;
    for (const s of r.data.steps.filter((x) => x.state === 'claimed')) {
      const lease = parseLease((await service.board.store.readBytes(leasePath(id, s.id)))?.toString('utf8') ?? '');
      if (lease?.agent === agent && !out.includes(id)) out.push(id);
    }
  }
  return out;
}

/** Every place the board still names `who`, as read with WORK.md as it was before the change. */
export async function stillNamed(service: Service, before: Manifest, who: Named): Promise<string[]> {
  const board = service.board;
  let maps: string[] = [];
  if ('group' in who) maps = await roleMapsNaming(board, new Set([who.group]), () => '');
  if ('person' in who) {
    const theirs = Object.entries(before.groups).filter(([, m]) => m.some((e) => e.toLowerCase() === who.person));
    const emptied = new Set(theirs.filter(([, m]) => m.length === 1).map(([g]) => g));
    maps = await roleMapsNaming(board, new Set(theirs.map(([g]) => g)), (g) => (emptied.has(g) ? ', which now has no one' : ', which they were in'));
  }
  return capped([...maps, ...(await openRunsNaming(service, who))]);
}

async function withTokens(service: Service, who: Named, edit: (also: Also | undefined) => Promise<string | null>, moveTo: string | null = null): Promise<Removal> {
  const before = service.board.manifest;
  let tokens: string[] = [];
  const identity = 'person' in who ? who.person : 'agent' in who ? who.agent : null;
  const change = await edit(
    identity === null
      ? undefined
      : async (reads) => {
          const retargeted = await retargetTokens(reads, identity, moveTo);
          tokens = retargeted.ids;
          return { state: [retargeted.record], changes: tokens.length > 0 ? { [moveTo === null ? 'tokensEnded' : 'tokensMoved']: tokens } : {} };
        },
  );
  return { change, tokens, warnings: await stillNamed(service, before, who) };
}

export function offboardPerson(service: Service, by: Author, email: string): Promise<Removal> {
  return withTokens(service, { person: email.toLowerCase() }, (also) => removePerson(service.board, by, email, also));
}

/** A person's new email: their tokens move with them; work that recorded the old address is listed. */
export function renamePersonEverywhere(service: Service, by: Author, from: string, to: string): Promise<Removal> {
  return withTokens(service, { person: from.toLowerCase() }, (also) => renamePerson(service.board, by, from, to, also), to.toLowerCase());
}

/** An agent off the board: its tokens end with the WORK.md edit, then each claim it holds ends in its run's own transaction. */
export async function offboardAgent(service: Service, by: Author, id: string): Promise<Removal> {
  const removal = await withTokens(service, { agent: id }, (also) => removeAgent(service.board, by, id, also));
  const claimsEnded: string[] = [];
  for (const runId of await runsClaimedBy(service, id)) claimsEnded.push(...(await service.endClaims(runId, id, by.actor)).map((step) => `${runId}/${step}`));
  return { ...removal, claimsEnded };
}

export function dropGroup(service: Service, by: Author, group: string): Promise<Removal> {
  return withTokens(service, { group }, () => removeGroup(service.board, by, group));
}

/** Members out of a group; a group left with no one is reported like a removed one. */
export async function dropGroupMembers(service: Service, by: Author, group: string, members: string[]): Promise<Removal> {
  const change = await removeFromGroup(service.board, by, group, members);
  const left = (service.board.manifest.groups[group] ?? []).length;
  const warnings = left > 0 ? [] : (await stillNamed(service, service.board.manifest, { group })).map((w) => `${w} (the group now has no one)`);
  return { change, tokens: [], warnings };
}

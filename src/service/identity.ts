/** Who may act on a board: agents and people declared in WORK.md. Rights are checked in the engine, once, for every transport. */
import type { Manifest } from '../board/manifest.js';
import type { Actor } from '../engine/types.js';

export type Resolved = { ok: true; actor: Actor } | { ok: false; message: string };

/**
 * The caller as WORK.md says now, so a long-lived connection (a stdio MCP
 * process) loses its rights the moment its identity is removed, and a
 * changed scope or operator role applies from the next call.
 */
export function currentActor(manifest: Manifest, actor: Actor): Resolved {
  const r = resolveActor(manifest, actor.kind === 'agent' ? actor.id : actor.email);
  if (!r.ok || r.actor.kind !== actor.kind) return { ok: false, message: `${actor.kind === 'agent' ? `agent ${actor.id}` : actor.email} is no longer declared on this board (WORK.md)` };
  return r;
}

export function resolveActor(manifest: Manifest, name: string): Resolved {
  const agent = manifest.agents.find((a) => a.id === name);
  if (agent) return { ok: true, actor: { kind: 'agent', id: agent.id, ...(agent.processes ? { processes: agent.processes } : {}) } };
  const email = name.toLowerCase();
  const person = manifest.people.find((p) => p.email.toLowerCase() === email);
  const operator = manifest.operators.some((o) => o.toLowerCase() === email);
  const former = person?.formerEmails?.length ? { formerEmails: person.formerEmails } : {};
  if (person || operator) return { ok: true, actor: { kind: 'person', email: person?.email ?? name, operator, ...former } };
  const known = [...manifest.agents.map((a) => a.id), ...manifest.people.map((p) => p.email)];
  return {
    ok: false,
    message: `unknown identity "${name}": WORK.md declares no such agent or person${known.length ? ` (known: ${known.slice(0, 8).join(', ')}${known.length > 8 ? ', …' : ''})` : ''}`,
  };
}

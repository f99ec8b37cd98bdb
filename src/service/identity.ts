/** Who may act on a board: agents and people declared in WORK.md. Rights are checked in the engine, once, for every transport. */
import type { Manifest } from '../board/manifest.js';
import type { Actor } from '../engine/types.js';

export type Resolved = { ok: true; actor: Actor } | { ok: false; message: string };

export function resolveActor(manifest: Manifest, name: string): Resolved {
  const agent = manifest.agents.find((a) => a.id === name);
  if (agent) return { ok: true, actor: { kind: 'agent', id: agent.id } };
  const email = name.toLowerCase();
  const person = manifest.people.find((p) => p.email.toLowerCase() === email);
  const operator = manifest.operators.some((o) => o.toLowerCase() === email);
  if (person || operator) return { ok: true, actor: { kind: 'person', email: person?.email ?? name, operator } };
  const known = [...manifest.agents.map((a) => a.id), ...manifest.people.map((p) => p.email)];
  return {
    ok: false,
    message: `unknown identity "${name}": WORK.md declares no such agent or person${known.length ? ` (known: ${known.slice(0, 8).join(', ')}${known.length > 8 ? ', …' : ''})` : ''}`,
  };
}

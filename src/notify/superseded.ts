/**
 * Telling people that a merge of two clones superseded their work on a run
 * (pure): who did what on the side that was not kept, and that the run goes
 * on from the other side. Sent to the people among them and to the
 * operators; the webhook and the command carry it for the agents.
 */
import type { AuditEvent } from '../board/audit.js';
import type { Manifest } from '../board/manifest.js';
import type { Notification } from './rules.js';

/** What each superseded line did, in a few words: `helper2 submitted draft`. */
function deed(e: AuditEvent): string {
  const step = e.entity.split('/')[1];
  const verb = e.action.replace(/^(step|run|lease|claim)\./, '').replace(/-/g, ' ');
  return `${e.actor} ${verb}${step ? ` ${step}` : ''} (${e.ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z')})`;
}

export function supersededNotification(input: {
  id: string;
  at: string;
  board: string;
  runId: string;
  process: string;
  mode: 'live' | 'test';
  lines: readonly AuditEvent[];
  kept: readonly AuditEvent[];
  manifest: Manifest;
}): Notification | null {
  const byActor = (l: readonly AuditEvent[]) => l.filter((e) => e.actor !== 'server' && e.actor !== 'coordinator' && e.actor !== 'external');
  const acts = byActor(input.lines);
  const kept = byActor(input.kept);
  if (acts.length === 0) return null;
  const people = new Set(input.manifest.people.map((p) => p.email));
  const recipients = [...new Set([...[...acts, ...kept].map((e) => e.actor).filter((a) => people.has(a)), ...input.manifest.operators])];
  return {
    id: input.id,
    kind: 'superseded',
    at: input.at,
    mode: input.mode,
    board: input.board,
    runId: input.runId,
    process: input.process,
    recipients,
    subject: `Work on ${input.process} ${input.runId} was superseded when two clones of the board merged`,
    text: [
      "This run moved on two clones of the board before they synced. The merge kept the other clone's history whole, so this work no longer counts:",
      ...acts.map((e) => `- ${deed(e)}`),
      ...(kept.length > 0 ? ['Kept instead:', ...kept.map((e) => `- ${deed(e)}`)] : []),
      "It is kept, signed, in the run's record (superseded on merge). Look at the run as it stands now before doing the work again; an operator can take this side instead with workboard resolve.",
    ].join('\n'),
    path: `/runs/${input.runId}`,
  };
}

/**
 * The message of a batched board commit (`serve --git-commit`), in words a
 * reviewer reads: a subject saying what happened (the one act, or how many
 * transitions in which runs of which processes), one line per transition
 * grouped by run, and who acted, as `Acted-by:` trailers, or as the commit's
 * author when one person did everything. Pure: audit lines and words in.
 */
import type { AuditEvent } from '../board/audit.js';
import { inList } from '../words/index.js';
import { byBoardItself, clip, isPerson, lineText, nameOf, oneLine, runOf, say, type Words } from './audit-words.js';

export interface CommitMessage {
  message: string;
  /** `Name <email>` for `git commit --author`, when one person did everything; else null. */
  author: string | null;
}

/** WORK.md's rule for agent ids: what tells an agent from `user:<login>`. */
const AGENT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** A run's scalar inputs that fit on a line, people by name: what tells one run from another. */
function keyInputs(inputs: Record<string, unknown>, words: Words): string[] {
  return Object.entries(inputs)
    .flatMap(([k, v]) => {
      const s = typeof v === 'string' ? nameOf(v, words) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
      return s !== null && s.length <= 40 ? [`${k} ${clip(s)}`] : [];
    })
    .slice(0, 3);
}

/** `expense-approval r-… (claimant Jon Berg, amount 184.5)`. */
export function runLabel(runId: string, words: Words): string {
  const facts = words.runs.get(runId);
  if (!facts) return `run ${runId}`;
  const inputs = keyInputs(facts.inputs, words);
  return `${facts.process} ${runId}${inputs.length > 0 ? ` (${inputs.join(', ')})` : ''}`;
}

/** Who acted, as a trailer value: a person by name and email, an agent as such, anyone else (`user:<login>`) by id. */
function actor(identity: string, words: Words): string {
  if (isPerson(identity)) {
    const name = words.names.get(identity.toLowerCase());
    return name ? `${name} <${identity}>` : identity;
  }
  return AGENT_ID.test(identity) ? `agent ${identity}` : identity;
}

function subject(events: readonly AuditEvent[], words: Words, changed: readonly string[]): string {
  if (events.length === 0) {
    const shown = changed.slice(0, 3);
    return `Board files changed: ${inList(changed.length > 3 ? [...shown, `${changed.length - 3} more`] : shown)}`;
  }
  const acts = events.filter((e) => !byBoardItself(e.actor));
  const lead = acts.length === 1 ? acts[0]! : events.length === 1 ? events[0]! : null;
  if (lead) {
    const run = runOf(lead.entity);
    return `${say(lead, words).what}${run ? ` in ${runLabel(run, words)}` : ''}`;
  }
  const inRuns = events.filter((e) => runOf(e.entity) !== null);
  const runs = [...new Set(inRuns.map((e) => runOf(e.entity)!))];
  const processes = [...new Set(runs.flatMap((r) => words.runs.get(r)?.process ?? []))];
  const parts = [];
  if (runs.length === 1) parts.push(`${plural(inRuns.length, 'transition')} in ${runLabel(runs[0]!, words)}`);
  else if (runs.length > 1) {
    const of = processes.length === 0 ? '' : processes.length <= 3 ? ` of ${inList(processes)}` : ` of ${processes.length} processes`;
    parts.push(`${plural(inRuns.length, 'transition')} in ${runs.length} runs${of}`);
  }
  const onBoard = events.length - inRuns.length;
  if (onBoard > 0) parts.push(plural(onBoard, 'board change'));
  return parts.join('; ');
}

/** Each transition on a line of its own, under the run (or the board) it happened in. */
function body(events: readonly AuditEvent[], words: Words): string {
  const groups = new Map<string | null, AuditEvent[]>();
  for (const e of events) {
    const run = runOf(e.entity);
    groups.set(run, [...(groups.get(run) ?? []), e]);
  }
  return [...groups].map(([run, evs]) => [`${run ? runLabel(run, words) : 'the board'}:`, ...evs.map((e) => `- ${lineText(e, words)}`)].join('\n')).join('\n\n');
}

/** The message for a commit carrying these new audit lines (and these changed board files). */
export function commitMessage(events: readonly AuditEvent[], words: Words, changed: readonly string[]): CommitMessage {
  const identities = [...new Set(events.filter((e) => !byBoardItself(e.actor)).map((e) => e.actor))];
  const one = identities.length === 1 && isPerson(identities[0]!) ? identities[0]! : null;
  const author = one ? oneLine(`${words.names.get(one.toLowerCase()) ?? one} <${one}>`) : null;
  // A hand-edited chain could hold a line break in a name: it must never make a line of its own.
  const trailers = one ? [] : identities.map((i) => `Acted-by: ${oneLine(actor(i, words))}`);
  const parts = [oneLine(subject(events, words, changed)), ...(events.length > 0 ? [body(events, words)] : []), ...(trailers.length > 0 ? [trailers.join('\n')] : [])];
  return { message: `${parts.join('\n\n')}\n`, author };
}

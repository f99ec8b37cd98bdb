/**
 * The replay of a merge (docs/git.md "The replay", docs/architecture.md
 * "The replay"): once the run-level merge has chosen the side it keeps, the
 * other side's acts since the fork (a cancel, a person's decision, an event,
 * an agent's submission) are applied again through the engine, in order, on
 * top of the kept side. Each act the engine accepts is written to the kept
 * chain as new lines that name the signed original (`input.replayOf`); each it
 * refuses is left set aside, with the engine's reason. Server lines (timers,
 * overdue marks, a step becoming ready) are never replayed: the engine derives
 * them again on the kept side wherever they still apply.
 *
 * Every clone computes the same bytes: the lines are unsigned (the original's
 * signature, kept verbatim in superseded.jsonl, vouches for them), their time
 * is the original act's, and ids are made from the original line's hash.
 * Pure: file texts in, file texts out.
 */
import { canonicalJson, sha256Hex } from '../core/hash.js';
import { sealEvent, type AuditDraft, type AuditEvent, type ChainHead } from '../board/audit.js';
import { planCommit, type StagedFile } from '../board/commit-plan.js';
import { decodeDoc, type BoardDoc } from '../board/document.js';
import { paths } from '../board/layout.js';
import type { BranchOutcome } from '../board/superseded.js';
import type { Submission } from '../engine/acceptance.js';
import type { Decision } from '../engine/decide.js';
import { execute, type Command } from '../engine/execute.js';
import { SERVER, type Actor, type Context, type Limits, type Pinned, type RunState } from '../engine/types.js';
import { snapshotOf } from '../engine/view.js';
import { sameItemKept } from './replay-same-item.js';
import type { Completion } from '../protocol/completions.js';
import { runDoc, runFromDoc, stepDoc, stepFromDoc } from '../service/runfiles.js';

/** A run folder's files by name (`RUN.md`, `<step>.md`, `audit.jsonl`). */
type Folder = Readonly<Record<string, string>>;

/** What the replay needs besides the two sides: the version the run is pinned to, and the board's limits and people. */
export interface ReplayWorld {
  pinned: Pinned;
  limits: Limits;
  people?: ReadonlySet<string>;
}

/** What became of one line of the side set aside (board/superseded.ts): applied again, already done on the kept side, or neither, and why. */
export type LineOutcome = BranchOutcome;

export interface ReplayResult {
  /** The kept side's files with every accepted act applied (its chain included). */
  files: Record<string, string>;
  /** For each source, one entry per line tried, in its order. */
  outcomes: LineOutcome[][];
}

const CHAIN = 'audit.jsonl';

/** The lines of a replayed act name the original this way, so no later merge applies it twice. */
export function replayOf(e: AuditEvent): string | null {
  const v = e.input.replayOf;
  return typeof v === 'string' ? v : null;
}

const isPerson = (actor: string): boolean => actor.includes('@');
const stepOf = (entity: string): string => entity.slice(entity.indexOf('/') + 1);

/** An act of the side set aside as an engine command, or why it is not one the merge replays. */
type Act = { actor: Actor; command: Command; grant?: { lease: string } } | { reason: string };

/** The completion a line recorded, as the side set aside's step file holds it (current or in history). */
function completionOf(files: Folder, step: string, by: string, at: string): Completion | null {
  const text = files[`${step}.md`];
  const doc = text === undefined ? null : decodeDoc(`runs/x/${step}.md`, Buffer.from(text));
  if (!doc?.ok) return null;
  const st = stepFromDoc(doc.doc);
  const all = [...st.history, ...(st.current ? [st.current] : [])].filter((c) => c.by === by);
  return all.find((c) => c.at === at) ?? all[all.length - 1] ?? null;
}

/** The work item a decision on `step` decided: the last one opened for that step before the decision's line. */
function workItemBefore(lines: readonly AuditEvent[], entity: string): string | null {
  for (const l of [...lines].reverse()) {
    const w = l.input.changes?.workItem;
    if (l.entity === entity && typeof w === 'string') return w;
  }
  return null;
}

const person = (email: string): Actor => ({ kind: 'person', email, operator: true });

/**
 * Read a line of the side set aside as the command that made it. The person's
 * rights were checked when the act was made (its signed line is the proof), so
 * the replay grants them again; what the engine still checks is whether the
 * act applies to the run as it now is.
 */
function actOf(line: AuditEvent, before: readonly AuditEvent[], loser: Folder, state: RunState, pinned: Pinned): Act {
  const a = line.actor;
  const step = stepOf(line.entity);
  const anyFile = () => ({ ok: true as const, sha256: '' });
  const rules = { groups: Object.fromEntries(Object.values(pinned.roles).map((g) => [g, [a]])), fourEyes: false };
  const decision = (d: Pick<Decision, 'decision' | 'note'> & Submission): Act => {
    const decided = workItemBefore(before, line.entity);
    if (decided === null) return { reason: 'the work item it decided is not on the record' };
    const workItemId = sameItemKept(decided, step, line.ts, loser, state) ?? decided;
    return { actor: person(a), command: { tool: 'decide', decision: { workItemId, snapshot: snapshotOf(state, pinned), ...d }, rules, checkFile: anyFile } };
  };
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  const note = text(line.input.changes?.note);
  switch (line.action) {
    case 'run.cancelled':
      return isPerson(a) ? { actor: person(a), command: { tool: 'cancel', reason: note } } : { reason: 'not an act of a person' };
    case 'step.rejected':
    case 'step.returned':
    case 'step.failed':
      if (!isPerson(a)) return { reason: 'a server line: the engine derives it again where it still applies' };
      return decision({ decision: line.action === 'step.rejected' ? 'rejected' : line.action === 'step.returned' ? 'returned' : 'failed', note });
    case 'event.held':
    case 'event.received': {
      const name = text(line.input.changes?.name);
      const data = line.action === 'event.received' ? completionOf(loser, step, a, line.ts)?.output : heldData(loser, name, a, line.ts);
      const actor: Actor = isPerson(a) ? person(a) : { kind: 'agent', id: a };
      return { actor, command: { tool: 'send_event', name, ...(data && Object.keys(data).length > 0 ? { data } : {}) } };
    }
    case 'step.completed': {
      const c = completionOf(loser, step, a, line.ts);
      if (!c) return { reason: 'its completion is not in the files of the side set aside' };
      if (isPerson(a)) {
        if (c.decision === 'approved') return decision({ decision: 'approved', ...(c.note !== undefined ? { note: c.note } : {}) });
        return decision({ decision: 'completed', ...submissionOf(c) });
      }
      const evidence = new Map((c.evidence ?? []).map((e) => [e.ref, e.sha256 ?? '']));
      const checkFile = (ref: string) => {
        const sha256 = evidence.get(ref);
        return sha256 !== undefined ? { ok: true as const, sha256 } : { ok: false as const, problem: 'not among the evidence the submission recorded' };
      };
      const submission: Submission = { ...submissionOf(c), ...(c.evidence ? { evidence: c.evidence.map((e) => ({ kind: e.kind, ref: e.ref })) } : {}) };
      return {
        actor: { kind: 'agent', id: a },
        command: { tool: 'submit', stepId: step, claimId: `replay-${line.hash}`, claimant: a, submission, checkFile },
        grant: { lease: `replay-${line.hash}` },
      };
    }
    case 'step.claimed':
    case 'step.renewed':
      return { reason: 'a claim holds only in the clone that made it' };
    default:
      return { reason: a === SERVER ? 'a server line: the engine derives it again where it still applies' : `the merge does not replay ${line.action}` };
  }
}

function submissionOf(c: Completion): Submission {
  const out: Submission = { output: c.output ?? {} };
  if (c.summary !== undefined) out.summary = c.summary;
  if (c.next !== undefined) out.next = c.next;
  if (c.reason !== undefined) out.reason = c.reason;
  return out;
}

function heldData(loser: Folder, name: string, by: string, at: string): Record<string, unknown> | undefined {
  const doc = loser['RUN.md'] === undefined ? null : decodeDoc('runs/x/RUN.md', Buffer.from(loser['RUN.md']));
  if (!doc?.ok) return undefined;
  return runFromDoc(doc.doc).events.find((e) => e.name === name && e.by === by && e.at === at)?.data;
}

/** Lines that follow an act in its own commit and that the act's replay stands for (the event's completion). */
const carried = (act: AuditEvent, next: AuditEvent): boolean => act.action === 'event.received' && next.action === 'step.completed' && next.actor === act.actor && next.entity === act.entity;

/** The run's state as the kept files say, with each file as read (for the commit's revs). */
function stateOf(runId: string, files: Folder): { state: RunState; docs: Map<string, BoardDoc> } | null {
  const docs = new Map<string, BoardDoc>();
  for (const [name, text] of Object.entries(files)) {
    if (!name.endsWith('.md')) continue;
    const rel = paths.runFileNamed(runId, name);
    const d = decodeDoc(rel, Buffer.from(text));
    if (!d.ok) return null;
    docs.set(rel, d.doc);
  }
  const run = docs.get(paths.runFile(runId));
  if (!run) return null;
  const steps = Object.fromEntries([...docs].filter(([rel]) => rel !== paths.runFile(runId)).map(([, d]) => [String(d.data.id), stepFromDoc(d)]));
  return { state: { run: runFromDoc(run), steps, leases: {} }, docs };
}

/** Ids the replay makes, the same on every clone: from the original line's hash, in the ULID alphabet. */
function idsFrom(seed: string): (prefix: string) => string {
  let n = 0;
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  return (prefix) => {
    const h = sha256Hex(`${seed}:${n++}`);
    return `${prefix}-${Array.from({ length: 26 }, (_, i) => alphabet[parseInt(h.slice(i * 2, i * 2 + 2), 16) % 32]).join('')}`;
  };
}

/**
 * Lines to apply again on top of the kept side: the side set aside after the
 * fork, or an earlier merge's branch whose refusals may no longer hold.
 */
export interface ReplaySource {
  /** The branch's lines, in order. */
  lines: readonly AuditEvent[];
  /** The lines of the chain it grew from, up to its fork: what its acts were made against (the work item a decision decided). */
  before: readonly AuditEvent[];
  /** Its run files as they were: a decision's output, an event's data. */
  files: Folder;
  /** Only these lines are tried, the rest passed over without an outcome; every line when absent. */
  only?: ReadonlySet<string>;
}

/**
 * Apply each source in turn, in order, on top of the kept side (`kept`, with
 * its chain's lines). The outcomes come one list per source.
 */
export function replay(runId: string, kept: Folder, keptEvents: readonly AuditEvent[], sources: readonly ReplaySource[], world: ReplayWorld): ReplayResult {
  const files: Record<string, string> = { ...kept };
  const events = [...keptEvents];
  // Acts the kept side already holds (itself, or applied again by an earlier merge) are not applied twice.
  const holds = new Map<string, string>();
  for (const e of events) for (const of of [e.hash, replayOf(e)]) if (of !== null) holds.set(of, e.hash);
  const all: LineOutcome[][] = [];
  for (const source of sources) {
    const outcomes: LineOutcome[] = [];
    all.push(outcomes);
    const branch = source.lines;
    // An event delivered to a wait completes it in the same commit: that completion goes with the event's replay.
    const skip = new Set<number>();
    for (const [i, line] of branch.entries()) {
      if (skip.has(i) || (source.only && !source.only.has(line.hash))) continue;
      const next = branch[i + 1];
      const withNext = next !== undefined && carried(line, next) ? next : null;
      if (withNext) skip.add(i + 1);
      const original = replayOf(line) ?? line.hash;
      const holding = holds.get(original);
      if (holding !== undefined) {
        outcomes.push({ line: line.hash, held: holding });
        continue;
      }
      const read = stateOf(runId, files);
      if (!read) {
        outcomes.push({ line: line.hash, reason: "the kept side's files do not read as a run" });
        continue;
      }
      const act = actOf(line, [...source.before, ...branch.slice(0, i)], source.files, read.state, world.pinned);
      if ('reason' in act) {
        outcomes.push({ line: line.hash, reason: act.reason });
        continue;
      }
      const state = read.state;
      if (act.grant) {
        const st = state.steps[stepOf(line.entity)];
        if (st?.state === 'ready') state.leases[st.id] = { stepId: st.id, claimId: act.grant.lease, agent: line.actor, claimedAt: line.ts, expiresAt: '9999-12-31T23:59:59.999Z' };
      }
      const ctx: Context = { now: new Date(line.ts), newId: idsFrom(original), limits: world.limits, ...(world.people ? { people: world.people } : {}) };
      const plan = execute(state, world.pinned, ctx, act.actor, act.command);
      if (plan.kind === 'commit' && plan.starts) {
        outcomes.push({ line: line.hash, reason: 'it would start other runs, which a merge does not do' });
        continue;
      }
      const alike = plan.kind === 'refuse' ? doneAlike(line, act.command, state, events, files, source.files) : null;
      if (alike !== null) {
        outcomes.push({ line: line.hash, held: alike });
        continue;
      }
      if (plan.kind !== 'commit') {
        const why =
          plan.kind === 'refuse' ? plan.error.message + (plan.error.issues?.length ? ` (${plan.error.issues.join('; ')})` : '') : 'its check would have to be asked again, which a merge cannot do';
        outcomes.push({ line: line.hash, reason: why });
        if (withNext) outcomes.push({ line: withNext.hash, reason: why });
        continue;
      }
      const sealed = commitLines(runId, plan.state, read.docs, plan.events, events[events.length - 1] ?? null, line.ts, original, files);
      if ('reason' in sealed || sealed.lines.length === 0) {
        outcomes.push({ line: line.hash, reason: 'reason' in sealed ? sealed.reason : 'it changes nothing on the kept side' });
        continue;
      }
      events.push(...sealed.lines);
      files[CHAIN] = (files[CHAIN] ?? '') + sealed.lines.map((l) => `${JSON.stringify(l)}\n`).join('');
      const by = (sealed.lines.find((l) => l.actor === line.actor) ?? sealed.lines[0])?.hash ?? '';
      holds.set(original, by);
      outcomes.push({ line: line.hash, replayed: by });
      if (withNext) outcomes.push({ line: withNext.hash, replayed: by });
    }
  }
  return { files, outcomes: all };
}

const DECISIONS = new Set(['step.completed', 'step.rejected', 'step.returned', 'step.failed']);

/**
 * The kept side's line that already did what a refused act meant to do
 * (docs/git.md "The replay"): a cancel of a run the kept side cancelled too,
 * or a person's decision on a work item the kept side decided alike (the
 * same decision, note and output, whoever made it). The act holds there, so
 * it is recorded as held, not superseded, and nobody is told it was lost.
 */
function doneAlike(line: AuditEvent, command: Command, state: RunState, kept: readonly AuditEvent[], keptFiles: Folder, loser: Folder): string | null {
  if (command.tool === 'cancel') return state.run.state === 'cancelled' ? ([...kept].reverse().find((e) => e.action === 'run.cancelled')?.hash ?? null) : null;
  if (command.tool !== 'decide' || !DECISIONS.has(line.action)) return null;
  const item = command.decision.workItemId;
  const opened = kept.findIndex((e) => e.entity === line.entity && e.input.changes?.workItem === item);
  const decided = opened < 0 ? undefined : kept.slice(opened + 1).find((e) => e.entity === line.entity && isPerson(e.actor) && DECISIONS.has(e.action));
  if (decided?.action !== line.action) return null;
  const what = (l: AuditEvent, files: Folder): string | null => {
    if (l.action !== 'step.completed') return canonicalJson({ note: l.input.changes?.note ?? null });
    const c = completionOf(files, stepOf(l.entity), l.actor, l.ts);
    return c === null ? null : canonicalJson({ decision: c.decision ?? null, note: c.note ?? null, output: c.output ?? {} });
  };
  const mine = what(line, loser);
  return mine !== null && mine === what(decided, keptFiles) ? decided.hash : null;
}

/** One replayed act as the store would commit it: files at rev + 1, the last line recording them; unsigned, naming the original. */
function commitLines(
  runId: string,
  state: RunState,
  readAs: Map<string, BoardDoc>,
  engineEvents: readonly { action: string; actor: string; entity: string; changes?: Record<string, unknown> }[],
  head: AuditEvent | null,
  now: string,
  original: string,
  files: Record<string, string>,
): { lines: AuditEvent[] } | { reason: string } {
  const staged = new Map<string, StagedFile>();
  staged.set(paths.runFile(runId), { kind: 'doc', ...runDoc(state.run) });
  for (const [id, st] of Object.entries(state.steps)) staged.set(paths.stepFile(runId, id), { kind: 'doc', ...stepDoc(st) });
  const drafts: AuditDraft[] = engineEvents.map((ev) => ({
    actor: ev.actor,
    action: ev.action,
    entity: ev.entity.startsWith('run:') ? ev.entity : `${runId}/${ev.entity}`,
    input: { fromRev: 0, toRev: 0, ...(ev.changes ? { changes: ev.changes } : {}), replayOf: original },
  }));
  const scope = { name: `run-${runId}`, lock: `run-${runId}`, head: paths.runFile(runId) };
  const chainHead: ChainHead | null = head ? { seq: head.seq, hash: head.hash, ts: head.ts } : null;
  const planned = planCommit({ scope, staged, readAs, adopted: [], drafts, brokenLocks: [], stateNow: new Map(), headNow: null, chainHead });
  if (!planned.ok) return { reason: planned.refusal.message };
  if (!planned.plan) return { lines: [] };
  for (const w of planned.plan.writes) files[w.rel.slice(w.rel.lastIndexOf('/') + 1)] = w.bytes.toString();
  const lines: AuditEvent[] = [];
  let h = chainHead;
  for (const d of planned.plan.events) {
    const s = sealEvent(d, h, now);
    lines.push(s);
    h = { seq: s.seq, hash: s.hash, ts: s.ts };
  }
  return { lines };
}

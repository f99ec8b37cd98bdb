/**
 * The run-level merge: when two histories of a board meet, each run is
 * resolved as one thing (its RUN.md, its step files and its audit chain
 * together), never file by file, so the result is always a state one side
 * really had.
 *
 * - changed on one side only: that side, whole;
 * - changed on both: the side the rule below ranks higher, whole; then the
 *   other side's acts after the fork are replayed on top of it through the
 *   engine (git/replay.ts) when the board's version of the process is at hand,
 *   and so are the acts an earlier merge refused on that side;
 *   the other side's lines are kept verbatim in `superseded.jsonl`
 *   (board/superseded.ts), signed and verifiable, with its files and what the
 *   replay made of each line (applied again, or refused and why).
 *
 * The rule, which every clone computes alike whichever way round it merges
 * ("the higher rev wins", made total; docs/git.md "The merge rule"):
 *   1. a side whose audit chain verifies beats one whose chain is broken;
 *   2. a side that holds an act of a person or an agent after the fork (a
 *      decision, a cancel, an event, a submission) beats one that holds only
 *      server lines there (timers, overdue marks): the machine never undoes
 *      a person's act (docs/git.md "Timers once per board");
 *   2b. when the merge replays and both sides hold acts: the side that did not
 *      end the run (cancelled or ended), so the end is replayed on top of the
 *      other side's acts rather than refusing them all;
 *   3. the higher RUN.md `rev` (every transition of a run bumps it);
 *   4. the longer audit chain (lease renewals add lines, not revs);
 *   5. the greater hash of the chain's last line (an arbitrary but shared coin);
 *   6. the greater hash of the run's files (only when the chains are equal).
 *
 * Pure: file texts in, file texts out.
 */
import { canonicalJson, sha256Hex } from '../core/hash.js';
import { verifyChain, type AuditEvent } from '../board/audit.js';
import { SERVER } from '../engine/types.js';
import { RUN_CHAIN_FILE, RUN_FILE_NAME } from '../board/layout.js';
import { pinnedBy, readRunHead } from '../board/run-head.js';
import { actHolds, branchKey, canonicalBranches, parseSuperseded, SUPERSEDED_FILE, supersededText, type BranchOutcome, type SupersededBranch } from '../board/superseded.js';
import { replay, type ReplaySource, type ReplayWorld } from './replay.js';

/** What the replay needs of the board for a run (its pinned version, limits, people), or null when the run cannot be replayed. */
export type WorldFor = (run: { id: string; process: string; version: number }) => ReplayWorld | null;

/** A run folder's files by name (`RUN.md`, `<step>.md`, `audit.jsonl`, `superseded.jsonl`). */
export type RunFiles = Readonly<Record<string, string>>;

export const CHAIN_FILE = RUN_CHAIN_FILE;

export interface RunMerge {
  /** The merged folder; null only when the run is on neither side. */
  files: RunFiles | null;
  /** Which side the run was taken from: `same` when both sides agree or only one changed it to what the other has. */
  taken: 'same' | 'ours' | 'theirs';
  /** The branch this merge set aside, if it set one aside. */
  superseded: { side: 'ours' | 'theirs'; branch: SupersededBranch } | null;
}

function sameFiles(a: RunFiles | null, b: RunFiles | null): boolean {
  if (a === null || b === null) return a === b;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

interface Side {
  files: RunFiles;
  events: AuditEvent[];
  valid: boolean;
  rev: number;
  run: { id: string; process: string; version: number } | null;
}

function side(files: RunFiles): Side {
  const report = verifyChain(files[CHAIN_FILE] ?? '');
  const text = files[RUN_FILE_NAME];
  const head = text === undefined ? null : readRunHead(text);
  const pin = pinnedBy(head);
  const run = head !== null && head.id !== null && pin !== null ? { id: head.id, ...pin } : null;
  return { files, events: report.events, valid: report.breaks.length === 0 && report.events.length > 0, rev: head?.rev ?? -1, run };
}

const branchesOf = (s: Side): SupersededBranch[] => parseSuperseded(s.files[SUPERSEDED_FILE] ?? '').branches;

const digest = (files: RunFiles): string => sha256Hex(canonicalJson(files));

/** How many lines two chains share from the start. */
function sharedPrefix(a: readonly AuditEvent[], b: readonly AuditEvent[]): number {
  let k = 0;
  while (k < a.length && k < b.length && a[k]!.hash === b[k]!.hash) k++;
  return k;
}

/** Does a chain hold, after its first `from` lines, a line someone other than the server wrote? */
export function actsAfter(events: readonly AuditEvent[], from: number): boolean {
  return events.slice(from).some((e) => e.actor !== SERVER);
}

/** Did a chain's run end (cancelled, or ended by a decision) after its first `from` lines? */
function endedAfter(events: readonly AuditEvent[], from: number): boolean {
  return events.slice(from).some((e) => e.action === 'run.cancelled' || e.action === 'run.ended');
}

/** Negative when `a` ranks below `b`; never zero for two different folders. */
function rank(a: Side, b: Side, replaying: boolean): number {
  const last = (s: Side) => s.events[s.events.length - 1]?.hash ?? '';
  const fork = sharedPrefix(a.events, b.events);
  const acts = [actsAfter(a.events, fork), actsAfter(b.events, fork)] as const;
  // Both sides hold acts: the side that did not end the run is kept, so the end is replayed on top of it (docs/git.md "The merge rule").
  const open = (s: Side, act: boolean) => Number(replaying && act && !endedAfter(s.events, fork));
  const steps: [number, number][] = [
    [Number(a.valid), Number(b.valid)],
    [Number(acts[0]), Number(acts[1])],
    [open(a, acts[0]), open(b, acts[1])],
    [a.rev, b.rev],
    [a.events.length, b.events.length],
  ];
  for (const [x, y] of steps) if (x !== y) return x - y;
  for (const [x, y] of [
    [last(a), last(b)],
    [digest(a.files), digest(b.files)],
  ] as const)
    if (x !== y) return x < y ? -1 : 1;
  return 0;
}

/** The loser's lines after the last line both chains share, as a branch forking there. */
function branchOf(winner: Side, loser: Side): SupersededBranch | null {
  const k = sharedPrefix(winner.events, loser.events);
  const lines = loser.events.slice(k);
  if (lines.length === 0) return null;
  const fork = k === 0 ? { seq: -1, hash: 'GENESIS' } : { seq: k - 1, hash: loser.events[k - 1]!.hash };
  const files = Object.fromEntries(Object.entries(loser.files).filter(([n]) => n !== CHAIN_FILE && n !== SUPERSEDED_FILE));
  return { fork, kept: winner.events[winner.events.length - 1]?.hash ?? 'GENESIS', lines, files };
}

/**
 * `worldFor`: when given, the side set aside is replayed through the engine on top
 * of the kept side (git/replay.ts); without it, it is set aside whole.
 */
export function mergeRun(base: RunFiles | null, ours: RunFiles | null, theirs: RunFiles | null, worldFor?: WorldFor): RunMerge {
  if (sameFiles(ours, theirs)) return { files: ours, taken: 'same', superseded: null };
  if (sameFiles(base, ours) || ours === null) return { files: theirs, taken: 'theirs', superseded: null };
  if (sameFiles(base, theirs) || theirs === null) return { files: ours, taken: 'ours', superseded: null };
  const a = side(ours);
  const b = side(theirs);
  const oursWins = rank(a, b, worldFor !== undefined && a.run !== null && worldFor(a.run) !== null) > 0;
  const [winner, loser] = oursWins ? [a, b] : [b, a];
  const found = branchOf(winner, loser);
  const [winnerBranches, loserBranches] = [branchesOf(winner), branchesOf(loser)];
  const replayed = found && worldFor ? replayOnto(winner, found, refusedEarlier(loser, loserBranches, winnerBranches), worldFor) : null;
  const branch = found && replayed ? { ...found, outcomes: replayed.outcomes[0] } : found;
  // An earlier refusal that now holds says so in its own branch.
  const nowHold = new Map((replayed?.outcomes.slice(1).flat() ?? []).filter(actHolds).map((o) => [o.line, o]));
  const patched = loserBranches.map((b) => (b.outcomes?.some((o) => nowHold.has(o.line)) ? { ...b, outcomes: b.outcomes.map((o) => nowHold.get(o.line) ?? o) } : b));
  const keptFiles = replayed ? replayed.files : winner.files;
  const keptEvents = replayed ? side(replayed.files).events : winner.events;
  const branches = canonicalBranches(keptEvents, winnerBranches, patched, branch ? [branch] : []);
  const files: Record<string, string> = Object.fromEntries(Object.entries(keptFiles).filter(([n]) => n !== SUPERSEDED_FILE));
  if (branches.length > 0) files[SUPERSEDED_FILE] = supersededText(branches);
  return { files, taken: oursWins ? 'ours' : 'theirs', superseded: branch ? { side: oursWins ? 'theirs' : 'ours', branch } : null };
}

/**
 * The side set aside applied again on top of the kept one, then `earlier`, when
 * the board can say what the run is pinned to. Outcomes: the side's first,
 * then each of `earlier`'s.
 */
function replayOnto(winner: Side, branch: SupersededBranch, earlier: readonly ReplaySource[], worldFor: WorldFor): { files: RunFiles; outcomes: BranchOutcome[][] } | null {
  const world = winner.run ? worldFor(winner.run) : null;
  if (!world || !winner.valid || !winner.run) return null;
  const kept = Object.fromEntries(Object.entries(winner.files).filter(([n]) => n !== SUPERSEDED_FILE));
  const side: ReplaySource = { lines: branch.lines, before: winner.events.slice(0, branch.fork.seq + 1), files: branch.files };
  return replay(winner.run.id, kept, winner.events, [side, ...earlier], world);
}

/**
 * The acts an earlier merge refused on the side now set aside, tried again on
 * the side kept: what refused them (a cancel, a decision on that side) may be
 * set aside now itself, and a merge applies every act that still applies
 * (docs/git.md "The replay"). Branches the kept side holds too are not: their
 * refusals were against the kept side's own chain, which still stands.
 */
function refusedEarlier(loser: Side, theirs: readonly SupersededBranch[], kept: readonly SupersededBranch[]): ReplaySource[] {
  const keptToo = new Set(kept.map(branchKey));
  return theirs.flatMap((b) => {
    const refused = new Set((b.outcomes ?? []).flatMap((o) => ('reason' in o ? [o.line] : [])));
    const forkedHere = b.fork.seq < 0 || loser.events[b.fork.seq]?.hash === b.fork.hash;
    if (refused.size === 0 || keptToo.has(branchKey(b)) || !forkedHere) return [];
    return [{ lines: b.lines, before: loser.events.slice(0, b.fork.seq + 1), files: b.files, only: refused }];
  });
}

/**
 * An operator's choice after a merge: make a branch the merge set aside the
 * run's own, and set the kept side aside in its place. Refused once the run
 * has moved since the merge (its chain no longer ends where the merge kept it).
 */
export function takeBranch(current: RunFiles, index: number): { ok: true; files: RunFiles } | { ok: false; reason: string } {
  const branches = parseSuperseded(current[SUPERSEDED_FILE] ?? '').branches;
  const branch = branches[index];
  if (!branch) return { ok: false, reason: branches.length === 0 ? 'nothing was superseded on this run' : `there is no superseded branch ${index + 1} (there are ${branches.length})` };
  const now = side(current);
  const head = now.events[now.events.length - 1]?.hash;
  if (head !== branch.kept) return { ok: false, reason: 'the run has moved since the merge: taking the other side now would drop what happened since' };
  const prefix = now.events.slice(0, branch.fork.seq + 1);
  const taken = [...prefix, ...branch.lines];
  const setAside = branchOf(side({ ...branch.files, [CHAIN_FILE]: chainText(taken) }), now);
  const rest = branches.filter((_, i) => i !== index);
  const merged = canonicalBranches(taken, rest, setAside ? [setAside] : []);
  const files: Record<string, string> = { ...branch.files, [CHAIN_FILE]: chainText(taken) };
  if (merged.length > 0) files[SUPERSEDED_FILE] = supersededText(merged);
  return { ok: true, files };
}

const chainText = (events: readonly AuditEvent[]): string => events.map((e) => `${JSON.stringify(e)}\n`).join('');

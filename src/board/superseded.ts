/**
 * `runs/<id>/superseded.jsonl`: the transitions a merge of two histories did
 * not keep. When two clones moved one run, the merge keeps one side whole
 * (see git/merge-run.ts) and records each of the other side's branches here:
 * one JSON object a line, `{fork, kept, lines, files}`, where `lines` are that
 * side's audit lines after the fork, verbatim (so still hash-linked and
 * signed by whoever wrote them), `kept` the head the merge kept instead, and
 * `files` that side's run files as they were (what `resolve --take` restores).
 *
 * The file is a pure function of what was merged (no merge time, no signer),
 * so every clone that makes the same merge writes the same bytes, whichever
 * way round. Everything here is pure.
 */
import { GENESIS, verifyChain, type AuditEvent } from './audit.js';

import { SUPERSEDED_FILE } from './layout.js';

export { SUPERSEDED_FILE };

export interface SupersededBranch {
  /** The last line both sides share: the branch's first line continues it. */
  fork: { seq: number; hash: string };
  /** The head of the chain the merge kept instead. */
  kept: string;
  lines: AuditEvent[];
  /** The losing side's run files (RUN.md and step files), by name, as they were. */
  files: Record<string, string>;
  /** What the merge's replay made of each line (git/replay.ts). Absent on branches set aside whole. */
  outcomes?: BranchOutcome[];
}

/**
 * One line's outcome in a replay: applied again as the kept chain's line
 * `replayed`; already done there by the kept chain's line `held` (the same
 * act, or an act alike: a cancel of a run cancelled there too, a decision
 * made alike); or neither, for `reason`.
 */
export type BranchOutcome = { line: string; replayed: string } | { line: string; held: string } | { line: string; reason: string };

/** Does the act of an outcome hold on the kept side (applied again, or already done there)? */
export const actHolds = (o: BranchOutcome): boolean => 'replayed' in o || 'held' in o;

/** The hashes of a branch's lines whose act holds on the kept side: not superseded, so nobody is told they were lost. */
export const holdingLines = (b: SupersededBranch): Set<string> => new Set((b.outcomes ?? []).filter(actHolds).map((o) => o.line));

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The branches of a superseded file, or the problems that stop it being read. */
export function parseSuperseded(text: string): { branches: SupersededBranch[]; problems: { line: number; reason: string }[] } {
  const branches: SupersededBranch[] = [];
  const problems: { line: number; reason: string }[] = [];
  if (text === '') return { branches, problems };
  const lines = text.split('\n');
  // After the last line break comes nothing, unless an append was torn.
  if (lines.pop() !== '') problems.push({ line: lines.length + 1, reason: 'torn line: the last line has no line end' });
  lines.forEach((raw, i) => {
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      problems.push({ line: i + 1, reason: 'not valid JSON' });
      return;
    }
    const ok =
      isObj(v) &&
      isObj(v.fork) &&
      typeof v.fork.seq === 'number' &&
      typeof v.fork.hash === 'string' &&
      typeof v.kept === 'string' &&
      Array.isArray(v.lines) &&
      v.lines.length > 0 &&
      v.lines.every(isObj) &&
      isObj(v.files) &&
      Object.values(v.files).every((f) => typeof f === 'string');
    if (!ok) {
      problems.push({ line: i + 1, reason: 'not a superseded branch (fork, kept, lines, files)' });
      return;
    }
    branches.push(v as SupersededBranch);
  });
  return { branches, problems };
}

/** A branch's identity: where it forks and where it ends. */
export const branchKey = (b: SupersededBranch): string => `${b.fork.hash}:${b.lines[b.lines.length - 1]!.hash}`;

/** Is `a` the same branch as `b` cut short (same fork, its lines a prefix of b's)? */
function isPrefixOf(a: SupersededBranch, b: SupersededBranch): boolean {
  if (a.fork.hash !== b.fork.hash || a.lines.length > b.lines.length) return false;
  return a.lines.every((l, i) => l.hash === b.lines[i]!.hash);
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The canonical set of branches beside a kept chain, however the merges that
 * made them were ordered: every branch forks from the kept chain itself (one
 * that forked from another branch gets that branch's lines before its own),
 * each is kept once, one that another extends gives way to the longer one,
 * one that the kept chain now holds is dropped, and all are in order of fork,
 * then first line. `kept` is the kept chain's head for all of them.
 */
export function canonicalBranches(main: readonly AuditEvent[], ...sets: readonly SupersededBranch[][]): SupersededBranch[] {
  const inMain = new Map(main.map((e) => [e.hash, e.seq]));
  const head = main[main.length - 1]?.hash ?? GENESIS;
  const all = sets.flat();
  const rooted = all.map((b) => {
    let cur = b;
    // Each step moves the fork to an earlier line, so this ends.
    for (let guard = 0; guard <= all.length && cur.fork.hash !== GENESIS && !inMain.has(cur.fork.hash); guard++) {
      const from = all.find((o) => o !== cur && o.lines.some((l) => l.hash === cur.fork.hash));
      if (!from) break;
      const upTo = from.lines.findIndex((l) => l.hash === cur.fork.hash);
      cur = { ...cur, fork: from.fork, lines: [...from.lines.slice(0, upTo + 1), ...cur.lines] };
    }
    return cur;
  });
  const byKey = new Map<string, SupersededBranch>();
  for (const b of rooted) if (!byKey.has(branchKey(b))) byKey.set(branchKey(b), b);
  const unique = [...byKey.values()].filter((b) => !inMain.has(b.lines[b.lines.length - 1]!.hash));
  const maximal = unique.filter((a) => !unique.some((b) => b !== a && isPrefixOf(a, b)));
  return maximal.map((b) => ({ ...b, kept: head })).sort((a, b) => a.fork.seq - b.fork.seq || cmp(a.lines[0]!.hash, b.lines[0]!.hash) || cmp(branchKey(a), branchKey(b)));
}

/** The file's text for these branches (empty when there are none), keys in a fixed order. */
export function supersededText(branches: readonly SupersededBranch[]): string {
  return branches
    .map((b) => {
      const files = Object.fromEntries(
        Object.keys(b.files)
          .sort()
          .map((k) => [k, b.files[k]!]),
      );
      return `${JSON.stringify({ fork: { seq: b.fork.seq, hash: b.fork.hash }, kept: b.kept, lines: b.lines, files, ...(b.outcomes ? { outcomes: b.outcomes } : {}) })}\n`;
    })
    .join('');
}

/**
 * Check each branch against the run's kept chain: its fork is a line of that
 * chain, and its lines continue it with valid links and hashes. (Signatures
 * are checked by the caller, who holds the key ring.)
 */
export function supersededBreaks(branches: readonly SupersededBranch[], main: readonly AuditEvent[]): { branch: number; line: number | null; reason: string }[] {
  const out: { branch: number; line: number | null; reason: string }[] = [];
  branches.forEach((b, i) => {
    const fromGenesis = b.fork.seq === -1 && b.fork.hash === GENESIS;
    const at = main[b.fork.seq];
    if (!fromGenesis && (!at || at.hash !== b.fork.hash)) {
      out.push({ branch: i + 1, line: null, reason: `forks at seq ${b.fork.seq}, which is not a line of the run's audit chain` });
      return;
    }
    const report = verifyChain(b.lines.map((l) => `${JSON.stringify(l)}\n`).join(''), at && !fromGenesis ? { seq: at.seq, hash: at.hash, ts: at.ts } : null);
    for (const br of report.breaks) out.push({ branch: i + 1, line: br.line, reason: br.reason });
  });
  return out;
}

/**
 * The unsigned lines of `lines` that a merge's replay wrote (docs/git.md "The merge rule"): each
 * names in `input.replayOf` a signed line kept in one of `branches` (or in `lines` itself), and is
 * that line's actor's or the server's, or, right after the server consumed a held event, the
 * step completed by whoever sent an event to this run (the engine completes it in the sender's
 * name). Their signature is the original's; returned as indexes.
 */
export function vouchedLines(lines: readonly AuditEvent[], branches: readonly SupersededBranch[]): Set<number> {
  const signed = new Map<string, string>();
  for (const l of [...lines, ...branches.flatMap((b) => b.lines)]) if (typeof l.sig === 'string' && typeof l.hash === 'string') signed.set(l.hash, l.actor);
  const out = new Set<number>();
  const senders = new Set<string>();
  lines.forEach((l, i) => {
    if (l.action === 'event.received' || l.action === 'event.held') senders.add(l.actor);
    const of = isObj(l.input) ? l.input.replayOf : undefined;
    const actor = typeof of === 'string' ? signed.get(of) : undefined;
    const before = lines[i - 1];
    const afterConsumed = before?.action === 'event.consumed' && (out.has(i - 1) || typeof before.sig === 'string') && l.action === 'step.completed' && senders.has(l.actor);
    if (l.sig === undefined && l.signer === undefined && actor !== undefined && (l.actor === actor || l.actor === 'server' || afterConsumed)) out.add(i);
  });
  return out;
}

/** Where a chain's superseded branches are kept: beside it, in the same folder. */
export function supersededPathFor(chain: string): string {
  return `${chain.slice(0, chain.lastIndexOf('/') + 1)}${SUPERSEDED_FILE}`;
}

/**
 * The lines of a chain's text and of the branches set aside beside it, each by
 * its whole content (not its hash alone: a line altered but for its `hash` is
 * not the line kept); `unreadable` when a line of the chain is not an audit line.
 */
function linesOf(chain: string, superseded: string): { byHash: Map<string, AuditEvent>; unreadable: boolean } {
  const byHash = new Map<string, AuditEvent>();
  let unreadable = false;
  for (const raw of chain.split('\n')) {
    if (raw === '') continue;
    try {
      const v = JSON.parse(raw) as unknown;
      if (isObj(v) && typeof v.hash === 'string' && typeof v.seq === 'number') byHash.set(JSON.stringify(v), v as unknown as AuditEvent);
      else unreadable = true;
    } catch {
      unreadable = true;
    }
  }
  for (const b of parseSuperseded(superseded).branches) for (const l of b.lines) if (typeof l.hash === 'string') byHash.set(JSON.stringify(l), l);
  return { byHash, unreadable };
}

/**
 * What a later version of a chain (with the branches set aside beside it)
 * dropped of an earlier one: each signed line the earlier chain or its
 * superseded branches held that is in neither the later chain nor its
 * superseded branches, in the earlier order. `unreadable`: the earlier chain
 * held a line that is no audit line, which nothing can be said to keep.
 * What `audit verify --git` asks of every commit against each of its parents.
 */
export function droppedLines(before: { chain: string; superseded: string }, after: { chain: string; superseded: string }): { lines: AuditEvent[]; unreadable: boolean } {
  const was = linesOf(before.chain, before.superseded);
  const now = linesOf(after.chain, after.superseded);
  return { lines: [...was.byHash].filter(([k]) => !now.byHash.has(k)).map(([, l]) => l), unreadable: was.unreadable };
}

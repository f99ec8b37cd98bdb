/**
 * What the sync simulation (test/git/sync-simulation.test.ts) asserts of the
 * clones after the final syncs, issue 41's list: byte-identical boards, no
 * conflict marker, `audit verify --git` clean, every acknowledged line kept
 * or set aside with a reason, no person's act set aside for server lines, no
 * set-aside branch of server lines alone, no step completed twice, no
 * board-chain line lost. It returns the figures the test prints.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { boardFiles, chainLines, differing, git, readOr, setAside, withConflictMarkers, type ChainLine } from './sim-board.js';
import type { Clone, Trace } from './sim-team.js';

export interface Acked {
  round: number;
  clone: string;
  run: string;
  hash: string;
  action: string;
  actor: string;
}

export interface Verdict {
  runs: number;
  superseded: number;
  /** The hashes of the acknowledged lines set aside rather than kept in their chain. */
  supersededLines: Set<string>;
  supersededRuns: number;
  byReason: number;
  /** Of the superseded lines, those the merge applied again on top of the side kept (their act holds, as an unsigned line naming them). */
  replayedLines: Set<string>;
  /** Of the superseded lines, those whose act the side kept had already done (a cancel of a run cancelled there too, a decision made alike). */
  heldLines: Set<string>;
  timers: number;
  timersOnOtherClone: number;
  /** Branches of server lines alone, each a timer the kept side holds too: written twice while two clones held the clock. */
  timersTwice: string[];
  /** Timers set aside because an act kept on another clone came first (a cancel before a wait ended, a decision before it was overdue). */
  timersMoot: string[];
}

/** A timer's line: a server line that ends a wait or a `wait_for`, or marks a step overdue. */
export const isTimer = (l: ChainLine) =>
  l.actor === 'server' && (l.action === 'step.overdue' || l.action === 'wait.timed-out' || (l.action === 'step.completed' && /\/(settle|signal)$/.test(l.entity)));

/**
 * What became of a timer set aside in a branch of server lines alone, judged
 * against the kept chain's lines after the fork:
 * - `twice`: the kept side holds the same timer (two clones wrote it while
 *   both held the clock, or the replay applied it again);
 * - `moot`: an act of a person or an agent on the kept side, made before the
 *   timer's deadline, ended the run or moved the timer's step, so the timer
 *   never fell due there (acts outrank timers, docs/git.md "Timers once per
 *   board"; the holder could not know of an act another clone had not synced);
 * - `lost`: neither, so the kept run lacks a timer that did fall due.
 * The deadline is what the lines before the timer set (a wait's `until`, a
 * step's `due`), not the timer line's own time, which is when a clock holder
 * wrote it down (a serve's clock runs ahead in the simulation). An act after
 * the deadline would have applied the timer first (every call applies the
 * run's elapsed deadlines), so the kept side would hold it.
 */
export function timerFate(timer: ChainLine, before: readonly ChainLine[], keptAfter: readonly ChainLine[]): 'twice' | 'moot' | 'lost' {
  if (keptAfter.some((e) => e.action === timer.action && e.entity === timer.entity)) return 'twice';
  const waited = [...before].reverse().find((e) => e.action === 'step.waiting' && e.entity === timer.entity)?.input?.changes?.until;
  const deadline = (timer.action === 'step.overdue' ? timer.input?.changes?.due : waited) ?? timer.ts;
  const preempts = (e: ChainLine) => e.actor !== 'server' && Date.parse(e.ts) < Date.parse(deadline) && (e.action === 'run.cancelled' || e.entity === timer.entity);
  return keptAfter.some(preempts) ? 'moot' : 'lost';
}

export async function verdict(trace: Trace, clones: Clone[], acked: Acked[], boardAcked: Omit<Acked, 'run' | 'actor'>[]): Promise<Verdict> {
  const where = trace.where();
  const first = clones[0]!;
  // Byte-identical board files, no conflict marker, a clean work tree.
  const snapshots = await Promise.all(clones.map((c) => boardFiles(c.dir)));
  for (const [k, c] of clones.entries()) {
    expect(differing(snapshots[0]!, snapshots[k]!), `board files of ${c.name} that differ from ${first.name}'s (${where})`).toEqual([]);
    expect(await withConflictMarkers(c.dir), `files of ${c.name} with a conflict marker`).toEqual([]);
    expect(await git(c.dir, 'status', '--porcelain'), `uncommitted files on ${c.name} after the final syncs`).toBe('');
  }
  for (const c of clones) {
    const v = await trace.cli(c, ['audit', 'verify', '--git']);
    expect(v.code, `audit verify --git on ${c.name}:\n${v.stdout}${v.stderr}`).toBe(0);
  }

  const finalRuns = (await fs.readdir(path.join(first.dir, 'runs'))).filter((n) => n.startsWith('r-')).sort();
  const chains = new Map<string, ChainLine[]>();
  const branchesOf = new Map<string, ReturnType<typeof setAside>>();
  const outcomes = new Map<string, { reason?: string; replayed?: string; held?: string }>();
  for (const run of finalRuns) {
    const dir = path.join(first.dir, 'runs', run);
    chains.set(run, chainLines(await readOr(path.join(dir, 'audit.jsonl'))));
    const branches = setAside(await readOr(path.join(dir, 'superseded.jsonl')));
    branchesOf.set(run, branches);
    for (const b of branches) for (const o of (b as { outcomes?: { line: string; reason?: string; replayed?: string; held?: string }[] }).outcomes ?? []) outcomes.set(o.line, o);
  }

  // Every acknowledged line is in its run's chain, or set aside beside it.
  const inChain = (a: Acked) => chains.get(a.run)?.some((l) => l.hash === a.hash) ?? false;
  const inBranch = (a: Acked) => branchesOf.get(a.run)?.some((b) => b.lines.some((l) => l.hash === a.hash)) ?? false;
  const vanished = acked.filter((a) => !inChain(a) && !inBranch(a));
  expect(
    vanished.map((a) => `round ${a.round} ${a.clone} ${a.run} #${a.action} by ${a.actor} ${a.hash.slice(0, 12)}`),
    `acknowledged lines found neither in the chain nor superseded (${where})`,
  ).toEqual([]);
  const superseded = acked.filter((a) => !inChain(a));
  // "With a reason": the branch's outcome for the line (applied again, or the engine's refusal), or the whole side set aside by the merge rule.
  const byReason = superseded.filter((a) => outcomes.get(a.hash)?.reason !== undefined).length;
  const replayedLines = new Set(superseded.filter((a) => outcomes.get(a.hash)?.replayed !== undefined).map((a) => a.hash));
  const heldLines = new Set(superseded.filter((a) => outcomes.get(a.hash)?.held !== undefined).map((a) => a.hash));

  // No board-chain line lost: every acknowledged WORK.md edit's line is in audit/board.jsonl or set aside beside it.
  const boardChain = new Set(chainLines(await readOr(path.join(first.dir, 'audit', 'board.jsonl'))).map((l) => l.hash));
  const boardSetAside = new Set(setAside(await readOr(path.join(first.dir, 'audit', 'superseded.jsonl'))).flatMap((b) => b.lines.map((l) => l.hash)));
  const boardLost = boardAcked.filter((a) => !boardChain.has(a.hash) && !boardSetAside.has(a.hash));
  expect(
    boardLost.map((a) => `round ${a.round} ${a.clone} ${a.action} ${a.hash.slice(0, 12)}`),
    `acknowledged board-chain lines found neither in audit/board.jsonl nor set aside (${where})`,
  ).toEqual([]);
  expect(boardAcked.length, 'the rounds edited WORK.md').toBeGreaterThan(0);

  // A run only one clone's key ever wrote to is never superseded.
  const solo: string[] = [];
  const actAgainstServer: string[] = [];
  const timerOnly: string[] = [];
  const timersTwice: string[] = [];
  const timersMoot: string[] = [];
  const twice: string[] = [];
  let timers = 0;
  let timersOnOtherClone = 0;
  for (const run of finalRuns) {
    const chain = chains.get(run)!;
    const branches = branchesOf.get(run)!;
    const signers = new Set([...chain, ...branches.flatMap((b) => b.lines)].map((l) => l.signer).filter((s) => s !== undefined));
    if (branches.length > 0 && signers.size <= 1) solo.push(`${run} (written only by ${[...signers].join(', ')})`);
    for (const b of branches) {
      const keptAfter = chain.filter((e) => e.seq > b.fork.seq);
      if (b.lines.every((l) => l.actor === 'server')) {
        // A branch of server lines alone: each timer in it was written twice, or made moot by an earlier act kept; never lost.
        const shared = chain.filter((e) => e.seq <= b.fork.seq);
        const fates = b.lines.flatMap((l, i) => (isTimer(l) ? [[l, timerFate(l, [...shared, ...b.lines.slice(0, i)], keptAfter)] as const] : []));
        const said = (l: ChainLine) => `${l.actor} ${l.action} ${l.entity.slice(l.entity.indexOf('/') + 1)} at ${l.ts}`;
        for (const [l, fate] of fates) {
          if (fate === 'twice') timersTwice.push(`${run}: ${l.action}`);
          else if (fate === 'moot') timersMoot.push(`${run}: ${said(l)}`);
          else timerOnly.push(`${run}: ${said(l)} set aside for ${keptAfter.map(said).join(', ')}`);
        }
      } else if (keptAfter.every((e) => e.actor === 'server'))
        actAgainstServer.push(
          `${run}: ${b.lines
            .filter((l) => l.actor !== 'server')
            .map((l) => `${l.actor} ${l.action}`)
            .join(', ')} set aside for ${keptAfter.map((e) => e.action).join(', ')}`,
        );
    }
    // A step is completed once per attempt: between two completions of one step, it was made ready (or rewound) again,
    // or an approval's rejection sent the run back to it (its next attempt, docs/processes.md "Rework"; a held event
    // then completes a wait at once, with no step.waiting line between).
    const open = new Map<string, boolean>();
    for (const e of chain) {
      if (e.action === 'step.ready' || e.action === 'step.rewound' || e.action === 'step.waiting') open.set(e.entity, true);
      else if (e.action === 'step.rejected' && e.input?.changes?.to !== undefined) open.set(`${run}/${e.input.changes.to}`, true);
      else if (e.action === 'step.completed') {
        if (open.get(e.entity) === false) twice.push(`${run}: ${e.entity} completed again by ${e.actor} at #${e.seq}`);
        open.set(e.entity, false);
      }
    }
    // Timers kept in the chain; those of a run whose people or agents acted on another clone met an act across clones.
    const runTimers = chain.filter(isTimer);
    timers += runTimers.length;
    const actSigners = new Set(chain.filter((l) => l.actor !== 'server' && l.signer !== undefined).map((l) => l.signer));
    if (runTimers.some((t) => [...actSigners].some((s) => s !== t.signer))) timersOnOtherClone++;
  }
  expect(solo, `runs superseded though one clone alone wrote them (${where})`).toEqual([]);
  expect(actAgainstServer, `acts of people or agents superseded by server lines alone (${where})`).toEqual([]);
  expect(timerOnly, `timers set aside in branches of server lines alone that the kept side neither holds nor made moot by an earlier act (${where})`).toEqual([]);
  expect(twice, `steps completed twice in one attempt (${where})`).toEqual([]);
  expect(timers, 'timers fell due and were written (waits ended, wait_for timed out, approvals overdue)').toBeGreaterThan(0);
  return {
    runs: finalRuns.length,
    superseded: superseded.length,
    supersededLines: new Set(superseded.map((a) => a.hash)),
    supersededRuns: finalRuns.filter((r) => branchesOf.get(r)!.length > 0).length,
    byReason,
    replayedLines,
    heldLines,
    timers,
    timersOnOtherClone,
    timersTwice,
    timersMoot,
  };
}

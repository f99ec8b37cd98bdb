/**
 * A sync that brings branches a merge set aside holding this clone's own
 * transitions: their claims end and their people are told (docs/git.md
 * "The merge rule").
 */
import type { Board } from '../board/board.js';
import { verifyChain } from '../board/audit.js';
import { paths } from '../board/layout.js';
import { readRunHead } from '../board/run-head.js';
import type { ScopeReplacement } from '../board/store.js';
import { holdingLines, parseSuperseded, type SupersededBranch } from '../board/superseded.js';
import { newId } from '../core/ids.js';
import { entryFile } from '../notify/outbox.js';
import { supersededNotification } from '../notify/superseded.js';

export type StateChanges = Pick<ScopeReplacement, 'removeState' | 'writeState'>;

/**
 * When a move brings branches set aside on a run that hold transitions this
 * clone made (whoever made the merge, here or on another clone): end the
 * leases of the claims among them (their tokens then answer that the claim
 * ended), and tell the people and operators through the outbox. Only lines
 * this clone signed: each clone tells of its own, so no one is told twice.
 */
export async function endSuperseded(board: Board, run: string, before: string, after: string, runText: string, chain: string): Promise<StateChanges | null> {
  const mine = await board.store.signingFingerprint();
  const known = new Set(parseSuperseded(before).branches.flatMap((b) => b.lines.map((l) => l.hash)));
  // A line whose act holds on the kept side (applied again, or already done there) was not superseded: nobody is told of it (docs/git.md "The replay").
  const told = (b: SupersededBranch) => {
    const holds = holdingLines(b);
    return b.lines.filter((l) => !known.has(l.hash) && l.signer === mine && !holds.has(l.hash));
  };
  const fresh = parseSuperseded(after).branches.filter((b) => told(b).length > 0);
  if (fresh.length === 0) return null;
  const lines = fresh.flatMap(told);
  const claimed = new Set(lines.filter((l) => l.action === 'step.claimed').map((l) => l.entity.split('/')[1]!));
  const head = parseRunHead(runText);
  const now = new Date();
  const forkSeq = Math.min(...fresh.map((b) => b.fork.seq));
  const note = supersededNotification({
    id: newId('n', now.getTime()),
    at: now.toISOString(),
    board: board.manifest.name,
    runId: run,
    process: head.process,
    mode: head.mode,
    lines,
    kept: verifyChain(chain).events.filter((e) => e.seq > forkSeq),
    manifest: board.manifest,
  });
  return {
    removeState: [...claimed].map((step) => `${paths.leaseDir(run)}/${step}.json`),
    writeState: note ? [{ rel: entryFile(note), bytes: `${JSON.stringify({ ...note, deliveries: null }, null, 2)}\n` }] : [],
  };
}

/** The process and mode a RUN.md names, for a notification's words. */
function parseRunHead(text: string): { process: string; mode: 'live' | 'test' } {
  const head = readRunHead(text);
  return { process: head?.process ?? 'a process', mode: head?.mode ?? 'live' };
}

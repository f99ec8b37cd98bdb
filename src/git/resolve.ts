/**
 * `workboard resolve <run> --take <n>`: an operator takes the side of a run
 * that a merge set aside, while the run has not moved since the merge. The
 * side that was kept is set aside in its turn (nothing is dropped), the
 * claims held on it here end, and the choice is audited on the run.
 */
import { sha256Hex } from '../core/hash.js';
import type { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { paths } from '../board/layout.js';
import { takeBranch } from './merge-run.js';

export async function resolveRun(board: Board, runId: string, take: number, actor: string, reason?: string): Promise<{ took: number }> {
  if (!board.manifest.operators.includes(actor)) throw new BoardError('invalid', `only operators may choose a side of a merged run; ${actor} is not one`, [{ path: 'as', message: 'not an operator' }]);
  const dir = paths.runDir(runId);
  const names = board.listing.names(dir) ?? [];
  if (!names.includes('RUN.md')) throw new BoardError('invalid', `no run ${runId} on this board`, [{ path: 'run', message: 'not found' }]);
  const current: Record<string, string> = {};
  for (const n of names.filter((n) => !n.includes('.tmp-'))) current[n] = (await board.store.readBytes(`${dir}/${n}`))!.toString('utf8');
  const taken = takeBranch(current, take - 1);
  if (!taken.ok) throw new BoardError('conflict', `cannot take side ${take} of ${runId}: ${taken.reason}`, [{ path: 'take', message: taken.reason }]);
  const leases = board.state.list(paths.leaseDir(runId));
  const files = [...new Set([...Object.keys(current), ...Object.keys(taken.files)])].map((n) => ({
    rel: `${dir}/${n}`,
    from: current[n] === undefined ? null : sha256Hex(current[n]),
    to: taken.files[n] === undefined ? null : Buffer.from(taken.files[n]),
  }));
  await board.store.replace([{ scope: { kind: 'run', id: runId }, files, removeState: leases.map((l) => `${paths.leaseDir(runId)}/${l}`) }]);
  // The replaced files hold the chain the choice is audited on, so the audit line is a commit of its own after them.
  await board.store.apply({ kind: 'run', id: runId }, async () => ({
    value: undefined,
    commit: { files: [], state: [], events: [{ actor, action: 'run.resolved', entity: runId, changes: { took: take, reason: reason ?? 'an operator chose the other side of a merge' } }] },
  }));
  return { took: take };
}

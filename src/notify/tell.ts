/** Tell the board's operators about the board itself (a refused edit, an internal fault, a failing evaluator), through the outbox. */
import { newId } from '../core/ids.js';
import type { Board } from '../board/board.js';
import { enqueue } from './outbox.js';
import { operatorNotification } from './rules.js';

export async function tellOperators(board: Board, kind: 'edit_refused' | 'internal_fault' | 'evaluator_failing', now: Date, detail: { subject: string; text: string; runId?: string }): Promise<void> {
  if (board.manifest.operators.length === 0) return;
  const n = operatorNotification(kind, board.manifest, now.toISOString(), newId('n', now.getTime()), detail);
  // Telling is best effort: the fault itself is already recorded (incidents, refused.json, the reply).
  await enqueue(board.state, n).catch(() => undefined);
}

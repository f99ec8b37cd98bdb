/**
 * Overdue notifications (§2.2 `due`): to the assignee and the operators, as a
 * line in the daemon's log, a record under `.work/notifications/`, and the
 * optional notify command from WORK.md, which gets the notification as JSON on
 * stdin. Test runs are recorded but never sent to the command (§3.3).
 */
import { spawn } from 'node:child_process';
import { writeFileAtomic } from '../board/fsutil.js';
import { STATE_DIR } from '../board/layout.js';
import type { Board } from '../board/board.js';
import type { Pinned, RunState } from '../engine/types.js';
import { assignment } from '../engine/view.js';

export interface Notification {
  kind: 'overdue';
  runId: string;
  process: string;
  stepId: string;
  mode: 'live' | 'test';
  due: string | null;
  assignee: { group?: string; person?: string };
  recipients: string[];
  at: string;
}

export function overdueNotification(board: Board, state: RunState, pinned: Pinned, stepId: string, at: string): Notification {
  const def = pinned.process.steps.find((s) => s.id === stepId)!;
  const st = state.steps[stepId]!;
  const assignee = def.kind === 'agent' && !st.escalation ? {} : assignment(state, pinned, def, st);
  const m = board.manifest;
  const people = assignee.person ? [assignee.person] : assignee.group ? (m.groups[assignee.group] ?? (assignee.group === 'operators' ? m.operators : [])) : [];
  return {
    kind: 'overdue',
    runId: state.run.id,
    process: state.run.process,
    stepId,
    mode: state.run.mode,
    due: st.due,
    assignee,
    recipients: [...new Set([...people, ...m.operators])],
    at,
  };
}

export async function deliver(board: Board, n: Notification, log: (line: string) => void): Promise<void> {
  log(`overdue: ${n.process} ${n.runId} step ${n.stepId} (due ${n.due}) → ${n.recipients.join(', ') || 'nobody'}${n.mode === 'test' ? ' [test run: not sent]' : ''}`);
  await writeFileAtomic(board.store.abs(`${STATE_DIR}/notifications/${n.runId}-${n.stepId}-${n.at.replace(/[:.]/g, '-')}.json`), `${JSON.stringify(n, null, 2)}\n`);
  const cmd = board.manifest.notify;
  if (!cmd || n.mode === 'test') return;
  await new Promise<void>((resolve) => {
    const child = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'ignore', 'pipe'], cwd: board.root });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', (e) => {
      log(`notify command failed to start: ${e.message}`);
      resolve();
    });
    child.on('close', (code) => {
      if (code !== 0) log(`notify command exited ${code}: ${err.trim().split('\n')[0] ?? ''}`);
      resolve();
    });
    child.stdin.end(JSON.stringify(n));
  });
}

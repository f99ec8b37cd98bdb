/**
 * Reminder ladders on the board (docs/operators.md "Reminders and escalation
 * ladders"): when each open run's next rung falls, sending what fell due, and
 * where an item stands, in words. A rung is sent as one commit of the run:
 * its audit line, its outbox record and the record of rungs sent
 * (`.work/reminders/<run>.json`) together, so after a crash a rung is either
 * wholly sent or not at all, and never twice. Nothing here changes a run's
 * files: a ladder only tells people. Test runs and decided items have none.
 */
import type { Board } from '../board/board.js';
import { revRecording, type CommitEvent } from '../board/commit.js';
import { REMINDERS_DIR } from '../board/layout.js';
import { ladderOf, NO_REMINDERS, type Ladder, type Reminders } from '../board/ladders.js';
import { newId } from '../core/ids.js';
import type { Pinned, RunState, StepState } from '../engine/types.js';
import type { Step } from '../process/model.js';
import { calendarOf, dueRungs, nextRung, type Calendar, type RungRecords } from '../notify/ladder.js';
import { ladderSentence, rungNotification, rungRecipients } from '../notify/ladder-notes.js';
import { assignment } from '../engine/view.js';
import { outboxRecords } from '../notify/outbox.js';
import type { Notification } from '../notify/rules.js';
import type { RunReader } from './run-reader.js';

/** A run's record of rungs: by work item id. */
type RunRecords = Record<string, RungRecords>;

export function remindersFile(runId: string): string {
  return `${REMINDERS_DIR}/${runId}.json`;
}

function parseRecords(text: string | null | Buffer): RunRecords {
  if (text === null) return {};
  try {
    const v: unknown = JSON.parse(text.toString());
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as RunRecords) : {};
  } catch {
    return {};
  }
}

/** WORK.md's reminders, none when it declares none. */
const remindersOf = (board: Board): Reminders => board.manifest.reminders ?? NO_REMINDERS;

/** The open work items of a run a ladder applies to: waiting, of a live run, with a ladder declared. */
function laddered(board: Board, state: RunState, pinned: Pinned): { def: Step; st: StepState & { workItem: string }; ladder: Ladder }[] {
  if (state.run.mode === 'test' || state.run.state === 'ended' || state.run.state === 'cancelled') return [];
  const out: { def: Step; st: StepState & { workItem: string }; ladder: Ladder }[] = [];
  for (const def of pinned.process.steps) {
    const st = state.steps[def.id];
    if (!st?.workItem || st.state !== 'waiting') continue;
    const ladder = ladderOf(remindersOf(board), state.run.process, def.id);
    if (ladder) out.push({ def, st: { ...st, workItem: st.workItem }, ladder });
  }
  return out;
}

const itemOf = (st: StepState) => ({ openedAt: st.readySince, due: st.due });

export class ReminderLadders {
  constructor(
    private readonly board: Board,
    private readonly reader: RunReader,
    private readonly now: () => Date,
  ) {}

  private get calendar(): Calendar {
    return calendarOf(remindersOf(this.board), this.board.manifest.notifications.timeZone);
  }

  private get any(): boolean {
    return Object.keys(remindersOf(this.board).ladders).length > 0;
  }

  private async records(runId: string): Promise<RunRecords> {
    return parseRecords(await this.board.state.read(remindersFile(runId)));
  }

  /** When each open run's next rung goes out (ms since the epoch); none when WORK.md declares no ladder. */
  async times(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (!this.any) return out;
    for (const id of await this.reader.openRunIds()) {
      try {
        const { state, pinned } = await this.reader.read(id, true);
        const items = laddered(this.board, state, pinned);
        if (items.length === 0) continue;
        const records = await this.records(id);
        for (const { st, ladder } of items) {
          const next = nextRung(itemOf(st), ladder, this.calendar, records[st.workItem] ?? {});
          if (next && next.fireAt < (out.get(id) ?? Infinity)) out.set(id, next.fireAt);
        }
      } catch {
        // a run that cannot be read now is looked at again on its next change
      }
    }
    return out;
  }

  /**
   * Send the rungs of a run's items that fell due, in one commit with their
   * audit lines and the record of what was sent. Returns the audit events.
   */
  async remind(runId: string): Promise<CommitEvent[]> {
    const { value } = await this.board.store.apply({ kind: 'run', id: runId }, async (reads) => {
      const read = revRecording(reads);
      const { state, pinned } = await this.reader.assemble(runId, read.read, read.readState);
      const now = this.now();
      const at = now.toISOString();
      const records = parseRecords(await read.readState(remindersFile(runId)));
      const events: CommitEvent[] = [];
      const notes: Notification[] = [];
      const manifest = this.board.manifest;
      for (const { def, st, ladder } of laddered(this.board, state, pinned)) {
        const done = { ...(records[st.workItem] ?? {}) };
        const { send, pass } = dueRungs(itemOf(st), ladder, this.calendar, done, now.getTime());
        for (const r of pass) done[r.key] = { at, sent: false, kind: r.kind, to: r.to };
        for (const r of send) done[r.key] = { at, sent: true, kind: r.kind, to: r.to };
        const after = nextRung(itemOf(st), ladder, this.calendar, done);
        for (const r of send) {
          const n = rungNotification(r, state, pinned, def, st, manifest, at, newId('n', now.getTime()), after);
          if (n) notes.push(n);
          events.push({
            actor: 'server',
            action: r.kind === 'remind' ? 'work-item.reminded' : 'work-item.escalated',
            entity: def.id,
            changes: { workItem: st.workItem, rung: r.key, to: rungRecipients(r, assignment(state, pinned, def, st), manifest), ...(r.to ? { audience: r.to } : {}) },
          });
        }
        if (send.length > 0 || pass.length > 0) records[st.workItem] = done;
      }
      if (events.length === 0 && notes.length === 0) return { value: [] as CommitEvent[], commit: null };
      const state2 = [{ rel: remindersFile(runId), bytes: `${JSON.stringify(records, null, 2)}\n` }, ...outboxRecords(notes)];
      return { value: events, commit: { files: [], state: state2, events } };
    });
    return value;
  }

  /** Where a waiting item stands on its ladder, as a sentence; null without a ladder, for a test run or a decided item. */
  async sentence(runId: string, workItemId: string): Promise<string | null> {
    if (!this.any) return null;
    const { state, pinned } = await this.reader.read(runId);
    const found = laddered(this.board, state, pinned).find((x) => x.st.workItem === workItemId);
    if (!found) return null;
    const done = (await this.records(runId))[workItemId] ?? {};
    return ladderSentence(done, nextRung(itemOf(found.st), found.ladder, this.calendar, done), this.now(), this.board.manifest.people);
  }
}

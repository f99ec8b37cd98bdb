/**
 * Reminder ladders on the board (docs/operators.md "Reminders and escalation
 * ladders"): when each open run's next rung falls, sending what fell due, and
 * where an item stands, in words. A rung is sent as one commit of the run:
 * its audit line, its outbox record and the record of rungs sent
 * (`.work/reminders/<run>.json`) together, so after a crash a rung is either
 * wholly sent or not at all, and never twice. Nothing here changes a run's
 * files: a ladder only tells people. Test runs and decided items have none.
 *
 * Serve's daemon asks when the next rungs fall on every pass. Each open run's
 * answer is kept, with the state it was planned from, and planned again only
 * when the reader serves another state of the run, WORK.md changed, or the
 * change log names the run (every commit, a rung's too, appends its line), so
 * a pass on a board where nothing changed reads no run's files and no record.
 * A run that ended, or whose files are gone, has its record removed then
 * (docs/operators.md "Reminders and escalation ladders").
 */
import type { Board } from '../board/board.js';
import { revRecording, type CommitEvent } from '../board/commit.js';
import type { ChangeCursor } from '../board/changes.js';
import { BoardError } from '../board/errors.js';
import { isRunId, paths, REMINDERS_DIR } from '../board/layout.js';
import { ladderOf, NO_REMINDERS, type Ladder, type Reminders } from '../board/ladders.js';
import type { Manifest } from '../board/manifest.js';
import { newId } from '../core/ids.js';
import type { Pinned, RunState, StepState } from '../engine/types.js';
import type { Step } from '../process/model.js';
import { calendarOf, dueRungs, nextRung, type Calendar, type RungRecords } from '../notify/ladder.js';
import { ladderSentence, rungNotification, rungRecipients } from '../notify/ladder-notes.js';
import { assignment } from '../engine/view.js';
import { entryNames, outboxRecords, readEntry, type OutboxEntry } from '../notify/outbox.js';
import { ladderRows, type RungRow } from '../notify/ladder-view.js';
import type { Assignment } from '../protocol/views.js';
import { processTitle, runTitle, stepTitle } from '../words/index.js';
import type { Notification } from '../notify/rules.js';
import type { RunReader } from './run-reader.js';

/** A waiting item's ladder rung by rung, for `workboard reminders`. */
export interface ItemLadder {
  stepId: string;
  stepTitle: string;
  workItemId: string;
  due: string | null;
  openedAt: string | null;
  assigned: Assignment;
  /** Where it stands, as the item's page says it. */
  sentence: string | null;
  rows: RungRow[];
}

/** A run's waiting items on their ladders; `none` says why there are none, in words. */
export interface RunLadders {
  runId: string;
  runTitle: string;
  timeZone: string;
  items: ItemLadder[];
  none: string | null;
}

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

/** An open run's next rung as last planned, and what it was planned from. */
interface Planned {
  state: RunState;
  manifest: Manifest;
  at: number | null;
}

export class ReminderLadders {
  constructor(
    private readonly board: Board,
    private readonly reader: RunReader,
    private readonly now: () => Date,
  ) {}

  /** Each open run's next rung, kept while the reader serves the same state (see the head of this file). */
  private readonly planned = new Map<string, Planned>();
  /** Each run's record of rungs as last read: read again once the change log names the run. */
  private readonly kept = new Map<string, RunRecords>();
  /** How far the change log was read; null: not yet (or it started over), so nothing kept is trusted. */
  private cursor: ChangeCursor | null = null;

  private get calendar(): Calendar {
    return calendarOf(remindersOf(this.board), this.board.manifest.notifications.timeZone);
  }

  private get any(): boolean {
    return Object.keys(remindersOf(this.board).ladders).length > 0;
  }

  private async records(runId: string): Promise<RunRecords> {
    let r = this.kept.get(runId);
    if (r === undefined) {
      r = parseRecords(await this.board.state.read(remindersFile(runId)));
      this.kept.set(runId, r);
    }
    return r;
  }

  /** Forget what is kept of a run: its record changed, or may have. */
  private forget(runId: string): void {
    this.kept.delete(runId);
    this.planned.delete(runId);
  }

  /** Runs the change log named whose record may be left over; null: look at every record (the first pass, a log started over). */
  private toSweep: Set<string> | null = null;

  /** Read the change log on from the cursor: forget what is kept of each run it names. */
  private follow(): void {
    const read = this.cursor === null ? null : this.board.changes.read(this.cursor);
    if (read === null || read.restarted) {
      this.cursor = read?.cursor ?? this.board.changes.end();
      this.kept.clear();
      this.planned.clear();
      this.toSweep = null;
      return;
    }
    this.cursor = read.cursor;
    for (const line of read.lines) {
      if (!line.startsWith('run ')) continue;
      const id = line.slice(4);
      this.forget(id);
      this.toSweep?.add(id);
    }
  }

  /**
   * Remove the records of runs that are over: ended or cancelled, or whose
   * folder is gone. Looked at are the runs the change log named (a run that
   * just ended) or, on the first pass, every record (leftovers of runs that
   * ended while no serve ran, or were deleted).
   */
  private async sweep(open: readonly string[]): Promise<void> {
    const ids = this.toSweep ? [...this.toSweep] : this.board.state.list(REMINDERS_DIR).flatMap((n) => (n.endsWith('.json') ? [n.slice(0, -5)] : []));
    this.toSweep = new Set();
    if (ids.length === 0) return;
    const isOpen = new Set(open);
    const left = ids.filter((id) => isRunId(id) && !isOpen.has(id));
    // A board that never sent a rung has no records: nothing to look up.
    if (left.length === 0 || !this.board.listing.stat(REMINDERS_DIR)) return;
    const states = new Map((await this.reader.summaries()).map((r) => [r.id, r.state]));
    for (const id of left) {
      const st = states.get(id);
      // A run with no RUN.md but its folder may be mid-way through a git pull: its record waits.
      const over = st === 'ended' || st === 'cancelled' || (st === undefined && !this.board.listing.stat(paths.runDir(id)));
      if (over) await this.board.state.remove(remindersFile(id)).catch(() => false);
    }
  }

  /** When a run's next rung goes out (ms since the epoch), or null. Its record is read only when it has an item on a ladder. */
  private async plan(runId: string, state: RunState, pinned: Pinned): Promise<number | null> {
    const items = laddered(this.board, state, pinned);
    if (items.length === 0) return null;
    const records = await this.records(runId);
    let at: number | null = null;
    for (const { st, ladder } of items) {
      const next = nextRung(itemOf(st), ladder, this.calendar, records[st.workItem] ?? {});
      if (next && next.fireAt < (at ?? Infinity)) at = next.fireAt;
    }
    return at;
  }

  /** When each open run's next rung goes out (ms since the epoch); none when WORK.md declares no ladder. */
  async times(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    this.follow();
    const open = await this.reader.openRunIds();
    await this.sweep(open);
    if (!this.any) return out;
    const manifest = this.board.manifest;
    for (const id of open) {
      try {
        const { state, pinned } = await this.reader.read(id, true);
        let p = this.planned.get(id);
        if (p?.state !== state || p.manifest !== manifest) {
          p = { state, manifest, at: await this.plan(id, state, pinned) };
          this.planned.set(id, p);
        }
        if (p.at !== null) out.set(id, p.at);
      } catch {
        // a run that cannot be read now is looked at again on its next change
      }
    }
    // Runs no longer open are planned no more.
    if (this.planned.size > open.length) {
      const isOpen = new Set(open);
      for (const id of [...this.planned.keys()]) if (!isOpen.has(id)) this.forget(id);
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
    this.forget(runId);
    return value;
  }

  /**
   * Each waiting item of a run on its ladder, rung by rung (docs/operators.md
   * "Reminders and escalation ladders"): planned as the daemon plans it, with
   * the record of rungs sent and, for a sent rung, its message's deliveries.
   * Only the items of `stepId` when given; none of them waiting is refused.
   */
  async view(runId: string, stepId?: string): Promise<RunLadders> {
    this.follow();
    const { state, pinned } = await this.reader.read(runId);
    const manifest = this.board.manifest;
    const r = state.run;
    const head = { runId, runTitle: runTitle(pinned.process, r.inputs, manifest.people), timeZone: manifest.notifications.timeZone };
    const waiting = pinned.process.steps.filter((d) => state.steps[d.id]?.workItem && state.steps[d.id]?.state === 'waiting');
    if (stepId !== undefined && !waiting.some((d) => d.id === stepId)) {
      const known = pinned.process.steps.some((d) => d.id === stepId);
      const others = waiting.map((d) => `${d.id} (${stepTitle(d)})`).join(', ');
      throw new BoardError(
        'invalid',
        `${known ? `step ${stepId} of this run has no work item waiting` : `${pinned.process.name} has no step ${stepId}`}; ${others ? `waiting: ${others}` : 'nothing of this run waits for a person'}`,
      );
    }
    const items = laddered(this.board, state, pinned).filter((x) => stepId === undefined || x.def.id === stepId);
    const none =
      items.length > 0
        ? null
        : r.mode === 'test'
          ? 'This is a test run: test runs are never reminded.'
          : r.state === 'ended' || r.state === 'cancelled'
            ? `This run has ${r.state === 'ended' ? 'ended' : 'been cancelled'}: nothing more is sent.`
            : waiting.length === 0
              ? 'Nothing of this run waits for a person now, so no reminder is planned.'
              : `WORK.md declares no reminder ladder for ${stepId ? `this step of ${processTitle(pinned.process)}` : processTitle(pinned.process)} (reminders: ladders:).`;
    if (none) return { ...head, items: [], none };
    const records = parseRecords(await this.board.state.read(remindersFile(runId)));
    const outbox = (
      await Promise.all(
        entryNames(this.board.state)
          .filter((n) => n.startsWith(`${runId}-`))
          .map((n) => readEntry(this.board.state, n)),
      )
    ).filter((e): e is OutboxEntry => e !== null);
    const now = this.now();
    return {
      ...head,
      none: null,
      items: items.map(({ def, st, ladder }) => {
        const done = records[st.workItem] ?? {};
        const assigned = assignment(state, pinned, def, st);
        const rows = ladderRows({ runId, workItemId: st.workItem, mode: r.mode, openedAt: st.readySince, due: st.due, assigned }, ladder, this.calendar, done, manifest, outbox, now.getTime());
        const sentence = ladderSentence(done, nextRung(itemOf(st), ladder, this.calendar, done), now, manifest.people);
        return { stepId: def.id, stepTitle: stepTitle(def), workItemId: st.workItem, due: st.due, openedAt: st.readySince, assigned, sentence, rows };
      }),
    };
  }

  /** Where a waiting item stands on its ladder, as a sentence; null without a ladder, for a test run or a decided item. */
  async sentence(runId: string, workItemId: string): Promise<string | null> {
    if (!this.any) return null;
    this.follow();
    const { state, pinned } = await this.reader.read(runId);
    const found = laddered(this.board, state, pinned).find((x) => x.st.workItem === workItemId);
    if (!found) return null;
    const done = (await this.records(runId))[workItemId] ?? {};
    return ladderSentence(done, nextRung(itemOf(found.st), found.ladder, this.calendar, done), this.now(), this.board.manifest.people);
  }
}

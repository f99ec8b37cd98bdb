/**
 * Slack messages kept true to their work items (docs/operators.md "Slack"):
 * after every commit (any coordinator's, a decision on the web included) and
 * once a minute, each remembered message whose item moved is updated in
 * place: fresh buttons on the item as it is now, or how it ended and no
 * buttons. A message whose update failed (Slack unreachable) keeps its record
 * and is tried again at the next pass, so none stays wrong for long.
 */
import type { Actor } from '../engine/types.js';
import type { Process } from '../process/model.js';
import type { RunView, WorkItemView } from '../protocol/views.js';
import type { Service } from '../service/service.js';
import { servedAt, watchCommits } from '../service/web-board.js';
import { boardBaseUrl } from '../core/public-url.js';
import { exactTime, findings, personName, runTitle, stepTitleOf } from '../words/index.js';
import { messageBlocks, type ItemRef, type MessageAt, type MessageInput } from '../notify/channels/slack-blocks.js';
import { readRecord, recordNames, recordOf, removeRecord, slackError, updateMessage, writeRecord, type MessageRecord } from '../notify/channels/slack.js';

/** Reads made for a message on nobody's behalf. */
const SERVER: Actor = { kind: 'agent', id: 'server' };
/** A message whose update failed is tried again at least this often. */
const SWEEP_MS = 60_000;
/** Commits close together are looked at once. */
const SETTLE_MS = 200;

const DECIDED: Record<string, string> = { approved: 'Approved', rejected: 'Rejected', completed: 'Done', returned: 'Sent back', failed: 'Marked failed' };

export class SlackMessages {
  private watch: { close(): void } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(
    private readonly service: Service,
    private readonly log: (line: string) => void,
  ) {}

  private get board() {
    return this.service.board;
  }

  /** Start watching commits, once a Slack channel is configured (a board without one is not watched at all). */
  start(): void {
    if (this.watch || this.closed || !this.board.manifest.notifications.slack) return;
    let pending: NodeJS.Timeout | null = null;
    this.watch = watchCommits(this.board, () => {
      if (pending) return;
      pending = setTimeout(() => {
        pending = null;
        void this.refresh();
      }, SETTLE_MS);
      pending.unref();
    });
    this.timer = setInterval(() => void this.refresh(), SWEEP_MS);
    this.timer.unref();
    void this.refresh();
  }

  close(): void {
    this.closed = true;
    this.watch?.close();
    if (this.timer) clearInterval(this.timer);
  }

  /** Look at every remembered message, one pass at a time (a call during a pass asks for one more after it). */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        for (const name of recordNames(this.board.state)) {
          const rec = await readRecord(this.board.state, name);
          if (rec) await this.bringUpToDate(rec).catch((err: unknown) => this.log(`slack: message of ${rec.ref.runId} not updated: ${slackError(err)}`));
        }
      } while (this.again && !this.closed);
    })().finally(() => (this.running = null));
    return this.running;
  }

  /** Where the message of an item is, remembered or (clicked on a message posted elsewhere) remembered from now on. */
  async remember(ref: ItemRef, at: MessageAt | null): Promise<MessageRecord | null> {
    const known = await recordOf(this.board.state, ref.runId, ref.workItemId);
    if (known || !at) return known;
    const rec: MessageRecord = { ...at, ref, title: '', lines: [], mentions: [], link: this.link(ref) };
    await writeRecord(this.board.state, rec);
    return rec;
  }

  /** Update one message if its item moved since it was posted or last updated. */
  async bringUpToDate(rec: MessageRecord): Promise<void> {
    const cfg = this.board.manifest.notifications.slack;
    if (!cfg) return;
    const res = await this.service.call('get_run', { runId: rec.ref.runId }, SERVER);
    if (!res.ok) {
      if (res.error.code === 'not_found') await removeRecord(this.board.state, rec);
      return;
    }
    const view = res.data;
    const item = view.workItems.find((w) => w.id === rec.ref.workItemId);
    if (item && item.snapshot === rec.ref.snapshot) return;
    const input = await this.inputFor(rec, view, item ?? null);
    await updateMessage(cfg, this.board.state, rec, messageBlocks(input));
    if (item && input.decide) await writeRecord(this.board.state, { ...rec, ref: input.decide, lines: [...input.lines] });
    else await removeRecord(this.board.state, rec);
  }

  /** The message as the item is now: open (fresh buttons and what the run found by now), or how it ended. */
  async inputFor(rec: Pick<MessageRecord, 'ref' | 'title' | 'mentions' | 'link'>, view: RunView, item: WorkItemView | null): Promise<MessageInput> {
    const process = (await this.service.processVersion(view.run.process, view.run.version))?.process ?? null;
    const title = rec.title || this.titleOf(view, process, rec.ref.stepId);
    const base = { title, link: rec.link || this.link(rec.ref), mentions: rec.mentions };
    if (item && item.kind === 'approve') {
      return { ...base, lines: this.freshLines(view, process, item), decide: { ...rec.ref, snapshot: item.snapshot } };
    }
    return { ...base, lines: [], outcome: this.outcome(view, rec.ref.stepId, await this.cameThroughSlack(view.run.id, rec.ref.stepId)) };
  }

  /** The item as it is now, with what the run found by now: a message about it must not keep saying what changed. */
  freshLines(view: RunView, process: Process | null, item: WorkItemView): string[] {
    const ctx = { people: this.board.manifest.people, timeZone: this.board.manifest.notifications.timeZone };
    const found = process ? findings(process, { data: view.data }, ctx, { longText: 300 }) : [];
    return [
      'Updated: the run changed since this was first posted; this is the item as it is now.',
      item.text,
      ...(found.length > 0 ? ['What was found:', ...found.map((f) => `${f.warning ? '⚠ ' : '- '}${f.label}: ${f.text}`)] : []),
      ...(item.due ? [`Due ${exactTime(item.due, ctx.timeZone)}.`] : []),
    ].filter((l) => l.trim() !== '');
  }

  titleOf(view: RunView, process: Process | null, stepId: string): string {
    const run = process ? runTitle(process, view.data.inputs, this.board.manifest.people) : `${view.run.process} ${view.run.id}`;
    return `${run}: ${stepTitleOf(process, stepId)}`;
  }

  /** Whether the step's last act by a person came through Slack, as its audit line says. */
  private async cameThroughSlack(runId: string, stepId: string): Promise<boolean> {
    const t = await this.service.runTimeline(runId);
    const last = [...(t?.events ?? [])].reverse().find((e) => e.entity === `${runId}/${stepId}` && e.actor.includes('@'));
    return last?.input.changes?.via === 'slack';
  }

  /** How the item ended, in words: "Approved by Fin Nordqvist in Slack, Sat 5 Dec 2026, 11:20 UTC". */
  outcome(view: RunView, stepId: string, inSlack = false): string {
    const people = this.board.manifest.people;
    const tz = this.board.manifest.notifications.timeZone;
    const st = view.data.steps[stepId];
    const done = st && st.by ? st : [...(st?.history ?? [])].reverse().find((c) => c.by);
    if (done?.by) {
      const what = DECIDED[done.decision ?? 'completed'] ?? 'Done';
      return `${what} by ${personName(people, done.by)}${inSlack ? ' in Slack' : ''}${done.at ? `, ${exactTime(done.at, tz)}` : ''}${done.note ? `: “${done.note}”` : ''}`;
    }
    if (view.run.state === 'cancelled') return `The run was cancelled${view.run.ended?.by ? ` by ${personName(people, view.run.ended.by)}` : ''}.`;
    return view.run.state === 'ended' ? 'The run ended: this is no longer open.' : 'No longer open here: the run moved on.';
  }

  link(ref: Pick<ItemRef, 'runId' | 'workItemId'>): string {
    const base = boardBaseUrl(this.board.manifest, { served: servedAt(this.board.state) });
    return new URL(`/work/${ref.runId}/${ref.workItemId}`, base).toString();
  }
}

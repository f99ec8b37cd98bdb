/**
 * The courier delivers what the outbox holds, at least once. Each due
 * delivery is an attempt in its channel's lane (attempts.ts), so channels go
 * out independently and at once: a webhook that hangs delays no email. An
 * attempt holds a lock on its delivery, reads WORK.md and the entry afresh (a
 * person removed or who chose none since is not told), sends within its
 * channel's time, and records the result in the entry under the entry's
 * lock; a failure is tried again with backoff until it is parked for an
 * operator. A crash between sending and recording sends it again, with the
 * same id for the receiver to de-duplicate on. Digests go out once per
 * interval per person (digests.ts). Time comes from the daemon's clock.
 */
import { OUTBOX_DIR } from '../board/layout.js';
import type { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { PackedSet } from '../core/packed-set.js';
import { boardBaseUrl } from '../core/public-url.js';
import { servedAt } from '../board/served-at.js';
import { ATTEMPT_MS, Lanes, PER_CHANNEL, within } from './attempts.js';
import { runCommand } from './channels/command.js';
import { sendEmail } from './channels/email.js';
import { postWebhook, webhookSecret } from './channels/webhook.js';
import { postToSlack } from './channels/slack.js';
import { Digests } from './digests.js';
import { emailOf, webhookBody } from './message.js';
import { deliveryLock, entryLock, entryMadeAt, entryNames, type OutboxEntry, readEntry, RUN_ENTRY_NAME_LENGTH, statusOf, updateDelivery, writeEntry } from './outbox.js';
import type { Notification } from './rules.js';
import { addToBacklog, channelOf, delivered, dueKeys, emptyBacklog, failed, isDue, nextWake, personOf, personSkip, planDeliveries, skipped, type Backlog, type Channel } from './schedule.js';

/** A notification first seen by a courier later than this after it was made is recorded, not sent: it would be stale news. */
const SEND_WITHIN_MS = 24 * 3600_000;
/** How long a finished notification stays in the outbox (for `workboard notifications`) before it is deleted. */
export const KEEP_FINISHED_MS = 7 * 24 * 3600_000;
/** How often the finished notifications are looked at for one past its keeping time: they are many, and age slowly. */
const SWEEP_EVERY_MS = 3600_000;
/** An attempt still going past its time (waiting on a lock) is looked at again this often, never sooner. */
const RECHECK_MS = 1000;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class Courier {
  /**
   * Entries whose every delivery has finished: never read again, only
   * deleted when old. Packed (a long-lived serve finishes thousands an hour
   * and keeps each for a week), with no time kept: a sweep reads it from
   * the name, or the entry.
   */
  private readonly finished = PackedSet.of(RUN_ENTRY_NAME_LENGTH, []);
  private sweptAt = -Infinity;
  /**
   * Attempts started and not yet settled (an entry's delivery, or the digests),
   * with when each should have: the courier looks again then, as a failed
   * digest records nothing in the outbox for the daemon to notice.
   */
  private readonly inFlight = new Map<string, number>();
  /** Attempts asked for again while still in flight: each runs once more when it settles. */
  private readonly askedAgain = new Map<string, () => Promise<void>>();
  private readonly lanes = new Lanes(PER_CHANNEL);
  private readonly digests: Digests;
  /** The outbox as the last pass found it: serve's /readyz and /metrics read it, so they read no files. */
  backlog: Backlog = emptyBacklog();
  /** Attempts made and failed so far, per channel (digests, sent on their own schedule, not counted). */
  readonly attempts: Record<Channel, number> = { command: 0, webhook: 0, email: 0, slack: 0 };
  readonly failures: Record<Channel, number> = { command: 0, webhook: 0, email: 0, slack: 0 };

  constructor(
    private readonly board: Board,
    private readonly now: () => Date,
    private readonly log: (line: string, level?: 'warn') => void,
  ) {
    this.digests = new Digests(board, now, log, () => this.baseUrl);
  }

  private get baseUrl(): string {
    return boardBaseUrl(this.board.manifest, { served: servedAt(this.board.state) });
  }

  /**
   * Start every attempt due now, without waiting for them: each records its
   * own result. Returns when the courier next needs to run (ms since the epoch), or null.
   */
  async run(): Promise<number | null> {
    // WORK.md as it is now: a person removed, a channel changed, since the last run.
    await this.board.refresh();
    let wake: number | null = null;
    const soonest = (t: number | null) => {
      if (t !== null && (wake === null || t < wake)) wake = t;
    };
    const digests: OutboxEntry[] = [];
    const now = this.now().getTime();
    const backlog = emptyBacklog();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) await this.sweep(now);
    for (const name of entryNames(this.board.state)) {
      if (this.finished.has(name)) continue;
      let entry = await readEntry(this.board.state, name);
      if (!entry) continue;
      if (!entry.deliveries) {
        // Nowhere to send it (no channel configured): it stays recorded as it is, and is not read again.
        if (Object.keys(planDeliveries(entry, this.board.manifest, entry.at)).length === 0) {
          this.finished.add(name);
          continue;
        }
        entry = (await this.plan(name)) ?? entry;
      }
      for (const key of dueKeys(entry, this.now())) this.start(name, key);
      addToBacklog(backlog, entry, now);
      const status = statusOf(entry);
      if (status === 'sent' || status === 'not sent') {
        if (now - Date.parse(entry.at) > KEEP_FINISHED_MS) {
          await this.forget(name);
          continue;
        }
        if (!Object.keys(entry.deliveries ?? {}).some((k) => k.startsWith('digest:'))) this.finished.add(name);
      }
      soonest(nextWake(entry, (key) => this.inFlight.has(attemptId(name, key))));
      if (Object.entries(entry.deliveries ?? {}).some(([k, d]) => k.startsWith('digest:') && !d.doneAt && !d.skipped)) digests.push(entry);
    }
    if (digests.length > 0) {
      const plan = await this.digests.plan(digests);
      soonest(plan.wake);
      if (plan.due.size > 0) this.launch('digests', 'email', () => this.digests.send(digests));
    }
    for (const settles of this.inFlight.values()) soonest(Math.max(settles, now + RECHECK_MS));
    this.backlog = backlog;
    return wake;
  }

  /** The finished notifications past their keeping time leave the outbox (one gone or unreadable since leaves the set). */
  private async sweep(now: number): Promise<void> {
    this.sweptAt = now;
    const old: string[] = [];
    for (const name of this.finished.values()) {
      const made = entryMadeAt(name) ?? Date.parse((await readEntry(this.board.state, name))?.at ?? '');
      if (!(now - made <= KEEP_FINISHED_MS)) old.push(name);
    }
    for (const name of old) await this.forget(name);
  }

  /** A finished notification past its keeping time leaves the outbox. */
  private async forget(name: string): Promise<void> {
    await this.board.state.remove(`${OUTBOX_DIR}/${name}`);
    this.finished.delete(name);
  }

  /** Plan an entry's deliveries from WORK.md as it is now, under its lock (another courier may be at it: skip). */
  private async plan(name: string): Promise<OutboxEntry | null> {
    try {
      return await this.board.state.locked(entryLock(name), async () => {
        const e = await readEntry(this.board.state, name);
        if (!e || e.deliveries) return e;
        const stale = this.now().getTime() - Date.parse(e.at) > SEND_WITHIN_MS;
        const planned = { ...e, deliveries: planDeliveries(e, this.board.manifest, this.now().toISOString(), stale ? 'older than a day when a courier first saw it' : undefined) };
        await writeEntry(this.board.state, planned);
        this.log(`notification ${e.id} (${e.kind}${e.mode === 'test' ? ', test run: recorded, not sent' : ''}) → ${e.recipients.join(', ') || 'nobody'}`);
        return planned;
      });
    } catch (err) {
      if (err instanceof BoardError && err.code === 'busy') return null;
      throw err;
    }
  }

  private start(name: string, key: string): void {
    const channel = channelOf(key);
    this.launch(attemptId(name, key), channel, () => this.attempt(name, key, channel));
  }

  /**
   * Run `fn` in the channel's lane unless it is already going; whatever it throws is logged, never lost.
   * Asked again while it is still going (a retry fell due as the last try was being recorded), it runs
   * once more as soon as that one ends: attempts look for themselves whether anything is still due.
   */
  private launch(id: string, channel: Channel, fn: () => Promise<void>): void {
    if (this.inFlight.has(id)) {
      this.askedAgain.set(id, fn);
      return;
    }
    this.inFlight.set(id, this.now().getTime() + ATTEMPT_MS[channel]);
    void this.lanes
      .run(channel, fn)
      .catch((err: unknown) => this.log(`notifications: ${message(err)}`, 'warn'))
      .finally(() => {
        this.inFlight.delete(id);
        const again = this.askedAgain.get(id);
        this.askedAgain.delete(id);
        if (again) this.launch(id, channel, again);
      });
  }

  /** One attempt at one delivery, under the delivery's lock (another courier holding it past the lock's wait: leave it to that one). */
  private async attempt(name: string, key: string, channel: Channel): Promise<void> {
    try {
      await this.board.state.locked(deliveryLock(name, key), async () => {
        // WORK.md and the entry as they are at this attempt: a person may have left or chosen none, another courier may have sent it.
        await this.board.refresh();
        const e = await readEntry(this.board.state, name);
        const d = e?.deliveries?.[key];
        if (!e || !d || !isDue(d, this.now())) return;
        const who = personOf(key);
        const why = who === null ? null : personSkip(this.board.manifest, who);
        if (why) {
          await updateDelivery(this.board.state, name, key, (now) => skipped(now, why));
          return;
        }
        let error: string | null = null;
        this.attempts[channel]++;
        try {
          await within(ATTEMPT_MS[channel], `the ${channel}`, (signal) => this.send(key, e, signal));
        } catch (err) {
          error = message(err);
          this.failures[channel]++;
        }
        const at = this.now();
        const next = await updateDelivery(this.board.state, name, key, (now) =>
          error === null ? delivered(now, at.toISOString()) : failed(now, error, at, this.board.manifest.notifications.maxAttempts),
        );
        if (error !== null) this.log(`notification ${e.id} via ${key}: ${error}${next?.parkedAt ? ` — parked after ${next.attempts} attempts` : ''}`, 'warn');
      });
    } catch (err) {
      if (!(err instanceof BoardError && err.code === 'busy')) throw err;
    }
  }

  private async send(key: string, n: Notification, signal: AbortSignal): Promise<void> {
    const m = this.board.manifest;
    if (key === 'command') {
      if (!m.notify) throw new Error('no notify command is configured any more');
      return runCommand(m.notify, this.board.root, webhookBody(n, this.baseUrl, m.people), signal);
    }
    if (key === 'webhook') {
      const cfg = m.notifications.webhook;
      if (!cfg) throw new Error('no webhook is configured any more');
      return postWebhook(cfg.url, webhookBody(n, this.baseUrl, m.people), { id: n.id, at: n.at, secret: await webhookSecret(cfg, this.board.state) }, signal);
    }
    if (key === 'slack') {
      const cfg = m.notifications.slack;
      if (!cfg) throw new Error('no Slack channel is configured any more');
      return postToSlack(cfg, this.board.state, n, this.baseUrl, m.people, signal);
    }
    if (key.startsWith('email:')) {
      const cfg = m.notifications.email;
      if (!cfg) throw new Error('no email is configured any more');
      return sendEmail(cfg, key.slice('email:'.length), emailOf(n, this.baseUrl, m.title), signal);
    }
    throw new Error(`no channel ${key}`);
  }
}

const attemptId = (name: string, key: string) => `${name} ${key}`;

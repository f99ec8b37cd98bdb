/**
 * The courier delivers what the outbox holds, at least once: each delivery
 * is tried under a lock on its notification, recorded when it went out, and
 * tried again with backoff when it failed, until it is parked for an
 * operator. A crash between sending and recording sends it again, with the
 * same id for the receiver to de-duplicate on. Digests go out once per
 * interval per person. Time comes from the daemon's clock.
 */
import { readIfExists, removeIfExists, writeFileAtomic } from '../board/fsutil.js';
import { OUTBOX_DIR, STATE_DIR } from '../board/layout.js';
import type { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { baseUrlFor } from '../web/config.js';
import { runCommand } from './channels/command.js';
import { sendEmail } from './channels/email.js';
import { postWebhook, webhookSecret } from './channels/webhook.js';
import { digestOf, emailOf, linkOf, webhookBody } from './message.js';
import { entryNames, readEntry, statusOf, writeEntry, type OutboxEntry } from './outbox.js';
import type { Notification } from './rules.js';
import { delivered, dueKeys, failed, nextWake, planDeliveries } from './schedule.js';

const DIGESTS_FILE = `${STATE_DIR}/notifications-digests.json`;
/** A notification first seen by a courier later than this after it was made is recorded, not sent: it would be stale news. */
const SEND_WITHIN_MS = 24 * 3600_000;
/** How long a finished notification stays in the outbox (for `workboard notifications`) before it is deleted. */
export const KEEP_FINISHED_MS = 7 * 24 * 3600_000;

export class Courier {
  /** Entries whose every delivery has finished, with when each was made: never read again, only deleted when old. */
  private readonly finished = new Map<string, number>();

  constructor(
    private readonly board: Board,
    private readonly now: () => Date,
    private readonly log: (line: string) => void,
  ) {}

  private get baseUrl(): string {
    return baseUrlFor(this.board.manifest.notifications.baseUrl ?? undefined);
  }

  /** Deliver everything due now. Returns when the courier next needs to run (ms since the epoch), or null. */
  async run(): Promise<number | null> {
    // WORK.md as it is now: a person removed, a channel changed, since the last run.
    await this.board.refresh();
    let wake: number | null = null;
    const soonest = (t: number | null) => {
      if (t !== null && (wake === null || t < wake)) wake = t;
    };
    const digests: OutboxEntry[] = [];
    const now = this.now().getTime();
    for (const name of await entryNames(this.board.store)) {
      const made = this.finished.get(name);
      if (made !== undefined) {
        if (now - made > KEEP_FINISHED_MS) await this.forget(name);
        continue;
      }
      let entry = await readEntry(this.board.store, name);
      if (!entry) continue;
      // Nowhere to send it (no channel configured): it stays recorded as it is, and is not read again.
      if (!entry.deliveries && Object.keys(planDeliveries(entry, this.board.manifest, entry.at)).length === 0) {
        this.finished.set(name, Date.parse(entry.at));
        continue;
      }
      if (!entry.deliveries || dueKeys(entry, this.now()).length > 0) entry = (await this.work(name)) ?? entry;
      const status = statusOf(entry);
      if (status === 'sent' || status === 'not sent') {
        if (now - Date.parse(entry.at) > KEEP_FINISHED_MS) {
          await this.forget(name);
          continue;
        }
        if (!Object.keys(entry.deliveries ?? {}).some((k) => k.startsWith('digest:'))) this.finished.set(name, Date.parse(entry.at));
      }
      soonest(nextWake(entry));
      if (Object.entries(entry.deliveries ?? {}).some(([k, d]) => k.startsWith('digest:') && !d.doneAt && !d.skipped)) digests.push(entry);
    }
    soonest(await this.digests(digests));
    return wake;
  }

  /** A finished notification past its keeping time leaves the outbox. */
  private async forget(name: string): Promise<void> {
    await removeIfExists(this.board.store.abs(`${OUTBOX_DIR}/${name}`));
    this.finished.delete(name);
  }

  /** Plan and try the due deliveries of one entry, under its lock (another courier may hold it: skip). */
  private async work(name: string): Promise<OutboxEntry | null> {
    try {
      return await this.board.store.exclusive(`${STATE_DIR}/locks/notify-${name.replace(/\.json$/, '')}.lock`, '', async () => {
        let e = await readEntry(this.board.store, name);
        if (!e) return null;
        const m = this.board.manifest;
        if (!e.deliveries) {
          const stale = this.now().getTime() - Date.parse(e.at) > SEND_WITHIN_MS;
          e = { ...e, deliveries: planDeliveries(e, m, this.now().toISOString(), stale ? 'older than a day when a courier first saw it' : undefined) };
          await writeEntry(this.board.store, e);
          this.log(`notification ${e.id} (${e.kind}${e.mode === 'test' ? ', test run: recorded, not sent' : ''}) → ${e.recipients.join(', ') || 'nobody'}`);
        }
        for (const key of dueKeys(e, this.now())) {
          const d = e.deliveries![key]!;
          let next;
          try {
            await this.send(key, e);
            next = delivered(d, this.now().toISOString());
          } catch (err) {
            const why = err instanceof Error ? err.message : String(err);
            next = failed(d, why, this.now(), m.notifications.maxAttempts);
            this.log(`notification ${e.id} via ${key}: ${why}${next.parkedAt ? ` — parked after ${next.attempts} attempts` : ''}`);
          }
          e = { ...e, deliveries: { ...e.deliveries, [key]: next } };
          await writeEntry(this.board.store, e);
        }
        return e;
      });
    } catch (err) {
      if (err instanceof BoardError && err.code === 'busy') return null;
      throw err;
    }
  }

  private async send(key: string, n: Notification): Promise<void> {
    const m = this.board.manifest;
    if (key === 'command') {
      if (!m.notify) throw new Error('no notify command is configured any more');
      const { recipients, ...rest } = n;
      return runCommand(m.notify, this.board.root, JSON.stringify({ ...rest, recipients, link: linkOf(n, this.baseUrl) }));
    }
    if (key === 'webhook') {
      const cfg = m.notifications.webhook;
      if (!cfg) throw new Error('no webhook is configured any more');
      return postWebhook(cfg.url, webhookBody(n, this.baseUrl), { id: n.id, at: n.at, secret: await webhookSecret(cfg, this.board.root) });
    }
    if (key.startsWith('email:')) {
      const cfg = m.notifications.email;
      if (!cfg) throw new Error('no email is configured any more');
      return sendEmail(cfg, key.slice('email:'.length), emailOf(n, this.baseUrl));
    }
    throw new Error(`no channel ${key}`);
  }

  /**
   * One message per person per interval listing what is new: due once the
   * interval since their last digest (or since the oldest waiting item) has passed.
   */
  private async digests(entries: OutboxEntry[]): Promise<number | null> {
    if (entries.length === 0) return null;
    const m = this.board.manifest;
    const interval = m.notifications.digestMinutes * 60_000;
    const sentAt = await this.digestTimes();
    const byPerson = new Map<string, OutboxEntry[]>();
    for (const e of entries) {
      for (const [k, d] of Object.entries(e.deliveries ?? {})) {
        if (!k.startsWith('digest:') || d.doneAt || d.skipped) continue;
        const who = k.slice('digest:'.length);
        byPerson.set(who, [...(byPerson.get(who) ?? []), e]);
      }
    }
    let wake: number | null = null;
    const now = this.now().getTime();
    for (const [who, items] of byPerson) {
      const last = sentAt[who] !== undefined ? Date.parse(sentAt[who]!) : Math.min(...items.map((e) => Date.parse(e.at)));
      const dueAt = last + interval;
      if (dueAt > now) {
        wake = wake === null ? dueAt : Math.min(wake, dueAt);
        continue;
      }
      const key = `digest:${who}`;
      const cfg = m.notifications.email;
      try {
        if (!cfg) throw new Error('no email is configured any more');
        await sendEmail(cfg, who, digestOf(items, this.baseUrl, m.name));
      } catch (err) {
        this.log(`digest for ${who}: ${err instanceof Error ? err.message : String(err)}; tried again in ${m.notifications.digestMinutes} min`);
        wake = wake === null ? now + interval : Math.min(wake, now + interval);
        continue;
      }
      sentAt[who] = this.now().toISOString();
      await writeFileAtomic(this.board.store.abs(DIGESTS_FILE), `${JSON.stringify(sentAt, null, 2)}\n`);
      for (const e of items) await this.markDigest(e, key);
      this.log(`digest for ${who}: ${items.length} notification(s)`);
    }
    return wake;
  }

  private async digestTimes(): Promise<Record<string, string>> {
    const bytes = await readIfExists(this.board.store.abs(DIGESTS_FILE));
    try {
      return bytes ? (JSON.parse(bytes.toString('utf8')) as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  private async markDigest(e: OutboxEntry, key: string): Promise<void> {
    const name = `${e.runId ?? 'board'}-${e.id}`;
    await this.board.store.exclusive(`${STATE_DIR}/locks/notify-${name}.lock`, '', async () => {
      const now = await readEntry(this.board.store, `${name}.json`);
      const d = now?.deliveries?.[key];
      if (!now || !d) return;
      await writeEntry(this.board.store, { ...now, deliveries: { ...now.deliveries, [key]: delivered(d, this.now().toISOString()) } });
    });
  }
}

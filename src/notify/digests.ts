/**
 * Digests: one message per person per interval listing what is new, due once
 * the interval since their last digest (or since the oldest waiting item) has
 * passed. A courier sends them holding the board's digest lock
 * (`board.state.locked('notify-digests')`), which guards the record of when
 * each person last had one (`.work/notifications-digests.json`) from the
 * check through the send to the write: two couriers on one board never both
 * send one digest. A crash between sending
 * and recording sends it again, as for every delivery.
 */
import type { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { DIGESTS_FILE } from '../board/layout.js';
import { ATTEMPT_MS, within } from './attempts.js';
import { sendEmail } from './channels/email.js';
import { digestOf } from './message.js';
import { entryName, readEntry, updateDelivery, type OutboxEntry } from './outbox.js';
import { delivered, personSkip, skipped } from './schedule.js';

const DIGEST_LOCK = 'notify-digests';

export interface DigestPlan {
  /** Each person due a digest now, with the entries it lists. */
  due: Map<string, OutboxEntry[]>;
  /** When the next digest falls due (ms since the epoch), or null. */
  wake: number | null;
}

/** Who is due a digest now (pure). `notBefore` holds back a person whose last try failed or was another courier's. */
export function planDigests(entries: readonly OutboxEntry[], sentAt: Readonly<Record<string, string>>, intervalMs: number, now: number, notBefore: ReadonlyMap<string, number>): DigestPlan {
  const waiting = new Map<string, OutboxEntry[]>();
  for (const e of entries) {
    for (const [k, d] of Object.entries(e.deliveries ?? {})) {
      if (!k.startsWith('digest:') || d.doneAt || d.skipped) continue;
      const who = k.slice('digest:'.length);
      waiting.set(who, [...(waiting.get(who) ?? []), e]);
    }
  }
  const due = new Map<string, OutboxEntry[]>();
  let wake: number | null = null;
  for (const [who, items] of waiting) {
    const last = sentAt[who] !== undefined ? Date.parse(sentAt[who]) : Math.min(...items.map((e) => Date.parse(e.at)));
    const at = Math.max(last + intervalMs, notBefore.get(who) ?? 0);
    if (at <= now) due.set(who, items);
    else wake = wake === null ? at : Math.min(wake, at);
  }
  return { due, wake };
}

export class Digests {
  private readonly notBefore = new Map<string, number>();

  constructor(
    private readonly board: Board,
    private readonly now: () => Date,
    private readonly log: (line: string) => void,
    private readonly baseUrl: () => string,
  ) {}

  /** What is due among these entries by the record as it is now (read without the lock; `send` reads it again under it). */
  async plan(entries: readonly OutboxEntry[]): Promise<DigestPlan> {
    return planDigests(entries, await this.sentAt(), this.intervalMs, this.now().getTime(), this.notBefore);
  }

  /** Send the digests due among these entries. The lock is only tried: whoever holds it is sending them. */
  async send(entries: readonly OutboxEntry[]): Promise<void> {
    try {
      await this.board.state.locked(DIGEST_LOCK, () => this.sendHolding(entries), { waitMs: 0 });
    } catch (err) {
      if (!(err instanceof BoardError && err.code === 'busy')) throw err;
      // By then the other courier has sent them, failed, or died (and its lock can be broken).
      const again = this.now().getTime() + ATTEMPT_MS.email;
      for (const who of (await this.plan(entries)).due.keys()) this.notBefore.set(who, again);
      this.log(`digests: another courier is sending them; this one looks again in ${ATTEMPT_MS.email / 1000} s`);
    }
  }

  private get intervalMs(): number {
    return this.board.manifest.notifications.digestMinutes * 60_000;
  }

  private async sendHolding(seen: readonly OutboxEntry[]): Promise<void> {
    const state = this.board.state;
    // WORK.md and the outbox as they are now, under the lock: another courier may have sent some meanwhile, a person may have left.
    await this.board.refresh();
    const m = this.board.manifest;
    const entries = (await Promise.all(seen.map((e) => readEntry(state, entryName(e))))).filter((e): e is OutboxEntry => e !== null);
    const sentAt = await this.sentAt();
    for (const [who, items] of planDigests(entries, sentAt, this.intervalMs, this.now().getTime(), this.notBefore).due) {
      const key = `digest:${who}`;
      const why = personSkip(m, who);
      if (why) {
        for (const e of items) await updateDelivery(state, entryName(e), key, (d) => skipped(d, why));
        continue;
      }
      try {
        const cfg = m.notifications.email;
        if (!cfg) throw new Error('no email is configured any more');
        await within(ATTEMPT_MS.email, 'the email', (signal) => sendEmail(cfg, who, digestOf(items, this.baseUrl(), m.title, m.notifications.timeZone), signal));
      } catch (err) {
        this.notBefore.set(who, this.now().getTime() + this.intervalMs);
        this.log(`digest for ${who}: ${err instanceof Error ? err.message : String(err)}; tried again in ${m.notifications.digestMinutes} min`);
        continue;
      }
      this.notBefore.delete(who);
      const at = this.now().toISOString();
      sentAt[who] = at;
      await state.replace(DIGESTS_FILE, `${JSON.stringify(sentAt, null, 2)}\n`);
      for (const e of items) await updateDelivery(state, entryName(e), key, (d) => delivered(d, at));
      this.log(`digest for ${who}: ${items.length} notification(s)`);
    }
  }

  private async sentAt(): Promise<Record<string, string>> {
    const bytes = await this.board.state.read(DIGESTS_FILE);
    try {
      return bytes ? (JSON.parse(bytes.toString('utf8')) as Record<string, string>) : {};
    } catch {
      return {};
    }
  }
}

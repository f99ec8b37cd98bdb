/**
 * The board's clock: which clone's coordinator applies timers (a `wait`
 * ending, a `wait_for` timing out, a step going overdue) when several clones
 * run `serve --git-sync` (docs/git.md "Timers once per board"). Every clone
 * computes those deadlines as it reads (a run looks overdue everywhere), but
 * only the holder writes them down, so a timer is one transition on the
 * board, not one per clone that the merge must set aside.
 *
 * The holder is named in `audit/clock.json`, a lease that travels with the
 * board through git: `{holder, key, since, until}`. The holder renews it at
 * its syncs once half of it is spent; a clone whose sync finds it absent or
 * run out takes it. A coordinator counts as holding the clock only once a
 * sync has carried its lease to the remote, and the remote decides between
 * two clones that take it between the same two syncs: the second to get
 * there finds the first's lease fetched, running, and changed since the two
 * last agreed, and gives its own change up before it merges (givesWay), so a
 * lease the remote confirmed is never displaced by one taken earlier and
 * pushed later. The merge itself stays alike whichever way round (mergeClock).
 */
import os from 'node:os';
import { sha256Hex } from '../core/hash.js';
import type { Board } from '../board/board.js';
import { Repo } from './repo.js';

export const CLOCK_FILE = 'audit/clock.json';

export interface ClockLease {
  /** Who holds it, in words: the clone's git user.email (a WORK.md person in a team's setup). */
  holder: string;
  /** The holding coordinator's signing key fingerprint: what tells one clone from another. */
  key: string;
  since: string;
  until: string;
}

const isLease = (v: unknown): v is ClockLease => typeof v === 'object' && v !== null && ['holder', 'key', 'since', 'until'].every((k) => typeof (v as Record<string, unknown>)[k] === 'string');

/** The lease a file's text holds, or null (absent, or not a lease: then the next sync takes it anew). */
export function parseClock(text: string | null): ClockLease | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return isLease(v) && Number.isFinite(Date.parse(v.until)) ? v : null;
  } catch {
    return null;
  }
}

export function clockText(lease: ClockLease): string {
  return `${JSON.stringify({ holder: lease.holder, key: lease.key, since: lease.since, until: lease.until }, null, 2)}\n`;
}

/** Does `key` hold the clock at `now`? */
export function holdsClock(lease: ClockLease | null, key: string, now: Date): boolean {
  return lease !== null && lease.key === key && Date.parse(lease.until) > now.getTime();
}

/**
 * Before a sync: the lease this coordinator writes (taking it when it is
 * absent or has run out, renewing its own once half is spent), or null when
 * it leaves the file as it is. Pure.
 */
export function nextClock(current: ClockLease | null, me: { holder: string; key: string }, now: Date, leaseMs: number): ClockLease | null {
  const t = now.getTime();
  const until = new Date(t + leaseMs).toISOString();
  if (current === null || Date.parse(current.until) <= t) return { holder: me.holder, key: me.key, since: now.toISOString(), until };
  if (current.key !== me.key) return null;
  if (Date.parse(current.until) - t > leaseMs / 2) return null;
  return { ...current, holder: me.holder, until };
}

/** The lease as the board's files hold it now. */
export async function readClock(board: Board): Promise<ClockLease | null> {
  return parseClock((await board.store.readBytes(CLOCK_FILE, { fresh: true }))?.toString('utf8') ?? null);
}

/** Take or renew the clock before a sync (nextClock), through the board's lock. Returns the lease written, or null. */
export async function claimClock(board: Board, me: { holder: string; key: string }, now: Date, leaseMs: number): Promise<ClockLease | null> {
  const bytes = await board.store.readBytes(CLOCK_FILE, { fresh: true });
  const next = nextClock(parseClock(bytes?.toString('utf8') ?? null), me, now, leaseMs);
  if (next === null) return null;
  await board.store.replace([{ scope: { kind: 'board' }, files: [{ rel: CLOCK_FILE, from: bytes === null ? null : sha256Hex(bytes), to: Buffer.from(clockText(next)) }] }]);
  return next;
}

/**
 * Before a sync merges what it fetched (docs/git.md "Timers once per board"):
 * does this clone's change to the clock give way to the remote's? Yes when
 * both changed it since they last agreed (`base`, the merge base) and the
 * remote's is another clone's lease still running at `now`. This clone's
 * change never reached the remote (else the base would hold it), and the
 * remote's did first: the remote's compare-and-swap of its branch, not the
 * leases' own times, says which take came first. Pure.
 */
export function givesWay(base: string | null, ours: string | null, theirs: string | null, key: string, now: Date): boolean {
  if (theirs === base || ours === base || ours === theirs) return false;
  const t = parseClock(theirs);
  return t !== null && t.key !== key && Date.parse(t.until) > now.getTime();
}

/**
 * Before a sync merges `theirs` (the remote's commit) into `ours` (this
 * clone's HEAD, null before its first commit): when this clone's change to
 * the clock gives way (givesWay), the board's clock file becomes the
 * remote's, through the board's lock, for the sync to commit. Returns
 * whether it did.
 */
export async function yieldClock(board: Board, repo: Repo, ours: string | null, theirs: string, now: Date): Promise<boolean> {
  // No clock here (a board no serve --git-sync runs on), or the remote has nothing this clone lacks: nothing to give way to.
  if (ours === theirs) return false;
  const bytes = await board.store.readBytes(CLOCK_FILE, { fresh: true });
  if (bytes === null) return false;
  const base = ours === null ? null : (await repo.run(['merge-base', ours, theirs], { allow: [1] })).stdout.toString('utf8').trim() || null;
  if (base === theirs) return false;
  const [t = null, b = null] = await repo.fileAt(base === null ? [theirs] : [theirs, base], CLOCK_FILE);
  const text = (x: Buffer | null) => x?.toString('utf8') ?? null;
  if (t === null || !givesWay(text(b), text(bytes), text(t), await board.store.signingFingerprint(), now)) return false;
  await board.store.replace([{ scope: { kind: 'board' }, files: [{ rel: CLOCK_FILE, from: sha256Hex(bytes), to: t }] }]);
  return true;
}

/** The clone's name in a lease: its git user.email, else the host's name. */
export async function cloneName(board: Board): Promise<string> {
  const repo = await Repo.at(board.root);
  const email = repo ? (await repo.run(['config', 'user.email'], { allow: [1] })).stdout.toString('utf8').trim() : '';
  return email !== '' ? email : os.hostname();
}

/** The lease unless serve is told otherwise: 5 minutes, or 3 syncs when they are further apart. */
export function clockLeaseMs(syncMs: number): number {
  return Math.max(5 * 60_000, 3 * syncMs);
}

/** A coordinator's part in the clock, around each of its syncs. */
export class BoardClock {
  /** The lease as the last sync that reached the remote left it, and whether it named this clone. */
  private confirmed: { lease: ClockLease | null; mine: boolean } = { lease: null, mine: false };
  /** This clone's name in a lease (cloneName). */
  private name: Promise<string> | null = null;

  constructor(
    private readonly board: Board,
    private readonly leaseMs: number,
  ) {}

  /** Held now: the remote named this clone at the last sync, and that lease has not run out (a clone cut off from the remote lets it lapse). */
  heldAt(now: Date): boolean {
    return this.confirmed.mine && this.confirmed.lease !== null && Date.parse(this.confirmed.lease.until) > now.getTime();
  }

  /** Before a sync: take the clock when nobody holds it, or renew this clone's lease. */
  async beforeSync(now: Date): Promise<void> {
    // Asked once (two git processes): a clone's user.email set while serve runs names it from the next start.
    this.name ??= cloneName(this.board);
    const me = { holder: await this.name, key: await this.board.store.signingFingerprint() };
    await claimClock(this.board, me, now, this.leaseMs);
  }

  /** After a sync that reached the remote: the lease the board now has, and whether holding changed. */
  async afterSync(now: Date): Promise<{ lease: ClockLease | null; changed: boolean }> {
    const before = this.heldAt(now);
    const lease = await readClock(this.board);
    this.confirmed = { lease, mine: holdsClock(lease, await this.board.store.signingFingerprint(), now) };
    return { lease, changed: this.heldAt(now) !== before };
  }
}

/**
 * The clock file changed on both sides: a lease that had run out when the
 * other was taken gives way to it; two clones that took the clock between
 * the same two syncs keep the lease taken first (then the greater key).
 * Alike whichever way round. Pure. A sync rarely gets here with two
 * different leases: the side that did not reach the remote gave way first
 * (yieldClock); this decides where no remote did (two clones' merges that
 * meet in a criss-cross, a branch merged from another clone directly).
 */
export function mergeClock(ours: string, theirs: string): string {
  const [o, t] = [parseClock(ours), parseClock(theirs)];
  if (o === null || t === null) return o === null ? theirs : ours;
  const ms = (iso: string) => Date.parse(iso);
  if (ms(o.until) <= ms(t.since) !== ms(t.until) <= ms(o.since)) return ms(o.until) <= ms(t.since) ? theirs : ours;
  if (o.since !== t.since) return o.since < t.since ? ours : theirs;
  return o.key >= t.key ? ours : theirs;
}

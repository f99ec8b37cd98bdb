/**
 * Which ready work a clone offers when several clones share a board through
 * git (docs/git.md "Offered first where it became ready"). A claim lives in
 * its clone's `.work/`, so without this every clone offered every ready step
 * to its own agents, and all their work but one was set aside at the next
 * sync. The rule, read off the run's audit chain, which travels with the run:
 * - work that became ready here (the line that made it ready is signed by
 *   this clone's key) is offered here at once, as on a board of one clone;
 * - work that became ready on another clone is offered on the others in
 *   turns: each step draws an order of those clones from their keys on
 *   record (the same order on every clone), and the clone at turn k offers
 *   it once k + 1 graces have passed since that line. A grace is time for
 *   the clone before to claim it and for the syncs to carry the claim here,
 *   so no two clones offer it at one moment and race for it. While a serve
 *   syncs here on a timer, a turn also waits for three of its syncs to get
 *   through after the turn before it began (syncs that fail or back off
 *   carry nothing); no turn waits more than MOST_HELD_MS past that line;
 * - work whose chain shows another clone's claim still running (a claim or
 *   renewal line signed by another key, its lease not run out, no line since
 *   that ended it) is not offered here.
 * get_work lists by this rule. A claim asked for by id is refused only for
 * another clone's claim still running (offered-here.ts); a claim of work in
 * its grace, and a decision, asked for by id are taken as always. Pure.
 */
import type { SyncState } from './sync-state.js';

/** Of an audit line, what the rule reads. */
export interface OfferLine {
  ts: string;
  action: string;
  entity: string;
  signer?: string;
  /** A claim's or renewal's lease end. */
  expiresAt?: string;
}

/** Lines after which a step is ready (or its work item open) again: its readiness begins at the line's clone. */
const READY_ACTIONS: ReadonlySet<string> = new Set(['step.ready', 'work-item.opened', 'lease.expired', 'claim.ended']);
const CLAIM_ACTIONS: ReadonlySet<string> = new Set(['step.claimed', 'step.renewed']);

/** Why a clone does not offer a step now, and until when at the latest (ISO time), or null: it is offered. */
export type Held = { why: 'claimed-elsewhere' | 'ready-elsewhere'; until: string } | null;

/** How long work that became ready on another clone waits here before it is offered. */
export interface OfferGrace {
  /** One turn's wait after the line that made it ready. */
  ms: number;
  /** While a serve syncs here on a timer: when its last good syncs ended, oldest first. */
  goodSyncs?: readonly string[];
  /** The clones that take turns: this clone's key (none for a clone that has none yet), and every key on record mapped to its clone's newest key. */
  turns?: Turns;
}

export interface Turns {
  key?: string;
  current: ReadonlyMap<string, string>;
}

/**
 * A number in [0, 1) drawn from `text` (32-bit FNV-1a): the same text, the
 * same draw, on every clone and every call.
 */
function draw(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h / 2 ** 32;
}

/**
 * This clone's turn (0 first) among the clones other than the one whose line
 * made `entity` ready at `readyAt`, in the order drawn for that step: the same
 * order on every clone that has the same keys on record. A clone with no key
 * on record yet goes after all of them.
 */
export function turnOf(turns: Turns, entity: string, readyAt: string, readySigner: string): number {
  const readyClone = turns.current.get(readySigner) ?? readySigner;
  const others = [...new Set(turns.current.values())].filter((k) => k !== readyClone);
  const order = others.map((k) => ({ k, d: draw(`${k}\0${entity}\0${readyAt}`) })).sort((a, b) => a.d - b.d || (a.k < b.k ? -1 : 1));
  const i = turns.key === undefined ? -1 : order.findIndex((o) => o.k === turns.key);
  return i === -1 ? others.length : i;
}

/**
 * How long after the line that made `entity` ready it is held back here
 * (`ms`: one grace per turn up to this clone's), and from when on, after that
 * line, the good syncs that must get through count (`syncsFrom`: the turn
 * before this one began, the earliest its clone could have claimed it).
 */
export function waitFor(grace: OfferGrace, entity: string, readyAt: string, readySigner: string): { ms: number; syncsFrom: number } {
  const turn = grace.turns ? turnOf(grace.turns, entity, readyAt, readySigner) : 0;
  return { ms: Math.min(grace.ms * (turn + 1), MOST_HELD_MS), syncsFrom: Math.min(grace.ms * turn, MOST_HELD_MS) };
}

/** Good syncs after the ready line that the grace waits for, while a serve syncs here. */
export const SYNCS_IN_GRACE = 3;
/**
 * The longest a step waits for those syncs: a clone whose syncs keep failing
 * cannot learn of a claim made elsewhere anyway, and work left unoffered for
 * longer would look lost to the people and agents here.
 */
export const MOST_HELD_MS = 15 * 60_000;

/**
 * Is the step `entity` (`<run>/<step>`) held back here? `mine`: this clone's
 * keys (its key and the ones it was rotated from); a line without a signer
 * (a board older than signing) counts as this clone's.
 */
export function heldElsewhere(lines: readonly OfferLine[], entity: string, mine: ReadonlySet<string>, now: Date, grace: OfferGrace): Held {
  let ready: OfferLine | null = null;
  let claim: OfferLine | null = null;
  for (const l of lines) {
    if (l.entity !== entity) continue;
    if (READY_ACTIONS.has(l.action)) {
      ready = l;
      claim = null;
    } else if (CLAIM_ACTIONS.has(l.action)) claim = l;
    else claim = null;
  }
  const t = now.getTime();
  const foreign = (l: OfferLine): l is OfferLine & { signer: string } => l.signer !== undefined && !mine.has(l.signer);
  if (claim && foreign(claim) && claim.expiresAt !== undefined && Date.parse(claim.expiresAt) > t) return { why: 'claimed-elsewhere', until: claim.expiresAt };
  if (ready && foreign(ready)) {
    const from = Date.parse(ready.ts);
    if (!Number.isFinite(from)) return null;
    const until = (ms: number): Held => ({ why: 'ready-elsewhere', until: new Date(ms).toISOString() });
    const wait = waitFor(grace, entity, ready.ts, ready.signer);
    if (from + wait.ms > t) return until(from + wait.ms);
    const latest = from + MOST_HELD_MS;
    const syncedSince = grace.goodSyncs?.filter((g) => Date.parse(g) > from + wait.syncsFrom).length ?? SYNCS_IN_GRACE;
    if (syncedSince < SYNCS_IN_GRACE && latest > t) return until(latest);
  }
  return null;
}

/** A chain file's lines as the rule reads them; a line it cannot read is left out (verify reports it, not get_work). */
export function offerLines(text: string): OfferLine[] {
  const out: OfferLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const o = v as Record<string, unknown>;
    if (typeof o.ts !== 'string' || typeof o.action !== 'string' || typeof o.entity !== 'string') continue;
    const changes = typeof o.input === 'object' && o.input !== null ? (o.input as { changes?: unknown }).changes : undefined;
    const expiresAt = typeof changes === 'object' && changes !== null ? (changes as { expiresAt?: unknown }).expiresAt : undefined;
    out.push({ ts: o.ts, action: o.action, entity: o.entity, ...(typeof o.signer === 'string' ? { signer: o.signer } : {}), ...(typeof expiresAt === 'string' ? { expiresAt } : {}) });
  }
  return out;
}

/**
 * The grace before work that became ready on another clone is offered here,
 * per turn: three of serve --git-sync's intervals, else three minutes; the
 * clones that take turns (`turns`); and, while that serve runs, its good syncs.
 */
export function offerGrace(sync: Pick<SyncState, 'everyMs' | 'goodAt'> | null, running: boolean, turns?: Turns): OfferGrace {
  return { ms: 3 * (sync?.everyMs ?? 60_000), ...(sync && running ? { goodSyncs: sync.goodAt } : {}), ...(turns ? { turns } : {}) };
}

/** Every key on record mapped to its clone's newest key (following each record's `rotates`): one turn per clone, whatever key signed its lines. */
export function currentKeys(records: readonly { fingerprint: string; rotates?: string }[]): Map<string, string> {
  const next = new Map<string, string>();
  for (const r of records) if (r.rotates !== undefined) next.set(r.rotates, r.fingerprint);
  const out = new Map<string, string>();
  for (const r of records) {
    let k = r.fingerprint;
    const seen = new Set([k]);
    for (let n = next.get(k); n !== undefined && !seen.has(n); n = next.get(n)) seen.add((k = n));
    out.set(r.fingerprint, k);
  }
  return out;
}

/**
 * This clone's keys: its own, and every key it was rotated from (each
 * record's `rotates`), so its lines from before a rotation are still its own.
 */
export function ownKeys(mine: string, records: readonly { fingerprint: string; rotates?: string }[]): Set<string> {
  const out = new Set([mine]);
  const from = new Map<string, string>();
  for (const r of records) if (r.rotates !== undefined) from.set(r.fingerprint, r.rotates);
  for (let k: string | undefined = from.get(mine); k !== undefined && !out.has(k); k = from.get(k)) out.add(k);
  return out;
}

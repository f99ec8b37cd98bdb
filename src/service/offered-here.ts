/**
 * The reads behind clone-offer.ts's rule for one get_work call: whether the
 * board has more than one clone's key on record, this clone's own keys, the
 * grace (from `serve --git-sync`'s interval and its good syncs), and each candidate run's chain
 * (docs/git.md "Offered first where it became ready"). A board whose keys on
 * record are all this clone's (one clone, or none in git) gets null, and
 * get_work lists what it always did.
 */
import type { Board } from '../board/board.js';
import { paths, SIGNING_KEY_FILE } from '../board/layout.js';
import { KEY_DIR } from '../board/signing.js';
import type { RunState } from '../engine/types.js';
import type { RunWriteCall } from '../protocol/calls.js';
import { ToolError } from '../protocol/errors.js';
import { currentKeys, heldElsewhere, offerGrace, offerLines, ownKeys, type OfferLine } from './clone-offer.js';
import { readSyncState, syncingServeRuns } from './sync-state.js';

export interface CloneOffer {
  /**
   * Is this step of the run (as read now) held back on this clone now (ready on another clone within the grace, or claimed there)?
   * Answered at once when the run's chain was read for this state already: get_work asks it of every ready step on every call.
   */
  held(state: RunState, stepId: string): boolean | Promise<boolean>;
  /** When another clone's claim on this step, arrived here through git, runs until (its lease end), or null. */
  claimedElsewhere(state: RunState, stepId: string): Promise<string | null>;
}

/**
 * Each run state's chain lines, and the keys that signed them, read once. A
 * state is served again only while the run's files are as they were when it
 * was read (run-reader.ts), and every commit that appends to the chain, here,
 * on another process or through git, ends that: a new state, whose chain is
 * read again. Without this, get_work on a shared board read and parsed every
 * ready run's chain on every call.
 */
const chainOf = new WeakMap<RunState, Chain>();

interface Chain {
  lines: OfferLine[];
  signers: ReadonlySet<string>;
  held: Map<string, KeptHeld>;
}

async function readChain(board: Board, state: RunState): Promise<Chain> {
  const lines = offerLines((await board.store.readBytes(paths.runChain(state.run.id)))?.toString('utf8') ?? '');
  const chain = { lines, signers: new Set(lines.flatMap((l) => (l.signer === undefined ? [] : [l.signer]))), held: new Map() };
  chainOf.set(state, chain);
  return chain;
}

/**
 * A step's answer, kept with the run's state: it holds while the grace and
 * this clone's keys are as they were (`rule`) and `until` has not passed. An
 * answer can only change at those: a step held for a claim elsewhere is held
 * until the lease ends, one held for its grace until the grace ends or more
 * syncs got through (a new `rule`), and a step offered stays offered, since
 * time and good syncs only take holds away.
 */
interface KeptHeld {
  rule: string;
  held: boolean;
  until: number;
}

export async function cloneOffer(board: Board, now: Date): Promise<CloneOffer | null> {
  const names = (board.listing.names(KEY_DIR) ?? []).filter((n) => n.endsWith('.json'));
  if (names.length === 0) return null;
  const records: { fingerprint: string; rotates?: string }[] = [];
  for (const n of names) {
    try {
      const v = JSON.parse((await board.store.readBytes(`${KEY_DIR}/${n}`))?.toString('utf8') ?? 'null') as { fingerprint?: unknown; rotates?: unknown } | null;
      if (typeof v?.fingerprint === 'string') records.push({ fingerprint: v.fingerprint, ...(typeof v.rotates === 'string' ? { rotates: v.rotates } : {}) });
    } catch {
      // a damaged key record is verify's to report; here it is one more clone's key
      records.push({ fingerprint: n.replace(/\.json$/, '') });
    }
  }
  // A read never makes this clone's key: a clone that has none yet (a fresh clone) owns no line.
  const key = board.state.stamp(SIGNING_KEY_FILE) === '' ? undefined : await board.store.signingFingerprint();
  const mine = key === undefined ? new Set<string>() : ownKeys(key, records);
  if (records.every((r) => mine.has(r.fingerprint))) return null;
  const sync = await readSyncState(board.state);
  const grace = offerGrace(sync, sync !== null && syncingServeRuns(sync), { ...(key !== undefined ? { key } : {}), current: currentKeys(records) });
  const rule = sameRule(JSON.stringify([grace, [...(grace.turns?.current ?? [])], [...mine]]));
  const t = now.getTime();
  return {
    held(state, stepId) {
      const chain = chainOf.get(state);
      return chain ? decide(chain, state, stepId) : readChain(board, state).then((c) => decide(c, state, stepId));
    },
    async claimedElsewhere(state, stepId) {
      const chain = chainOf.get(state) ?? (await readChain(board, state));
      const h = foreignSigner(chain.signers, mine) ? heldElsewhere(chain.lines, `${state.run.id}/${stepId}`, mine, now, grace) : null;
      return h?.why === 'claimed-elsewhere' ? h.until : null;
    },
  };

  function decide(chain: Chain, state: RunState, stepId: string): boolean {
    // Only another clone's line holds a step back: a run whose lines this clone alone signed is never held, and is not walked line by line.
    if (!foreignSigner(chain.signers, mine)) return false;
    const kept = chain.held.get(stepId);
    if (kept && kept.rule === rule && t < kept.until) return kept.held;
    const h = heldElsewhere(chain.lines, `${state.run.id}/${stepId}`, mine, now, grace);
    chain.held.set(stepId, { rule, held: h !== null, until: h === null ? Infinity : Date.parse(h.until) });
    return h !== null;
  }
}

let lastRule = '';
/** The rule's text as the same string object while it is unchanged: every kept answer compares with it, and a string compared with itself is compared at once. */
function sameRule(rule: string): string {
  if (rule !== lastRule) lastRule = rule;
  return lastRule;
}

function foreignSigner(signers: ReadonlySet<string>, mine: ReadonlySet<string>): boolean {
  for (const s of signers) if (!mine.has(s)) return true;
  return false;
}

/**
 * A claim of a step another clone holds, once that clone's claim line has
 * arrived here: refused as a claim of a step held on this clone is, since the
 * merge would set this one aside and its work with it (docs/git.md "Claimed
 * on another clone"). Null for any other call, and for a claim that goes on.
 */
export async function claimHeldElsewhere(board: Board, call: RunWriteCall, state: RunState, now: Date): Promise<ToolError | null> {
  if (call.tool !== 'claim') return null;
  const until = await (await cloneOffer(board, now))?.claimedElsewhere(state, call.args.stepId);
  if (!until) return null;
  return new ToolError('conflict', `another agent holds this step on another clone of the board until ${until} (unless it renews); call get_work for other work`, ['claimed_by_other']);
}

/** What a board offers and what the engine is given to run a command: both read from WORK.md as it is now. */
import { newId } from '../core/ids.js';
import type { Manifest } from '../board/manifest.js';
import type { Context } from '../engine/types.js';
import { TOOLS, type Offer } from '../protocol/offer.js';

/** Every tool, parallel-1, check-1 only while WORK.md configures an evaluator, flow-1 and fields-1 (docs/processes.md "Profiles", docs/profile-flow-1.md, docs/profile-fields-1.md). */
export function offerFor(manifest: Manifest): Offer {
  return { profiles: new Set(manifest.evaluator ? ['parallel-1', 'check-1', 'flow-1', 'fields-1'] : ['parallel-1', 'flow-1', 'fields-1']), tools: new Set(TOOLS) };
}

/** The engine's context: the moment, fresh ids for it, the board's limits and its people. */
export function contextFor(manifest: Manifest, now: Date): Context {
  const s = manifest.settings;
  const limits = { runDataBytes: s.runDataBytes, leaseSeconds: s.leaseSeconds, checkPass: s.checkPass, checkFail: s.checkFail, checkConfidence: s.checkConfidence, checkStateBytes: s.checkStateBytes };
  return { now, newId: (prefix) => newId(prefix, now.getTime()), limits, people: peopleOf(manifest) };
}

const peopleCache = new WeakMap<Manifest, ReadonlySet<string>>();

/** The board's people as lowercased emails, once per reading of WORK.md. */
function peopleOf(manifest: Manifest): ReadonlySet<string> {
  let set = peopleCache.get(manifest);
  if (!set) {
    set = new Set(manifest.people.map((p) => p.email.toLowerCase()));
    peopleCache.set(manifest, set);
  }
  return set;
}

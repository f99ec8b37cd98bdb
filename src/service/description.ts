/**
 * `describe`'s answer: the protocol, what this board offers now (its
 * profiles and tools) and its limits as WORK.md sets them
 * (docs/agents.md "The tools").
 */
import type { Settings } from '../board/manifest.js';
import type { Offer } from '../protocol/offer.js';
import type { Description } from '../protocol/tool-data.js';

export function description(offer: Offer, s: Settings): Description {
  return {
    protocol: 'agentprocess',
    version: 'core-2',
    profiles: [...offer.profiles],
    leaseSeconds: s.leaseSeconds,
    person: { format: 'email' },
    tools: [...offer.tools],
    maxUploadBytes: s.maxUploadBytes,
    limits: { runDataBytes: s.runDataBytes, checkPass: s.checkPass, checkFail: s.checkFail, checkConfidence: s.checkConfidence, checkStateBytes: s.checkStateBytes },
  };
}

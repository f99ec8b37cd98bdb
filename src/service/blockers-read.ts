/** flow-1: the runs a start or a blocked run names as blockers, as their files say now (docs/profile-flow-1.md §3). */
import type { BlockerEnd } from '../engine/blockers.js';
import { ToolError } from '../protocol/errors.js';
import type { RunReader } from './run-reader.js';

/** Each id with what its RUN.md says, or null when there is no such run. */
export async function blockerEnds(reader: RunReader, ids: readonly string[]): Promise<Map<string, BlockerEnd | null>> {
  const out = new Map<string, BlockerEnd | null>();
  for (const id of ids) {
    if (out.has(id)) continue;
    try {
      const { id: runId, process, state, outcome } = (await reader.read(id)).state.run;
      out.set(id, { id: runId, process, state, outcome });
    } catch (e) {
      if (!(e instanceof ToolError && e.code === 'not_found')) throw e;
      out.set(id, null);
    }
  }
  return out;
}

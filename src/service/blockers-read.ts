/** flow-1: the runs a start or a blocked run names as blockers, as their files say now (docs/profile-flow-1.md "3. Runs blocked by other runs"). */
import type { BlockerEnd } from '../engine/blockers.js';
import { ToolError } from '../protocol/errors.js';
import type { Loaded, RunReader } from './run-reader.js';
import { runTitle, type PersonLike } from '../words/index.js';

/** A run as its files say now, or null when the board has no such run. */
export async function readIfAny(reader: RunReader, runId: string): Promise<Loaded | null> {
  try {
    return await reader.read(runId);
  } catch (e) {
    if (e instanceof ToolError && e.code === 'not_found') return null;
    throw e;
  }
}

/** Each id with what its RUN.md says and its title in words (for the notes that name it), or null when there is no such run. */
export async function blockerEnds(reader: RunReader, ids: readonly string[], people: readonly PersonLike[]): Promise<Map<string, BlockerEnd | null>> {
  const out = new Map<string, BlockerEnd | null>();
  for (const id of ids) {
    if (out.has(id)) continue;
    const b = await readIfAny(reader, id);
    const run = b?.state.run;
    out.set(id, b && run ? { id: run.id, process: run.process, state: run.state, outcome: run.outcome, title: runTitle(b.pinned.process, run.inputs, people) } : null);
  }
  return out;
}

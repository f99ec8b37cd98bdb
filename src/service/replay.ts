/**
 * requestId replay (docs/agents.md "Replay: the requestId"): each write's result is recorded under
 * `.work/requests/` in the same commit as the write; the same call again
 * gets the original result, another call with the same requestId `conflict`.
 */
import type { CommitReads, StateRecord } from '../board/commit.js';
import { requestLockFile, requestRecordFile } from '../board/layout.js';
import type { WorkState } from '../board/state.js';
import { actorName, type Actor } from '../engine/types.js';
import { ToolError } from '../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../core/hash.js';
import type { Tool } from '../protocol/offer.js';
import type { ToolData } from '../protocol/tool-data.js';

/** Every write's arguments carry the requestId that names it. */
export type WriteArgs = { requestId: string };

export class Replay {
  constructor(private readonly state: WorkState) {}

  /** The original result of this call, or undefined when the requestId is new. Read through the commit's reads when there are some. */
  async lookup<T extends Tool>(reads: Pick<CommitReads, 'readState'> | null, tool: T, a: WriteArgs, actor: Actor): Promise<ToolData[T] | undefined> {
    const rel = requestPath(a.requestId);
    const text = reads ? await reads.readState(rel) : await this.state.readText(rel);
    if (text === null) return undefined;
    // Written by recordOf for this same tool: the fingerprint below holds the tool's name.
    const rec = JSON.parse(text) as { fingerprint: string; data: ToolData[T] };
    if (rec.fingerprint !== fingerprint(tool, a, actor)) {
      throw new ToolError('conflict', 'this requestId was already used for a different call; use a new requestId', ['request_id_reused']);
    }
    return rec.data;
  }

  /** The replay record of a call and its result, for the commit of the write it answers. */
  recordOf<T extends Tool>(tool: T, a: WriteArgs, actor: Actor, data: ToolData[T]): StateRecord & { bytes: string } {
    return { rel: requestPath(a.requestId), bytes: JSON.stringify({ requestId: a.requestId, tool, fingerprint: fingerprint(tool, a, actor), data }) };
  }
}

/** The lock a start_run holds while it creates its run (see writes.ts), beside the record it will write. */
export function requestLock(requestId: string): string {
  return requestLockFile(sha256Hex(requestId));
}

function requestPath(requestId: string): string {
  return requestRecordFile(sha256Hex(requestId));
}

function fingerprint(tool: Tool, a: WriteArgs, actor: Actor): string {
  const { requestId: _r, ...rest } = a;
  return sha256Hex(canonicalJson({ tool, actor: actorName(actor), args: rest }));
}

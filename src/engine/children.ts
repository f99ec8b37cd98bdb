/**
 * flow-1: the runs a run starts (docs/profile-flow-1.md "5. Subprocess steps" and
 * "6. Follow-on runs"): a subprocess step's children, one or one per item of a
 * list, and the follow-on runs of an outcome, each with its inputs read from
 * this run's data; and what a child's end hands back to its parent. Pure.
 */
import type { FollowOn, Step } from '../process/model.js';
import type { ChildStart, RunState } from './types.js';

/** The most children one subprocess step starts. */
export const MAX_CHILDREN = 200;

/** A child as its parent reads it: how it stands, and its final data. Null: not on this board (yet). */
export interface ChildEnd {
  id: string;
  process: string;
  state: 'active' | 'waiting' | 'ended' | 'cancelled';
  outcome: string | null;
  data: Record<string, unknown>;
  /** The child's title in words, for the notes that name it. */
  title?: string;
}

export type ChildReads = ReadonlyMap<string, ChildEnd | null>;

const own = (o: unknown, k: string | undefined): unknown => (k !== undefined && typeof o === 'object' && o !== null && Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined);

/** A path in run data: `inputs.<f>`, `steps.<id>.output.<f>`, `item`, `item.<f>`. */
export function readPath(state: RunState, path: string, item?: unknown): unknown {
  const p = path.split('.');
  const [head, a, b, c] = p;
  if (head === 'item') return p.length === 1 ? item : own(item, a);
  if (head === 'inputs' && p.length === 2) return own(state.run.inputs, a);
  if (head === 'steps' && b === 'output' && p.length === 4 && a !== undefined) return own(state.steps[a]?.current?.output, c);
  return undefined;
}

function mapInputs(state: RunState, map: Record<string, string>, item?: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, path] of Object.entries(map)) {
    const v = readPath(state, path, item);
    if (v !== undefined && v !== null) out[field] = v;
  }
  return out;
}

/** The children a subprocess step starts as it is entered, or why it cannot start them. */
export function subprocessStarts(state: RunState, def: Step, newId: (prefix: string) => string): { starts: ChildStart[] } | { problem: string } {
  const keys = def.subprocess;
  if (!keys) return { problem: `${def.id} names no process to start` };
  const base = { process: def.value, parent: state.run.id, initiator: state.run.initiator, mode: state.run.mode, step: def.id };
  if (keys.forEach === undefined) return { starts: [{ run: newId('r'), inputs: mapInputs(state, keys.inputs), ...base }] };
  const items = readPath(state, keys.forEach);
  if (!Array.isArray(items)) return { problem: `for_each: ${keys.forEach} is ${items === undefined ? 'missing' : 'not a list'}` };
  if (items.length > MAX_CHILDREN) return { problem: `for_each: ${keys.forEach} has ${items.length} items; a step starts at most ${MAX_CHILDREN} runs` };
  return { starts: items.map((item) => ({ run: newId('r'), inputs: mapInputs(state, keys.inputs, item), ...base })) };
}

/** The follow-on runs a run's end with this outcome starts. */
export function followOnStarts(state: RunState, rules: readonly FollowOn[], outcome: string | null, newId: (prefix: string) => string): ChildStart[] {
  if (outcome === null) return [];
  return rules
    .filter((r) => r.when.includes(outcome))
    .map((r) => ({
      run: newId('r'),
      process: r.start,
      inputs: mapInputs(state, r.inputs),
      parent: state.run.id,
      initiator: state.run.initiator,
      mode: state.run.mode,
      ...(r.priority !== undefined ? { priority: r.priority } : {}),
    }));
}

/** A run's final data, as its parent's later steps read it: every completed step's output, in step order, later fields over earlier. */
export function finalData(state: RunState, stepOrder: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const id of stepOrder) Object.assign(out, state.steps[id]?.current?.output ?? {});
  return out;
}

const FAILED: ReadonlySet<string | null> = new Set(['failed', 'rejected']);

/** A child's end in one word: its outcome, or `cancelled`; null while it is open or not there. */
export function endWord(c: ChildEnd | null | undefined): string | null {
  if (!c) return null;
  if (c.state === 'cancelled') return 'cancelled';
  return c.state === 'ended' ? (c.outcome ?? 'ended') : null;
}

/** Did a child end without its work done (failed, rejected or cancelled)? */
export const endedBadly = (c: ChildEnd | null | undefined): boolean => c?.state === 'cancelled' || (c?.state === 'ended' && FAILED.has(c.outcome));

/**
 * Where a subprocess step goes on its children's end in one word (an outcome, `cancelled`,
 * or a fan-out's `done` or `failed`): the route whose `when` is that word; else, for a
 * word that is no failure, the route without `when`, or the step's one `next`. Null: the
 * step fails (no route takes a failure).
 */
export function routeFor(def: Step, word: string, bad: boolean): string | null {
  if (Array.isArray(def.next)) {
    const hit = def.next.find((r) => r.when === word) ?? (bad ? undefined : def.next.find((r) => r.when === undefined));
    return hit?.to ?? null;
  }
  return bad ? null : def.next;
}

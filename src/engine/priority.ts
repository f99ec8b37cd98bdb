/**
 * Priority (docs/profile-flow-1.md "2. Priority"): ForkFlux's four levels, a run's level
 * at start, and the sort key that puts the most urgent work first while a board
 * whose runs are all normal pages exactly as the core's "oldest first". Pure.
 */
import { NORMAL_PRIORITY, PRIORITY_LEVELS, type Process } from '../process/model.js';
import type { RunRecord } from './types.js';

export type LevelName = keyof typeof PRIORITY_LEVELS;

/** A level's word, for people: 30 → high. */
export function levelName(level: number): LevelName {
  const hit = (Object.keys(PRIORITY_LEVELS) as LevelName[]).find((k) => PRIORITY_LEVELS[k] === level);
  return hit ?? 'normal';
}

/** A word a person typed as a level, or null. */
export function levelOf(word: string): number | null {
  return Object.hasOwn(PRIORITY_LEVELS, word) ? PRIORITY_LEVELS[word as LevelName] : null;
}

/** A new run's level: the input named by priority_from when given, else the process default, else normal. Null for a process without flow:. */
export function startPriority(process: Process, inputs: Record<string, unknown>): number | null {
  const flow = process.flow;
  if (!flow) return null;
  const given = flow.priorityFrom !== undefined && Object.hasOwn(inputs, flow.priorityFrom) ? inputs[flow.priorityFrom] : undefined;
  return (typeof given === 'string' ? levelOf(given) : null) ?? flow.priority ?? NORMAL_PRIORITY;
}

/** A run's level as the queues read it: a run of a process without flow: is normal. */
export const priorityOf = (run: Pick<RunRecord, 'priority'>): number => run.priority ?? NORMAL_PRIORITY;

/**
 * A prefix for an ascending sort key (get_work's `readySince|run|step`): urgent
 * and high before any timestamp, low after, normal none at all, so the keys,
 * and the cursors made of them, of a board without priorities are the core's.
 */
export function urgencyPrefix(run: Pick<RunRecord, 'priority'>): string {
  const level = priorityOf(run);
  if (level === NORMAL_PRIORITY) return '';
  return level > NORMAL_PRIORITY ? `!${9 - level / 10}|` : '~|';
}

/**
 * A prefix for list_runs's descending key (the run id): an open run of a
 * higher level before every id (`~`), a lower one after (`!`), normal none, so
 * the list and its cursors stay as they were on a board without priorities. An
 * ended run is history, in id order.
 */
export function listPrefix(run: Pick<RunRecord, 'state' | 'priority'>): string {
  const level = priorityOf(run);
  if (level === NORMAL_PRIORITY || run.state === 'ended' || run.state === 'cancelled') return '';
  return level > NORMAL_PRIORITY ? `~${level / 10}|` : '!|';
}

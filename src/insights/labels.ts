/**
 * What the figures' ids are called for people: processes and steps by the
 * titles src/words gives them (from the newest version the runs pinned),
 * people by WORK.md's names, agents by their declared id, and durations in
 * words. Pure.
 */
import type { Process } from '../process/model.js';
import { personName, processTitle, stepTitle, type PersonLike } from '../words/index.js';

export interface Labels {
  process(name: string): string;
  step(process: string, step: string): string;
  who(identity: string): string;
}

export function labels(versions: ReadonlyMap<string, Pick<Process, 'name' | 'body' | 'steps'>>, people: readonly PersonLike[]): Labels {
  const newest = new Map<string, { version: number; p: Pick<Process, 'name' | 'body' | 'steps'> }>();
  for (const [key, p] of versions) {
    const at = key.lastIndexOf('@');
    const name = key.slice(0, at);
    const version = Number(key.slice(at + 1));
    if ((newest.get(name)?.version ?? 0) < version) newest.set(name, { version, p });
  }
  return {
    process: (name) => {
      const p = newest.get(name)?.p;
      return p ? processTitle(p) : processTitle({ name, body: '' });
    },
    step: (process, step) => {
      const def = newest.get(process)?.p.steps.find((s) => s.id === step);
      return stepTitle(def ?? { id: step, kind: 'finish', value: '' });
    },
    who: (identity) => (identity.includes('@') ? personName(people, identity) : identity),
  };
}

const UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/** A duration in its largest unit and the next one when not zero: `2 d 4 h`, `35 min`, `12 s`; `0 s` for none; `–` for no figure. */
export function durationText(ms: number | null): string {
  if (ms === null) return '–';
  const left = Math.round(ms / 1000) * 1000;
  const i = UNITS.findIndex(([, size]) => left >= size);
  if (i < 0) return '0 s';
  const [unit, size] = UNITS[i]!;
  const big = Math.floor(left / size);
  const next = UNITS[i + 1];
  const small = next ? Math.floor((left - big * size) / next[1]) : 0;
  return small > 0 && next ? `${big} ${unit} ${small} ${next[0]}` : `${big} ${unit}`;
}

export interface TimeUnit {
  /** The unit in words, as an axis names it. */
  name: 'seconds' | 'minutes' | 'hours' | 'days';
  ms: number;
}

const TIME_UNITS: TimeUnit[] = [
  { name: 'days', ms: 86_400_000 },
  { name: 'hours', ms: 3_600_000 },
  { name: 'minutes', ms: 60_000 },
  { name: 'seconds', ms: 1000 },
];

/**
 * The unit a chart of durations is drawn in, chosen from its longest: the largest unit the longest fills at
 * least twice (so 30 minutes are drawn as 30 minutes, not 0.5 hours, and 4 days as days); seconds below 2 minutes.
 */
export function timeUnitFor(longestMs: number): TimeUnit {
  return TIME_UNITS.find((u) => longestMs >= 2 * u.ms) ?? TIME_UNITS[TIME_UNITS.length - 1]!;
}

/** A duration in a unit, to two decimals at most. */
export const inUnit = (ms: number, u: TimeUnit): number => Math.round((ms / u.ms) * 100) / 100;

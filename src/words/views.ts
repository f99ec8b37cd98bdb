/**
 * A saved view's columns and a run's place in them, in words
 * (docs/operators.md "Saved views"): "Waiting for Mira Okafor", "Urgent",
 * "Supplier payment". Pure.
 */
import { levelName } from '../engine/priority.js';
import type { ColumnKey, Waiter } from '../engine/view-filter.js';
import { humanize } from './humanize.js';
import { personName, type PersonLike } from './people.js';

export interface ViewWords {
  people: readonly PersonLike[];
  /** A process's title by its name (its heading), or its name in words when it cannot be read. */
  processTitle: (name: string) => string;
  /** A run's title by its id. */
  runTitle: (id: string) => string;
}

/** Who or what a run waits for, as a phrase: "Mira Okafor", "the finance group", "an agent". */
export function waiterWords(w: Waiter, words: Pick<ViewWords, 'people'>): string {
  switch (w.kind) {
    case 'person':
      return w.email ? personName(words.people, w.email) : 'a person not yet named';
    case 'group':
      return `the ${humanize(w.name).toLowerCase()} group`;
    case 'agent':
      return 'an agent';
    case 'event':
      return 'an event';
    case 'time':
      return 'a time';
    case 'runs':
      return 'other runs';
  }
}

/** A level's word with a capital: "Urgent". */
export const levelWords = (level: number): string => humanize(levelName(level));

/** A column's heading. */
export function columnTitle(k: ColumnKey, words: ViewWords): string {
  switch (k.by) {
    case 'state':
      return humanize(k.state);
    case 'priority':
      return levelWords(k.level);
    case 'waitingFor':
      return k.waiter ? `Waiting for ${waiterWords(k.waiter, words)}` : 'Waiting for no one';
    case 'process':
      return words.processTitle(k.process);
    case 'parent':
      return k.parent ? `Children of ${words.runTitle(k.parent)}` : 'No parent run';
  }
}

/**
 * What the CLI needs to print a run in words: the process the run is pinned
 * to (for step titles and field labels), the board's people (for names), the
 * board's time zone (WORK.md `notifications.timeZone`, the one its emails give
 * times in, so the CLI and an email say the same time for one moment) and one
 * `now` for the whole command. A process that
 * no longer loads still prints, with its names humanised.
 */
import type { Process } from '../../process/model.js';
import { processVersion } from '../../service/published.js';
import { exactTime, fieldLabel, formatValue, personName, relativeTime, stepTitleOf, type WordsContext } from '../../words/index.js';
import type { Cli } from '../cli.js';

export interface RunWords extends WordsContext {
  process: Process;
  timeZone: string;
  now: Date;
}

/** The words for each run's process version, each version read once per command. */
export type WordsOf = (run: { process: string; version: number }) => Promise<RunWords>;

const unloadable = (name: string): Process => ({ name, description: '', inputs: {}, steps: [], frontmatter: {}, body: '' });

export async function wordsFor(cli: Cli): Promise<WordsOf> {
  const board = await cli.board();
  const now = new Date();
  const timeZone = board.manifest.notifications.timeZone;
  const loaded = new Map<string, Promise<Process>>();
  return (run) => {
    const key = `${run.process}@${run.version}`;
    if (!loaded.has(key))
      loaded.set(
        key,
        processVersion(board, run.process, run.version).then((v) => v?.process ?? unloadable(run.process)),
      );
    return loaded.get(key)!.then((process) => ({ process, people: board.manifest.people, timeZone, now }));
  };
}

/** A step's title, by id, in the run's process. */
export const stepName = (w: RunWords, id: string): string => stepTitleOf(w.process, id);

/** "3 hours ago (Thu 3 Dec 2026, 19:54 CET)": relative first, the exact time in the board's zone beside it, the zone named. */
export const when = (w: RunWords, iso: string): string => `${relativeTime(iso, w.now)} (${exactTime(iso, w.timeZone)})`;

/** A person by name, an agent or the server by its id. */
export const who = (w: RunWords, id: string): string => personName(w.people, id);

/** Values as `Label: value` pairs, labelled and formatted by their declarations; a warning marked ⚠. */
export function labelled(w: RunWords, values: Record<string, unknown>, declared: Process['inputs'] | undefined, runs?: ReadonlyMap<string, string>): string {
  return Object.entries(values)
    .map(([k, v]) => {
      const ids = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
      const titles = runs && ids.length > 0 ? ids.map((id) => (typeof id === 'string' ? runs.get(id) : undefined)) : [];
      // flow-1: runs this run names (a blocked_by input, a subprocess step's child), by their titles.
      if (titles.length > 0 && titles.every((t) => t !== undefined)) return `${fieldLabel(k, declared?.[k])}: ${titles.join(', ')}`;
      const t = formatValue(declared?.[k], v, w);
      return `${t.warning ? '⚠ ' : ''}${fieldLabel(k, declared?.[k])}: ${t.text}`;
    })
    .join('  ·  ');
}

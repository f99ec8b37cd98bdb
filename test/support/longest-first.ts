/**
 * The order `npm test` starts its files in: longest first, by the durations
 * measured in a whole run (test/support/durations.json), so the two workers
 * end together instead of one finishing a long file alone at the end. A
 * clean clone has no vitest cache, and vitest would otherwise start the
 * largest files first, which is not the same thing. Files not in the table
 * (new ones) start first, as vitest's own sequencer does, so a long new file
 * cannot end up last. CONTRIBUTING.md "Test" says how to refresh the table.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const TABLE = path.join(import.meta.dirname, 'durations.json');

/** Seconds each file took in a measured run, by its path from the repository's root. */
export function loadDurations(file = TABLE): Map<string, number> {
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const table = new Map<string, number>();
  if (raw === null || typeof raw !== 'object') return table;
  for (const [name, seconds] of Object.entries(raw)) if (typeof seconds === 'number') table.set(name, seconds);
  return table;
}

/** Files longest first; files the table does not know before all of them; ties by path, so the order is the same on every machine. */
export function longestFirst(files: readonly string[], durations: ReadonlyMap<string, number>): string[] {
  const cost = (f: string) => durations.get(f) ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => {
    const ca = cost(a);
    const cb = cost(b);
    if (ca !== cb) return ca === Number.POSITIVE_INFINITY ? -1 : cb === Number.POSITIVE_INFINITY ? 1 : cb - ca;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

export default class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const key = (f: TestSpecification) => path.relative(root, f.moduleId).split(path.sep).join('/');
    const byKey = new Map(files.map((f) => [key(f), f] as const));
    const order = longestFirst([...byKey.keys()], loadDurations());
    return Promise.resolve(order.map((k) => byKey.get(k)).filter((f): f is TestSpecification => f !== undefined));
  }
}

/**
 * What the words of audit lines need from the board (see audit-words.ts):
 * WORK.md's names, and each named run's process, inputs and step kinds. A
 * board or file that cannot be read only costs words (ids are shown instead):
 * history stays readable when a run is gone or WORK.md is being fixed.
 */
import type { AuditEvent } from '../board/audit.js';
import { Board } from '../board/board.js';
import { isRunId, paths } from '../board/layout.js';
import type { StepKind } from '../process/model.js';
import { loadProcess } from '../process/load.js';
import { offerFor } from '../service/context.js';
import { NO_WORDS, runOf, type RunFacts, type Words } from './audit-words.js';

const orNull = <T>(p: Promise<T>): Promise<T | null> => p.catch(() => null);

/** Step kinds of a published version; empty when it cannot be read or no longer validates. */
async function stepKinds(board: Board, name: string, version: number): Promise<Map<string, StepKind>> {
  const bytes = await orNull(board.store.readBytes(`${paths.versionDir(name, version)}/PROCESS.md`));
  const loaded = bytes ? loadProcess(bytes.toString('utf8'), offerFor(board.manifest)) : null;
  return new Map(loaded?.ok ? loaded.process.steps.map((s) => [s.id, s.kind]) : []);
}

/** A run's facts from its RUN.md, else from the run.started line (a run folder gone from the board). */
async function runFacts(board: Board, runId: string, started: AuditEvent | undefined, kinds: (name: string, version: number) => Promise<Map<string, StepKind>>): Promise<RunFacts | null> {
  const doc = await orNull(board.store.read(paths.runFile(runId)));
  const d = (doc?.data ?? started?.input.changes ?? null) as { process?: unknown; version?: unknown; inputs?: unknown } | null;
  if (!d || typeof d.process !== 'string' || typeof d.version !== 'number') return null;
  const inputs = typeof d.inputs === 'object' && d.inputs !== null ? (d.inputs as Record<string, unknown>) : {};
  return { process: d.process, version: d.version, inputs, kinds: await orNull(kinds(d.process, d.version)) ?? new Map() };
}

/** Words for the people and runs these audit lines name, from the board at `root`. */
export async function boardWords(root: string, lines: readonly AuditEvent[]): Promise<Words> {
  const board = await orNull(Board.open(root));
  if (!board) return NO_WORDS;
  const names = new Map(board.manifest.people.flatMap((p) => (p.name ? [[p.email.toLowerCase(), p.name] as const] : [])));
  const started = new Map(lines.filter((l) => l.action === 'run.started').map((l) => [runOf(l.entity), l]));
  const ids = [...new Set(lines.map((l) => runOf(l.entity)))].filter((id): id is string => id !== null && isRunId(id));
  const versions = new Map<string, Promise<Map<string, StepKind>>>();
  const kinds = (name: string, version: number) => {
    const key = `${name}@${version}`;
    if (!versions.has(key)) versions.set(key, stepKinds(board, name, version));
    return versions.get(key)!;
  };
  const facts = await Promise.all(ids.map(async (id) => [id, await runFacts(board, id, started.get(id), kinds)] as const));
  return { names, runs: new Map(facts.filter((f): f is readonly [string, RunFacts] => f[1] !== null)) };
}

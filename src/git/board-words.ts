/**
 * What the words of audit lines need from the board (see audit-words.ts):
 * WORK.md's names, and each named run's process, inputs and step kinds. A
 * board or file that cannot be read only costs words (ids are shown instead):
 * history stays readable when a run is gone or WORK.md is being fixed.
 */
import type { AuditEvent } from '../board/audit.js';
import { Board } from '../board/board.js';
import { isRunId, paths } from '../board/layout.js';
import { loadProcess } from '../process/load.js';
import { offerFor } from '../service/context.js';
import type { Process } from '../process/model.js';
import { runTitle } from '../words/index.js';
import { parseMarkdown } from '../core/markdown.js';
import { scanRunSummary } from '../service/run-summary-scan.js';
import { isObj } from '../process/validate/raw.js';
import { NO_WORDS, peopleNames, processWords, runOf, type RunFacts, type Words } from './audit-words.js';

const orNull = <T>(p: Promise<T>): Promise<T | null> => p.catch(() => null);

type VersionWords = Pick<RunFacts, 'kinds' | 'titles'> & { process?: Process };

/** A published version's step kinds and titles (and the process, for run titles); none when it cannot be read or no longer validates. */
async function versionWords(board: Board, name: string, version: number): Promise<VersionWords> {
  const bytes = await orNull(board.store.readBytes(`${paths.versionDir(name, version)}/PROCESS.md`));
  const loaded = bytes ? loadProcess(bytes.toString('utf8'), offerFor(board.manifest)) : null;
  return loaded?.ok ? { ...processWords(loaded.process), process: loaded.process } : { kinds: new Map() };
}

/**
 * What a RUN.md's frontmatter says, read as the run index reads it (the board's
 * own layout straight off its lines, else the YAML parser), not checked
 * against the run schema: only words come of it, and a sync's commit names a
 * hundred runs at a time.
 */
async function runData(board: Board, runId: string): Promise<Record<string, unknown> | null> {
  const text = (await orNull(board.store.readBytes(paths.runFile(runId))))?.toString('utf8');
  if (text === undefined) return null;
  const scanned = scanRunSummary(text);
  if (scanned) return scanned;
  const parsed = parseMarkdown(text);
  return parsed.ok && isObj(parsed.value.data) ? parsed.value.data : null;
}

/** A run's facts from its RUN.md, else from the run.started line (a run folder gone from the board), with its title when its version can be read. */
async function runFacts(
  board: Board,
  runId: string,
  started: AuditEvent | undefined,
  words: (name: string, version: number) => Promise<VersionWords>,
): Promise<(RunFacts & { title?: string }) | null> {
  const d = (await runData(board, runId)) ?? started?.input.changes ?? null;
  if (!d || typeof d.process !== 'string' || typeof d.version !== 'number') return null;
  const inputs = isObj(d.inputs) ? d.inputs : {};
  const { process, ...known } = (await orNull(words(d.process, d.version))) ?? { kinds: new Map() };
  return { process: d.process, version: d.version, inputs, ...known, ...(process ? { title: runTitle(process, inputs, board.manifest.people) } : {}) };
}

/** flow-1: the runs a line names in its changes (blockers waited for, children and follow-on runs started). */
const namedRuns = (l: AuditEvent): string[] => {
  const c = l.input.changes ?? {};
  return [c.waitingFor, c.runs, c.blockedBy].flatMap((v) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []));
};

/** Words for the people and runs these audit lines name, from the board at `root`. */
export async function boardWords(root: string, lines: readonly AuditEvent[]): Promise<Words> {
  const board = await orNull(Board.open(root));
  if (!board) return NO_WORDS;
  const names = peopleNames(board.manifest.people);
  const started = new Map(lines.filter((l) => l.action === 'run.started').map((l) => [runOf(l.entity), l]));
  const ids = [...new Set(lines.map((l) => runOf(l.entity)))].filter((id): id is string => id !== null && isRunId(id));
  const others = [...new Set(lines.flatMap(namedRuns))].filter((id) => isRunId(id) && !ids.includes(id));
  const versions = new Map<string, Promise<VersionWords>>();
  const wordsOf = (name: string, version: number) => {
    const key = `${name}@${version}`;
    let known = versions.get(key);
    if (!known) versions.set(key, (known = versionWords(board, name, version)));
    return known;
  };
  const facts = await Promise.all(ids.map(async (id) => [id, await runFacts(board, id, started.get(id), wordsOf)] as const));
  const named = await Promise.all(others.map(async (id) => [id, await runFacts(board, id, undefined, wordsOf)] as const));
  const titles = new Map([...facts, ...named].flatMap(([id, f]) => (f?.title !== undefined ? [[id, f.title] as const] : [])));
  const runs = new Map(facts.flatMap(([id, f]) => (f !== null ? [[id, withoutTitle(f)] as const] : [])));
  return { names, runs, titles };
}

const withoutTitle = ({ title: _title, ...f }: RunFacts & { title?: string }): RunFacts => f;

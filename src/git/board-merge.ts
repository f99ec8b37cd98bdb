/**
 * Two commits of a board merged into one tree: other files by git's own
 * merge, the board's files by the board's rules:
 * - each run folder by the run-level merge (merge-run.ts), as one thing;
 * - the board's audit chain like a run's (one chain kept, the other side's
 *   lines set aside in audit/superseded.jsonl);
 * - WORK.md as data (merge-data.ts), so identities added on both sides stay;
 * - published versions, keys and uploads, which are only ever added, as a union.
 * Nothing in the repository's index or work tree is touched here.
 */
import { sha256Hex } from '../core/hash.js';
import { parseMarkdown } from '../core/markdown.js';
import { encodeDoc } from '../board/document.js';
import { BOARD_CHAIN, BOARD_SUPERSEDED, isRunId, paths, runPathOf, WORK_FILE } from '../board/layout.js';
import { SUPERSEDED_FILE } from '../board/superseded.js';
import { CLOCK_FILE, mergeClock } from './clock.js';
import { mergeValue } from './merge-data.js';
import { CHAIN_FILE, mergeRun, type RunFiles, type RunMerge } from './merge-run.js';
import type { Repo } from './repo.js';
import { replayWorlds } from './replay-world.js';

export { BOARD_SUPERSEDED };

/** Where a path (relative to the board root) belongs: one run, the board's own files, or neither (code beside the board). */
export function ownerOf(rel: string): { kind: 'run'; id: string } | { kind: 'board' } | null {
  const run = runPathOf(rel);
  if (run) return isRunId(run.runId) ? { kind: 'run', id: run.runId } : null;
  if (rel === WORK_FILE || rel === '.gitignore' || rel === '.gitattributes') return { kind: 'board' };
  if (/^(processes|audit|files)\//.test(rel)) return { kind: 'board' };
  return null;
}

export class MergeRefused extends Error {
  constructor(
    message: string,
    readonly paths: string[],
  ) {
    super(message);
    this.name = 'MergeRefused';
  }
}

export interface BoardMergeResult {
  tree: string;
  /** Runs changed on both sides, each with what the merge did. */
  runs: { id: string; merge: RunMerge }[];
  /** Board files whose merged content neither side had (WORK.md merged as data). */
  mergedBoardFiles: string[];
}

/**
 * `onto`: a tree git already merged (a `git pull` made it), whose other files
 * stand as they are; else git merges them here, and a conflict among them is refused.
 */
export async function mergeCommits(repo: Repo, ours: string, theirs: string, onto?: string): Promise<BoardMergeResult> {
  const base = (await repo.run(['merge-base', ours, theirs], { allow: [1] })).stdout.toString('utf8').trim() || null;
  let tree = onto;
  if (tree === undefined) {
    // git merges everything but the board's files; board files it would merge (or mark) are overridden below.
    // `merge.workboard.driver=true` keeps our side for files our merge driver owns: faster, and replaced anyway.
    const mt = await repo.run(['-c', 'merge.workboard.driver=true', 'merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', ours, theirs], { allow: [1] });
    const [merged, ...conflicted] = mt.stdout
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== '');
    const outside = conflicted.filter((p) => !p.startsWith(repo.prefix) || ownerOf(p.slice(repo.prefix.length)) === null);
    if (outside.length > 0) throw new MergeRefused(`the merge conflicts outside the board (${outside.join(', ')}): merge those files with git, then sync again`, outside);
    tree = merged!;
  }
  const changedOurs = new Set(await repo.changed(base, ours));
  const changedTheirs = new Set(await repo.changed(base, theirs));
  const both = [...changedOurs].filter((p) => changedTheirs.has(p) && ownerOf(p) !== null);

  // A run, or the board's chain with the branches set aside beside it, is one unit: moved on both sides when
  // any of its files moved on each, even different ones (a merge of merges: one side set lines aside, the other grew the chain).
  const runIds = unitsMovedOnBoth(changedOurs, changedTheirs);
  const chainUnit = [BOARD_CHAIN, BOARD_SUPERSEDED];
  const chainBoth = chainUnit.some((p) => changedOurs.has(p)) && chainUnit.some((p) => changedTheirs.has(p));
  const boardBoth = [...new Set([...both.filter((p) => ownerOf(p)?.kind === 'board'), ...(chainBoth ? chainUnit : [])])];
  const overrides = new Map<string, Buffer | null>();

  const folders = await readFolders(repo, [base, ours, theirs], runIds);
  // WORK.md for the replay's limits and people: the same text whichever way round the merge runs.
  const [workOurs = null, workTheirs = null] = (await readFiles(repo, [ours, theirs], [WORK_FILE])).map((m) => m.get(WORK_FILE) ?? null);
  const work = preferByContent(workOurs, workTheirs) === 'ours' ? workOurs : workTheirs;
  const worldFor = await replayWorlds(
    repo,
    [ours, theirs],
    folders.slice(1).flatMap((f) => runIds.map((id) => f.get(id) ?? null)),
    work,
  );
  const runs = runIds.map((id) => {
    const [b, o, t] = folders.map((f) => f.get(id) ?? null) as [RunFiles | null, RunFiles | null, RunFiles | null];
    const merge = mergeRun(b, o, t, worldFor);
    const names = new Set([...Object.keys(o ?? {}), ...Object.keys(t ?? {}), ...Object.keys(merge.files ?? {})]);
    for (const n of names) overrides.set(paths.runFileNamed(id, n), merge.files?.[n] !== undefined ? Buffer.from(merge.files[n]) : null);
    return { id, merge };
  });

  const mergedBoardFiles: string[] = [];
  if (boardBoth.length > 0) {
    const texts = await readFiles(repo, [base, ours, theirs], [...boardBoth, BOARD_CHAIN, BOARD_SUPERSEDED]);
    const at = (i: number, rel: string) => texts[i]!.get(rel) ?? null;
    // The board's chain: kept whole from one side, like a run's.
    let prefer: 'ours' | 'theirs' = preferByContent(at(1, WORK_FILE), at(2, WORK_FILE));
    if (chainBoth) {
      const folder = (i: number): RunFiles | null => {
        const chain = at(i, BOARD_CHAIN);
        const sup = at(i, BOARD_SUPERSEDED);
        return chain === null ? null : { [CHAIN_FILE]: chain, ...(sup !== null ? { [SUPERSEDED_FILE]: sup } : {}) };
      };
      const m = mergeRun(folder(0), folder(1), folder(2));
      if (m.taken !== 'same') prefer = m.taken;
      overrides.set(BOARD_CHAIN, m.files?.[CHAIN_FILE] !== undefined ? Buffer.from(m.files[CHAIN_FILE]) : null);
      overrides.set(BOARD_SUPERSEDED, m.files?.[SUPERSEDED_FILE] !== undefined ? Buffer.from(m.files[SUPERSEDED_FILE]) : null);
    }
    for (const rel of boardBoth) {
      if (rel === BOARD_CHAIN || rel === BOARD_SUPERSEDED) continue;
      const [b, o, t] = [at(0, rel), at(1, rel), at(2, rel)];
      if (rel === WORK_FILE && o !== null && t !== null) {
        const merged = mergeManifest(b, o, t, prefer);
        overrides.set(rel, Buffer.from(merged));
        if (merged !== o && merged !== t) mergedBoardFiles.push(rel);
      } else {
        // Added on both sides (a version published on two clones, the same upload): one side, the same either way round.
        const pick = o === null ? t : t === null ? o : rel === CLOCK_FILE ? mergeClock(o, t) : prefer === 'ours' ? o : t;
        overrides.set(rel, pick === null ? null : Buffer.from(pick));
      }
    }
  }

  const ids = await repo.writeBlobs([...overrides.values()].filter((v): v is Buffer => v !== null));
  let i = 0;
  const entries = new Map<string, string | null>([...overrides].map(([rel, v]) => [rel, v === null ? null : ids[i++]!]));
  for (const [rel, id] of await oneSided(repo, { ours, theirs, tree }, changedOurs, changedTheirs, (rel) => inUnits(rel, runIds, boardBoth))) if (!overrides.has(rel)) entries.set(rel, id);
  return { tree: await repo.treeWith(tree, entries), runs, mergedBoardFiles };
}

/** Is a board path merged by the board's rules (a run moved on both sides, a board file changed on both)? */
function inUnits(rel: string, runIds: readonly string[], boardBoth: readonly string[]): boolean {
  const owner = ownerOf(rel);
  return owner?.kind === 'run' ? runIds.includes(owner.id) : boardBoth.includes(rel);
}

/**
 * Every other board path as the side that changed it has it (docs/git.md
 * "The merge rule": a run changed on one side only takes that side). git's
 * merge detects renames, and no option turns that off in every git that
 * `merge-tree --write-tree` runs on: a file one side removed (an ended run's
 * `done.md`, when a merge there kept the side that cancelled it) and a like
 * one it added (another run's `done.md`) are taken for one file moved, and
 * the other side's change to the first lands in the second, a run that side
 * never touched, whose chain then no longer vouches for it. A board path is
 * never moved, so git's word on these paths is set aside: a path changed on
 * one side only is that side's, any other is ours (as the base has it), and a
 * path of a run merged whole that git left beside the run's files is removed.
 */
async function oneSided(
  repo: Repo,
  at: { ours: string; theirs: string; tree: string },
  changedOurs: ReadonlySet<string>,
  changedTheirs: ReadonlySet<string>,
  unit: (rel: string) => boolean,
): Promise<Map<string, string | null>> {
  const fromGit = (await repo.changed(at.ours, at.tree)).filter((rel) => ownerOf(rel) !== null);
  const out = new Map<string, string | null>();
  // A run merged whole has its files set by the run's merge; a file git put in its folder beside them goes.
  for (const rel of fromGit) if (unit(rel) && ownerOf(rel)?.kind === 'run' && rel.split('/').length === 3) out.set(rel, null);
  const paths = [...new Set([...fromGit, ...changedOurs, ...changedTheirs])].filter((rel) => ownerOf(rel) !== null && !unit(rel));
  const fromTheirs = paths.filter((rel) => changedTheirs.has(rel));
  const fromOurs = paths.filter((rel) => !changedTheirs.has(rel));
  const [t, o] = await Promise.all([repo.blobs(at.theirs, fromTheirs), repo.blobs(at.ours, fromOurs)]);
  for (const rel of fromTheirs) out.set(rel, t.get(rel) ?? null);
  for (const rel of fromOurs) out.set(rel, o.get(rel) ?? null);
  return out;
}

/** The runs with a file changed on each side (the same file or not), sorted. */
function unitsMovedOnBoth(ours: ReadonlySet<string>, theirs: ReadonlySet<string>): string[] {
  const runs = (changed: ReadonlySet<string>) => new Set([...changed].map(ownerOf).flatMap((o) => (o?.kind === 'run' ? [o.id] : [])));
  const inTheirs = runs(theirs);
  return [...runs(ours)].filter((id) => inTheirs.has(id)).sort();
}

/** The side whose WORK.md text hashes greater: a choice both clones make alike when nothing better decides. */
function preferByContent(ours: string | null, theirs: string | null): 'ours' | 'theirs' {
  return sha256Hex(ours ?? '') >= sha256Hex(theirs ?? '') ? 'ours' : 'theirs';
}

/** WORK.md merged as data: frontmatter three-way, the body from the side that changed it. */
export function mergeManifest(base: string | null, ours: string, theirs: string, prefer: 'ours' | 'theirs'): string {
  const parse = (t: string | null) => {
    const p = t === null ? null : parseMarkdown(t);
    return p?.ok ? { data: p.value.data as Record<string, unknown>, body: p.value.body } : null;
  };
  const [b, o, t] = [parse(base), parse(ours), parse(theirs)];
  if (!o || !t) return prefer === 'ours' || !t ? ours : theirs;
  const data = mergeValue(b?.data, o.data, t.data, prefer) as Record<string, unknown>;
  const body = mergeValue(b?.body, o.body, t.body, prefer) as string;
  return encodeDoc(WORK_FILE, data, body);
}

/** Each commit's run folders (null commit: none), by run id. */
async function readFolders(repo: Repo, commits: (string | null)[], runIds: string[]): Promise<Map<string, RunFiles>[]> {
  if (runIds.length === 0) return commits.map(() => new Map());
  const dirs = runIds.map((id) => `${paths.runDir(id)}/`);
  return Promise.all(
    commits.map(async (c) => {
      const out = new Map<string, Record<string, string>>();
      if (c === null) return out;
      const blobs = await repo.blobs(c, dirs);
      const contents = await repo.contents(blobs.values());
      for (const [rel, id] of blobs) {
        const [, run, name] = rel.split('/');
        if (!name || rel.split('/').length !== 3) continue;
        const folder = out.get(run!) ?? {};
        folder[name] = contents.get(id)!.toString('utf8');
        out.set(run!, folder);
      }
      return out;
    }),
  );
}

async function readFiles(repo: Repo, commits: (string | null)[], rels: string[]): Promise<Map<string, string>[]> {
  return Promise.all(
    commits.map(async (c) => {
      const out = new Map<string, string>();
      if (c === null) return out;
      const blobs = await repo.blobs(c, rels);
      const contents = await repo.contents(blobs.values());
      for (const [rel, id] of blobs) out.set(rel, contents.get(id)!.toString('utf8'));
      return out;
    }),
  );
}

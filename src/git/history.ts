/**
 * `workboard audit verify --git`: across the repository's history, every
 * committed version of every audit chain must be a byte prefix of each later
 * one, on every path through history (each commit against each of its
 * parents, merges included), and the working tree must extend HEAD. Hash
 * links alone cannot catch a chain rewritten and re-hashed; a history that
 * only grows can, for as long as the history itself is trusted.
 */
import { execFile, spawn } from 'node:child_process';
import type { Board } from '../board/board.js';
import { BoardError } from '../board/errors.js';
import { chainOfPath, isChainPath, RUN_CHAIN_FILE, RUNS_DIR, SUPERSEDED_FILE } from '../board/layout.js';
import { droppedLines, supersededPathFor } from '../board/superseded.js';
import type { AuditEvent } from '../board/audit.js';

export interface HistoryBreak {
  /** The short hash of the commit that broke the rule; null for the working tree. */
  commit: string | null;
  subject: string | null;
  author: string | null;
  /** The short hash of the version this one fails to extend: a parent of the commit, or HEAD for the working tree. */
  parent: string;
  /** The chain, relative to the board root. */
  file: string;
  /** The first line of the parent's version that is not kept; null when the file is gone. */
  line: number | null;
  reason: string;
  /** Each signed line the parent's version held (in the chain or set aside beside it) that this version keeps nowhere. */
  dropped: AuditEvent[];
}

export interface HistoryReport {
  ok: boolean;
  /** Commits reachable from HEAD, each compared with every parent. */
  commitsChecked: number;
  /** Chain files that appear anywhere in that history. */
  chainsChecked: number;
  /** A shallow clone: history before the shallow boundary cannot be checked. */
  shallow: boolean;
  breaks: HistoryBreak[];
}

/** Where a later version stops extending an earlier one. */
export interface ChainLoss {
  /** 1-based line of the earlier version holding the first byte that is not kept. */
  line: number;
  /** The later version is the earlier one cut short (nothing rewritten, lines removed from the end). */
  cutShort: boolean;
}

/** null when `before` is a byte prefix of `after` (the chain only grew), else where it stopped growing. */
export function chainLoss(before: Buffer, after: Buffer): ChainLoss | null {
  if (after.length >= before.length && before.equals(after.subarray(0, before.length))) return null;
  const common = Math.min(before.length, after.length);
  let differs = 0;
  while (differs < common && before[differs] === after[differs]) differs++;
  let line = 1;
  for (let i = 0; i < differs; i++) if (before[i] === 0x0a) line++;
  return { line, cutShort: differs === after.length };
}

/** What one comparison lost, said for a commit with one parent, a merge, or the working tree. */
function lossReason(loss: ChainLoss | 'deleted' | 'set-aside', against: { parent: string; index: number; of: number } | { head: string }, dropped: number): string {
  if (loss === 'set-aside') {
    const what = `${dropped} line${dropped === 1 ? '' : 's'} set aside on merge`;
    return 'head' in against
      ? `uncommitted: ${what} in HEAD (${against.head}) are gone`
      : against.of > 1
        ? `merge dropped ${what} by parent ${against.index} (${against.parent})`
        : `dropped ${what} in ${against.parent}`;
  }
  if ('head' in against) {
    return loss !== 'deleted' && loss.cutShort
      ? `uncommitted: cut short, the lines from here on in HEAD (${against.head}) are gone`
      : `uncommitted rewrite: not an extension of the version in HEAD (${against.head})`;
  }
  const { parent, index, of } = against;
  if (of > 1) {
    return loss === 'deleted'
      ? `merge dropped the chain of parent ${index} (${parent}): the file is gone`
      : `merge dropped transitions of parent ${index} (${parent}): its lines from here on are not kept`;
  }
  if (loss === 'deleted') return `deleted, though the parent ${parent} has it (a chain removed from history)`;
  return loss.cutShort ? `cut short: the lines from here on in ${parent} are gone` : `rewritten: not an extension of the version in ${parent}`;
}

/** The chains git is asked about, relative to the board root (git prefixes the current folder; `*` stays within one folder). */
const CHAIN_PATHSPECS = [':(glob)audit/*.jsonl', `:(glob)${RUNS_DIR}/*/${RUN_CHAIN_FILE}`, `:(glob)${RUNS_DIR}/*/${SUPERSEDED_FILE}`];

/** A pair's changes to chains and to the branches set aside beside them, by chain. */
function byChain(changes: readonly Change[]): Map<string, { chain?: Change; aside?: Change }> {
  const out = new Map<string, { chain?: Change; aside?: Change }>();
  for (const c of changes) {
    const chain = chainOfPath(c.path);
    if (chain === null) continue;
    const entry = out.get(chain) ?? {};
    if (chain === c.path) entry.chain = c;
    else entry.aside = c;
    out.set(chain, entry);
  }
  return out;
}

class GitFailed extends Error {
  constructor(
    args: readonly string[],
    readonly exitCode: number | null,
    stderr: string,
  ) {
    super(`git ${args[0]} failed${stderr ? `: ${stderr}` : ` (exit ${exitCode})`}`);
    this.name = 'GitFailed';
  }
}

/** Run git in `cwd` (optionally feeding it `input`); its stdout, or a GitFailed carrying git's own message. */
function git(cwd: string, args: string[], input?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd, encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) resolve(stdout);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- execFile's error is an Error; @types/node types it as an intersection of Omit<>s
      else if (typeof err.code === 'string') reject(err);
      else reject(new GitFailed(args, err.code ?? null, stderr.toString('utf8').trim()));
    });
    // git may exit before reading its input (a bad revision); the exit status above reports that, not EPIPE.
    child.stdin?.on('error', () => {});
    child.stdin?.end(input);
  });
}

const notARepository = (boardRoot: string) => new BoardError('invalid', `not a git repository: ${boardRoot} is not inside a git work tree, so audit verify --git has no history to check`);

/** Is the board in a git work tree, and is that a shallow clone? */
async function openRepository(boardRoot: string): Promise<{ shallow: boolean }> {
  let answer: string[];
  try {
    answer = (await git(boardRoot, ['rev-parse', '--is-inside-work-tree', '--is-shallow-repository'])).toString('utf8').trim().split('\n');
  } catch (e) {
    if (e instanceof GitFailed) throw notARepository(boardRoot);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new BoardError('invalid', 'git is not installed: audit verify --git needs the git command');
    throw e;
  }
  if (answer[0] !== 'true') throw notARepository(boardRoot);
  return { shallow: answer[1] === 'true' };
}

async function headCommit(boardRoot: string): Promise<string | null> {
  try {
    return (await git(boardRoot, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'])).toString('utf8').trim();
  } catch (e) {
    if (e instanceof GitFailed) return null; // no commit yet
    throw e;
  }
}

/** One commit compared with one of its parents (a root commit, with the empty tree). */
interface Pair {
  commit: string;
  parent: string | null;
  /** 1-based position of `parent` among the commit's parents, and how many it has. */
  index: number;
  of: number;
}

function pairsOf(revList: string): Pair[] {
  const pairs: Pair[] = [];
  for (const line of revList.split('\n')) {
    if (line === '') continue;
    const [commit, ...parents] = line.split(' ') as [string, ...string[]];
    if (parents.length === 0) pairs.push({ commit, parent: null, index: 0, of: 0 });
    parents.forEach((parent, i) => pairs.push({ commit, parent, index: i + 1, of: parents.length }));
  }
  return pairs;
}

interface Change {
  oldBlob: string;
  newBlob: string;
  /** A added, D deleted, M modified, T type changed (renames are never detected). */
  status: string;
  path: string;
}

/**
 * `-z` raw diff output, as groups of changes under the commit id git printed
 * before them (diff-index prints none: its changes come under null).
 */
function parseRaw(raw: Buffer): { commit: string | null; changes: Change[] }[] {
  const tokens = raw.toString('utf8').split('\0');
  const groups: { commit: string | null; changes: Change[] }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === '') continue;
    if (!token.startsWith(':')) {
      groups.push({ commit: token, changes: [] });
      continue;
    }
    if (groups.length === 0) groups.push({ commit: null, changes: [] });
    const [, , oldBlob, newBlob, status] = token.slice(1).split(' ') as [string, string, string, string, string];
    groups[groups.length - 1]!.changes.push({ oldBlob, newBlob, status, path: tokens[++i]! });
  }
  return groups;
}

/**
 * `git diff-tree --stdin --always` prints one header per input line, even for
 * an empty diff, so the n-th group belongs to the n-th pair.
 */
function changesByPair(raw: Buffer, pairs: readonly Pair[]): Change[][] {
  const groups = parseRaw(raw);
  if (groups.length !== pairs.length || groups.some((g, i) => g.commit !== pairs[i]!.commit)) {
    throw new Error(`git diff-tree did not answer once for each of the ${pairs.length} commit/parent pairs, in order`);
  }
  return groups.map((g) => g.changes);
}

/** One `git cat-file --batch` for every blob the check reads, asked one blob at a time. */
async function withBlobReader<T>(cwd: string, use: (read: (blob: string) => Promise<Buffer>) => Promise<T>): Promise<T> {
  const child = spawn('git', ['cat-file', '--batch'], { cwd, stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let failed: Error | null = null;
  child.once('error', (e) => (failed = e));
  const chunks = child.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let held: Buffer = Buffer.alloc(0);
  const pull = async () => {
    const next = await chunks.next();
    if (next.done) throw failed ?? new Error('git cat-file --batch ended early');
    held = held.length === 0 ? next.value : Buffer.concat([held, next.value]);
  };
  const read = async (blob: string): Promise<Buffer> => {
    child.stdin.write(`${blob}\n`);
    let end: number;
    while ((end = held.indexOf(0x0a)) < 0) await pull();
    const header = held.subarray(0, end).toString('utf8');
    const size = /^[0-9a-f]+ \S+ (\d+)$/.exec(header);
    if (!size) {
      held = held.subarray(end + 1); // `<name> missing`: a line of its own, consumed so the next answer lines up
      throw new Error(`git cat-file: ${header}`);
    }
    const start = end + 1;
    const stop = start + Number(size[1]);
    while (held.length < stop + 1) await pull(); // the content and its line end
    const content = Buffer.from(held.subarray(start, stop));
    held = held.subarray(stop + 1);
    return content;
  };
  try {
    return await use(read);
  } finally {
    child.stdin.end();
    child.stdout.destroy();
    await exited;
  }
}

/** Short hash, subject and author of each commit, in one git call. */
async function describeCommits(boardRoot: string, ids: ReadonlySet<string>): Promise<Map<string, { short: string; subject: string; author: string }>> {
  const out = new Map<string, { short: string; subject: string; author: string }>();
  if (ids.size === 0) return out;
  const log = await git(boardRoot, ['log', '--no-walk=unsorted', '--stdin', '--format=%H%x00%h%x00%an <%ae>%x00%s'], `${[...ids].join('\n')}\n`);
  for (const line of log.toString('utf8').split('\n')) {
    const [id, short, author, subject] = line.split('\0');
    if (id && short !== undefined && author !== undefined && subject !== undefined) out.set(id, { short, subject, author });
  }
  return out;
}

/** A break found, before its commits are described. */
interface Found {
  commit: string | null;
  parent: string;
  index: number;
  of: number;
  file: string;
  loss: ChainLoss | 'deleted' | 'set-aside';
  dropped: AuditEvent[];
}

/**
 * Check that the board's chains only ever grew across the git history
 * reachable from HEAD, and that the working tree extends HEAD. Only files a
 * commit changed are read. Throws `invalid` when the board is not in a git
 * work tree.
 */
export async function verifyHistory(board: Board, onProgress?: (done: number, total: number) => void): Promise<HistoryReport> {
  const boardRoot = board.root;
  const { shallow } = await openRepository(boardRoot);
  const head = await headCommit(boardRoot);
  if (head === null) return { ok: true, commitsChecked: 0, chainsChecked: 0, shallow, breaks: [] };

  const prefix = (await git(boardRoot, ['rev-parse', '--show-prefix'])).toString('utf8').trim();
  const revList = (await git(boardRoot, ['rev-list', '--parents', '--topo-order', '--reverse', head])).toString('utf8');
  const pairs = pairsOf(revList);
  const commitsChecked = revList.split('\n').filter((l) => l !== '').length;
  const pairLines = pairs.map((p) => (p.parent === null ? p.commit : `${p.commit} ${p.parent}`)).join('\n');
  const diff = await git(boardRoot, ['diff-tree', '--stdin', '--always', '-r', '--root', '--relative', '--no-abbrev', '--no-renames', '-z', '--', ...CHAIN_PATHSPECS], `${pairLines}\n`);
  const changes = changesByPair(diff, pairs);
  const worktree = await git(boardRoot, ['diff-index', '--relative', '--no-abbrev', '--no-renames', '-z', 'HEAD', '--', ...CHAIN_PATHSPECS]);

  const chains = new Set<string>();
  const found = await withBlobReader(boardRoot, async (read) => {
    const out: Found[] = [];
    const text = async (blob: string): Promise<string> => (await read(blob).catch(() => null))?.toString('utf8') ?? '';
    for (const [i, pair] of pairs.entries()) {
      onProgress?.(i, pairs.length);
      for (const [file, { chain: c, aside }] of byChain(changes[i]!)) {
        if (c) chains.add(file);
        if (pair.parent === null || c?.status === 'A') continue;
        const loss = c === undefined ? null : c.status === 'D' ? 'deleted' : chainLoss(await read(c.oldBlob), await read(c.newBlob));
        // A chain that grew, its set-aside branches untouched, kept everything.
        if (loss === null && aside === undefined) continue;
        // A merge that kept one side of a run whole, or an operator's resolve, sets the other side's lines aside beside the chain: kept, not lost.
        const at = (rev: string, rel: string) => text(`${rev}:${prefix}${rel}`);
        const before = { chain: c ? await text(c.oldBlob) : await at(pair.parent, file), superseded: aside ? await text(aside.oldBlob) : await at(pair.parent, supersededPathFor(file)) };
        const after = {
          chain: c ? (c.status === 'D' ? '' : await text(c.newBlob)) : await at(pair.commit, file),
          superseded: aside ? (aside.status === 'D' ? '' : await text(aside.newBlob)) : await at(pair.commit, supersededPathFor(file)),
        };
        const dropped = droppedLines(before, after);
        // Bytes rewritten with every line still there (nothing set aside to explain it) are a rewrite all the same.
        if (dropped.lines.length === 0 && !(loss !== null && (dropped.unreadable || after.superseded === ''))) continue;
        out.push({ commit: pair.commit, parent: pair.parent, index: pair.index, of: pair.of, file: loss === null ? supersededPathFor(file) : file, loss: loss ?? 'set-aside', dropped: dropped.lines });
      }
    }
    // Only chains that exist in the working tree: a deletion there is not yet history.
    for (const c of parseRaw(worktree).flatMap((g) => g.changes)) {
      if (!isChainPath(c.path) || (c.status !== 'M' && c.status !== 'T')) continue;
      const current = board.listing.readNow(c.path);
      if (current === null) continue;
      const old = await read(c.oldBlob);
      const loss = chainLoss(old, current);
      if (loss)
        out.push({
          commit: null,
          parent: head,
          index: 1,
          of: 1,
          file: c.path,
          loss,
          dropped: droppedLines({ chain: old.toString('utf8'), superseded: '' }, { chain: current.toString('utf8'), superseded: '' }).lines,
        });
    }
    return out;
  });

  const described = await describeCommits(boardRoot, new Set(found.flatMap((f) => (f.commit === null ? [f.parent] : [f.commit, f.parent]))));
  const short = (id: string) => described.get(id)?.short ?? id.slice(0, 7);
  const breaks: HistoryBreak[] = found.map((f) => {
    const info = f.commit === null ? undefined : described.get(f.commit);
    return {
      commit: f.commit === null ? null : short(f.commit),
      subject: info?.subject ?? null,
      author: info?.author ?? null,
      parent: short(f.parent),
      file: f.file,
      line: f.loss === 'deleted' || f.loss === 'set-aside' ? null : f.loss.line,
      reason: lossReason(f.loss, f.commit === null ? { head: short(f.parent) } : { parent: short(f.parent), index: f.index, of: f.of }, f.dropped.length),
      dropped: f.dropped,
    };
  });
  return { ok: breaks.length === 0, commitsChecked, chainsChecked: chains.size, shallow, breaks };
}

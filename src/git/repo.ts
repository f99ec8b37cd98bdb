/**
 * The git repository that holds a board, reached through git's own commands
 * (plumbing where we need exact control): run a command, read many blobs in
 * one process, write blobs, and build a tree in a private index. Nothing here
 * knows about boards.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0]}: ${firstLine(stderr) || `exited ${code}`}`);
    this.name = 'GitError';
  }
}

/** A git command stopped because it had not ended in its time (a remote that accepts and never answers). */
export class GitTimeout extends Error {
  constructor(
    readonly args: readonly string[],
    readonly ms: number,
  ) {
    super(`git ${args[0]}: no answer in ${ms / 1000} s`);
    this.name = 'GitTimeout';
  }
}

const firstLine = (s: string): string =>
  s
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('hint:')) ?? '';

export interface GitRun {
  stdout: Buffer;
  stderr: string;
  code: number | null;
  /** It was stopped after `timeoutMs` without an end (a remote that never answers). */
  timedOut: boolean;
}

/** Options of one git command: its stdin, its environment, and how long it may take (network calls: a remote may never answer). */
interface RunOptions {
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Told the process's id once it started (a network call: the leader of its own group). */
  started?: (pid: number) => void;
}

/** How long a git told to stop has to end by itself (it removes its lock files on SIGTERM) before SIGKILL. */
export const STOP_GRACE_MS = 1000;

/** Signal process group `pid`; false when there is none any more. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Set by stopNetworkGit: this process is stopping, and starts no network call any more. */
let stopping = false;

/** The network calls under way in this process, each stopped with its helpers by `stop()`. */
const reaching = new Set<{ stop: () => void; ended: Promise<void> }>();

/** How many network calls this process has under way. */
export function networkCallsUnderWay(): number {
  return reaching.size;
}

/**
 * Stop every network call this process has under way, with what each started
 * (ssh, a local remote's receive-pack and its hooks), and resolve once all
 * have ended: a command that is stopped must not leave git talking to a
 * remote behind it. A network call asked for after this fails at once.
 */
export async function stopNetworkGit(): Promise<void> {
  stopping = true;
  const calls = [...reaching];
  for (const c of calls) c.stop();
  await Promise.all(calls.map((c) => c.ended));
}

export class Repo {
  /** Whether this repository's commits are signed (`commit.gpgSign`), asked once. */
  private signs: Promise<boolean> | null = null;

  private constructor(
    /** The folder git is run in (the board root). */
    readonly cwd: string,
    /** The board root relative to the work tree's top, with a trailing slash ('' at the top). */
    readonly prefix: string,
  ) {}

  /** The work tree's top folder (git moves there as it starts). */
  get top(): string {
    return path.resolve(
      this.cwd,
      ...this.prefix
        .split('/')
        .filter((p) => p !== '')
        .map(() => '..'),
    );
  }

  /** The repository holding `dir`, or null when `dir` is in none. */
  static async at(dir: string): Promise<Repo | null> {
    const probe = await runGit(dir, ['rev-parse', '--is-inside-work-tree', '--show-prefix']);
    if (probe.code !== 0) return null;
    const [inside, prefix] = probe.stdout.toString('utf8').split('\n');
    return inside === 'true' ? new Repo(dir, prefix ?? '') : null;
  }

  /** Run git; a non-zero exit is a GitError unless `allow` lists it. */
  async run(args: readonly string[], opts: RunOptions & { allow?: number[] } = {}): Promise<GitRun> {
    const r = await runGit(this.cwd, args, opts);
    if (r.timedOut) throw new GitTimeout(args, opts.timeoutMs!);
    if (r.code !== 0 && !(opts.allow ?? []).includes(r.code ?? -1)) throw new GitError(args, r.code, r.stderr);
    return r;
  }

  async text(args: readonly string[], opts: RunOptions = {}): Promise<string> {
    return (await this.run(args, opts)).stdout.toString('utf8').trim();
  }

  /**
   * A commit of `tree` on `parents`, signed when the repository signs its
   * commits: `git commit` does so itself, `git commit-tree` does not (it
   * ignores `commit.gpgSign`), so a team that signs would get unsigned merges.
   */
  async commitTree(tree: string, parents: readonly string[], message: string): Promise<string> {
    this.signs ??= this.run(['config', '--bool', '--get', 'commit.gpgsign'], { allow: [1] }).then((r) => r.stdout.toString('utf8').trim() === 'true');
    const sign = (await this.signs) ? ['-S'] : [];
    return this.text(['commit-tree', ...sign, tree, ...parents.flatMap((p) => ['-p', p])], { input: message });
  }

  /** A commit's id, or null when the name does not resolve. */
  async resolve(name: string): Promise<string | null> {
    const r = await this.run(['rev-parse', '-q', '--verify', `${name}^{commit}`], { allow: [1, 128] });
    return r.code === 0 ? r.stdout.toString('utf8').trim() : null;
  }

  async isAncestor(a: string, b: string): Promise<boolean> {
    // A commit is its own ancestor, as git says: a sync that finds the remote where it left it asks nothing more.
    if (a === b) return true;
    return (await this.run(['merge-base', '--is-ancestor', a, b], { allow: [1] })).code === 0;
  }

  /** Paths (relative to the board root) that differ between two commits, under the board. */
  async changed(from: string | null, to: string): Promise<string[]> {
    const args =
      from === null ? ['ls-tree', '-r', '-z', '--name-only', '--full-tree', to, '--', this.prefix || '.'] : ['diff', '--name-only', '-z', '--no-renames', from, to, '--', this.prefix || '.'];
    const out = (await this.run(from === null ? args : ['-c', 'core.quotePath=false', ...args])).stdout.toString('utf8');
    return this.underBoard(out.split('\0').filter((p) => p !== ''));
  }

  /** Of paths from the work tree's top, those under the board, relative to it. */
  underBoard(paths: readonly string[]): string[] {
    return paths.filter((p) => p.startsWith(this.prefix)).map((p) => p.slice(this.prefix.length));
  }

  /** Every path of the repository (not only the board's) that differs between two commits (null: from nothing), with its new mode. */
  async treeChanges(from: string | null, to: string): Promise<{ mode: string; path: string }[]> {
    if (from === null) {
      const out = (await this.run(['ls-tree', '-r', '-z', '--full-tree', to])).stdout.toString('utf8');
      return out.split('\0').flatMap((e) => {
        const m = /^(\d+) \w+ [0-9a-f]+\t(.*)$/s.exec(e);
        return m ? [{ mode: m[1]!, path: m[2]! }] : [];
      });
    }
    const out = (await this.run(['diff-tree', '-r', '-z', '--no-renames', from, to])).stdout.toString('utf8').split('\0');
    const changes: { mode: string; path: string }[] = [];
    // -z --raw: ":<old mode> <new mode> <old id> <new id> <status>" then the path, each ended by a NUL.
    for (let i = 0; i + 1 < out.length; i += 2) changes.push({ mode: out[i]!.split(' ')[1]!, path: out[i + 1]! });
    return changes;
  }

  /** The blob ids of paths (relative to the board root) in a commit's tree; a path not there is absent from the map. */
  async blobs(commit: string, rels: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < rels.length; i += 2000) {
      const chunk = rels.slice(i, i + 2000).map((r) => `${this.prefix}${r}`);
      const r = await this.run(['ls-tree', '-r', '-z', '--full-tree', commit, '--', ...chunk]);
      for (const entry of r.stdout.toString('utf8').split('\0')) {
        const m = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
        if (m && m[2]!.startsWith(this.prefix)) out.set(m[2]!.slice(this.prefix.length), m[1]!);
      }
    }
    return out;
  }

  /** The contents of many blobs, read by one `git cat-file --batch`. */
  async contents(ids: Iterable<string>): Promise<Map<string, Buffer>> {
    const unique = [...new Set(ids)];
    const found = await this.catBatch(unique);
    const out = new Map<string, Buffer>();
    unique.forEach((id, i) => {
      const o = found[i];
      if (o) out.set(id, o.bytes);
    });
    return out;
  }

  /** One file (relative to the board root) as each commit has it, in order (null: not there), read by one `git cat-file --batch`. */
  async fileAt(commits: readonly string[], rel: string): Promise<(Buffer | null)[]> {
    return (await this.catBatch(commits.map((c) => `${c}:${this.prefix}${rel}`))).map((o) => (o?.type === 'blob' ? o.bytes : null));
  }

  /** Each named object (an id, or `<commit>:<path>`) with its type, in order; null where git has none (missing, ambiguous). */
  private async catBatch(names: readonly string[]): Promise<({ type: string; bytes: Buffer } | null)[]> {
    if (names.length === 0) return [];
    const buf = (await this.run(['cat-file', '--batch'], { input: `${names.join('\n')}\n` })).stdout;
    const out: ({ type: string; bytes: Buffer } | null)[] = [];
    let at = 0;
    for (let i = 0; i < names.length && at < buf.length; i++) {
      const nl = buf.indexOf(0x0a, at);
      // "<id> <type> <size>" then the content and a newline, or "<name> missing" (or "ambiguous") alone.
      const [, type, size] = buf.subarray(at, nl).toString('utf8').split(' ');
      const n = size === undefined ? NaN : Number(size);
      if (type === undefined || !Number.isInteger(n)) {
        out.push(null);
        at = nl + 1;
        continue;
      }
      out.push({ type, bytes: Buffer.from(buf.subarray(nl + 1, nl + 1 + n)) });
      at = nl + 1 + n + 1;
    }
    return out;
  }

  /** Write blobs into the object database, in one process; their ids, in order. */
  async writeBlobs(contents: readonly Buffer[]): Promise<string[]> {
    if (contents.length === 0) return [];
    const dir = mkdtempSync(path.join(os.tmpdir(), 'workboard-blobs-'));
    try {
      const files = contents.map((c, i) => {
        const f = path.join(dir, String(i));
        writeFileSync(f, c);
        return f;
      });
      const r = await this.run(['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: `${files.join('\n')}\n` });
      return r.stdout.toString('utf8').trim().split('\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /**
   * The tree of `start` with board paths set to blobs (null: removed), built
   * in a private index so the repository's own index is never touched.
   */
  async treeWith(start: string, entries: ReadonlyMap<string, string | null>): Promise<string> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'workboard-index-'));
    const env = { ...process.env, GIT_INDEX_FILE: path.join(dir, 'index') };
    try {
      await this.run(['read-tree', start], { env });
      const lines = [...entries].map(([rel, id]) => (id === null ? `0 ${'0'.repeat(40)}\t${this.prefix}${rel}` : `100644 ${id}\t${this.prefix}${rel}`));
      if (lines.length > 0) await this.run(['update-index', '--index-info'], { env, input: `${lines.join('\n')}\n` });
      return await this.text(['write-tree'], { env });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function runGit(cwd: string, args: readonly string[], opts: RunOptions = {}): Promise<GitRun> {
  return new Promise((resolve) => {
    // No prompt for credentials or host keys: sync runs unattended, and a prompt would hang it.
    const env = { ...(opts.env ?? process.env), GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes' };
    const network = opts.timeoutMs !== undefined;
    if (network && stopping) return resolve({ stdout: Buffer.alloc(0), stderr: 'not started: this process is stopping', code: null, timedOut: false });
    // Its own process group, so a stop reaches git and what it started (ssh, git-remote-https) together.
    const child = spawn('git', [...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: network });
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    let killer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (killer) return;
      const signal = (s: NodeJS.Signals) => signalGroup(child.pid!, s) || child.kill(s); // the group is gone already: the child alone, if it is still there
      signal('SIGTERM');
      killer = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
    };
    const timer = network
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, opts.timeoutMs)
      : null;
    let call: { stop: () => void; ended: Promise<void> } | null = null;
    if (network && child.pid !== undefined) {
      call = { stop, ended: new Promise((r) => child.once('close', () => r())) };
      reaching.add(call);
      opts.started?.(child.pid);
    }
    const done = (r: GitRun) => {
      if (timer) clearTimeout(timer);
      clearTimeout(killer);
      if (call) reaching.delete(call);
      resolve(r);
    };
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', (e) => done({ stdout: Buffer.alloc(0), stderr: e.message, code: -1, timedOut: false }));
    child.on('close', (code) => done({ stdout: Buffer.concat(out), stderr: err, code, timedOut }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

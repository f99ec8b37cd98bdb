/**
 * What the sync simulation (test/git/sync-simulation.test.ts) reads of a
 * clone: its board files, conflict markers, audit chains and runs, and git's
 * state. Plain reads of the files, nothing of workboard's own code, so the
 * simulation checks the product from outside.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** No system or user git config: only what each clone sets for itself. */
export const GIT_ENV = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

export function git(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')} in ${cwd}: ${String(stderr)}`));
      else resolve(String(stdout));
    });
  });
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function readOr(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return null;
  }
}

/** The board's own files (what a clone shares), relative path -> bytes. */
export async function boardFiles(root: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (rel: string) => {
    const abs = path.join(root, rel);
    let st;
    try {
      st = await fs.lstat(abs);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const e of (await fs.readdir(abs)).sort()) await walk(rel === '' ? e : `${rel}/${e}`);
    else out.set(rel, await fs.readFile(abs));
  };
  for (const top of ['WORK.md', '.gitattributes', '.gitignore', 'runs', 'audit', 'processes', 'files']) await walk(top);
  return out;
}

/** The names of files that differ between two board snapshots (missing on one side counts). */
export function differing(a: Map<string, Buffer>, b: Map<string, Buffer>): string[] {
  const names = new Set([...a.keys(), ...b.keys()]);
  return [...names].filter((n) => !a.has(n) || !b.has(n) || !a.get(n)!.equals(b.get(n)!)).sort();
}

/** Files anywhere under `root` but .git/ that hold a conflict marker. */
export async function withConflictMarkers(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.git') await walk(abs);
      } else if (e.isFile()) {
        const text = (await fs.readFile(abs)).toString('latin1');
        if (text.includes('<<<<<<<') || text.includes('>>>>>>>')) found.push(path.relative(root, abs));
      }
    }
  };
  await walk(root);
  return found;
}

export const fm = (text: string | null, key: string): string | null => {
  if (text === null) return null;
  const m = new RegExp(`^${key}: (.*)$`, 'm').exec(text);
  return m ? m[1]!.trim() : null;
};

export interface ChainLine {
  seq: number;
  hash: string;
  ts: string;
  action: string;
  actor: string;
  entity: string;
  signer?: string;
  input?: { replayOf?: string; changes?: { until?: string; due?: string; to?: string } };
}

/** A chain file's lines, in order. */
export function chainLines(text: string | null): ChainLine[] {
  if (text === null || text === '') return [];
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ChainLine);
}

/** The branches a merge set aside beside a chain (superseded.jsonl), each with its fork and lines. */
export function setAside(text: string | null): { fork: { seq: number }; lines: ChainLine[] }[] {
  return (text ?? '')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { fork: { seq: number }; lines: ChainLine[] });
}

export interface RunView {
  id: string;
  process: string | null;
  state: string | null;
  /** Each step file's state, by step id. */
  steps: Record<string, string | null>;
}

/** What a clone's files say of each run: its process, its state and its steps' states. */
export async function runsOf(dir: string): Promise<RunView[]> {
  const runs = path.join(dir, 'runs');
  const ids = (await fs.readdir(runs).catch(() => [] as string[])).filter((n) => n.startsWith('r-')).sort();
  return Promise.all(
    ids.map(async (id) => {
      const run = await readOr(path.join(runs, id, 'RUN.md'));
      const steps: Record<string, string | null> = {};
      for (const f of await fs.readdir(path.join(runs, id)).catch(() => [] as string[])) {
        if (f.endsWith('.md') && f !== 'RUN.md') steps[f.slice(0, -3)] = fm(await readOr(path.join(runs, id, f)), 'state');
      }
      return { id, process: fm(run, 'process'), state: fm(run, 'state'), steps };
    }),
  );
}

/** HEAD, every ref, and the work tree's status: what a failed sync must leave as it found. */
export async function gitState(dir: string): Promise<string> {
  const head = await git(dir, 'rev-parse', 'HEAD');
  const refs = await git(dir, 'for-each-ref', '--format=%(refname) %(objectname)');
  const status = await git(dir, 'status', '--porcelain=v1', '--untracked-files=all');
  return `HEAD ${head}${refs}status:\n${status}`;
}

export async function exists(file: string): Promise<boolean> {
  return (await readOr(file)) !== null;
}

/**
 * Test helpers: real temporary directories, byte snapshots of a board, and a
 * few valid board documents. No mocks: everything here touches real files.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { Board } from '../../src/board/board.js';
import type { StoreOptions } from '../../src/board/store.js';

const made: string[] = [];

/** A fresh empty directory under the OS temp dir; removed by `cleanupTmp`. */
export async function tmpDir(prefix = 'wb-test-'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  // Resolve symlinks (macOS /var -> /private/var) so paths compare equal to what the code resolves.
  return fs.realpath(dir);
}

export async function cleanupTmp(): Promise<void> {
  const dirs = made.splice(0);
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
}

/** A new board in a new temp dir. */
export async function newBoard(opts: { name?: string; actor?: string; store?: Partial<StoreOptions> } = {}): Promise<{ root: string; board: Board }> {
  const root = path.join(await tmpDir(), opts.name ?? 'board');
  await Board.init(root, { name: opts.name ?? 'board', actor: opts.actor ?? 'user:tester' });
  const board = await Board.open(root, opts.store ?? {});
  return { root, board };
}

/**
 * Every file under `root` (relative path -> content as a binary string),
 * skipping `.work/` (uncommitted coordinator state) unless asked, and always
 * `.work/spare/` (scratch: see below).
 */
export async function snapshotDir(root: string, opts: { includeState?: boolean } = {}): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string) => {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      const rel = path.relative(root, abs).split(path.sep).join('/');
      if (!opts.includeState && (rel === '.work' || rel.startsWith('.work/'))) continue;
      // Recycled lock files and journals (board/spares.ts): taking a lock and giving it back renames one.
      if (rel === '.work/spare') continue;
      if (e.isDirectory()) {
        out[`${rel}/`] = '<dir>';
        await walk(abs);
      } else if (e.isSymbolicLink()) out[rel] = `<symlink ${await fs.readlink(abs)}>`;
      else out[rel] = (await fs.readFile(abs)).toString('latin1');
    }
  };
  await walk(root);
  return out;
}

export async function readText(file: string): Promise<string> {
  return fs.readFile(file, 'utf8');
}

export async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** The audit chain of a file as parsed lines (the file must end with a newline). */
export async function chainEvents(file: string): Promise<Record<string, any>[]> {
  const text = await readText(file);
  if (text === '') return [];
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** A syntactically valid run id (lowercase ULID shape with the r- prefix). */
export function runId(n: number): string {
  return `r-01jd${String(n).padStart(22, '0')}`;
}

export const T0 = '2026-11-29T09:00:00.000Z';

/** A RUN.md frontmatter that satisfies schemas/board/run.schema.json (rev is set by the store). */
export function runData(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    process: 'expense-check',
    version: 1,
    hash: 'ab'.repeat(32),
    mode: 'live',
    state: 'active',
    startedBy: 'user:tester',
    startedAt: T0,
    updatedAt: T0,
    inputs: {},
    ...extra,
  };
}

/** A step file frontmatter that satisfies schemas/board/step.schema.json. */
export function stepData(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, kind: 'agent', state: 'ready', ...extra };
}

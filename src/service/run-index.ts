/**
 * Each coordinator's index of the board's runs, rebuilt from the files and
 * never a source of truth (AIP-20 §4.2). A run's summary (RUN.md) is reused
 * while RUN.md's inode, size and mtime are unchanged: every commit renames a
 * new RUN.md into place, so any write to a run invalidates it. The summaries
 * are also cached in `.work/index.json` so a fresh CLI process starts warm;
 * every entry is still checked against a stat of its RUN.md before use.
 */
import { promises as fs } from 'node:fs';
import { isCode, readIfExists, writeFileAtomic } from '../board/fsutil.js';
import { isRunId, paths, STATE_DIR } from '../board/layout.js';
import type { BoardStore } from '../board/store.js';
import type { RunRecord } from '../engine/types.js';
import { runFromDoc } from './runfiles.js';

export type RunSummary = Pick<RunRecord, 'id' | 'process' | 'version' | 'state' | 'outcome' | 'mode' | 'startedAt' | 'updatedAt' | 'inputs'>;

const CACHE = `${STATE_DIR}/index.json`;
const CACHE_VERSION = 1;

async function stamp(file: string): Promise<string | null> {
  try {
    const s = await fs.stat(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch (e) {
    if (isCode(e, 'ENOENT', 'ENOTDIR')) return null;
    throw e;
  }
}

/** A stamp of everything a run's state is read from: its folder's files and its leases. */
export async function runStamp(store: BoardStore, runId: string): Promise<string> {
  const parts: string[] = [];
  for (const dir of [paths.runDir(runId), paths.leaseDir(runId)]) {
    let names: string[] = [];
    try {
      names = (await fs.readdir(store.abs(dir))).sort();
    } catch (e) {
      if (!isCode(e, 'ENOENT')) throw e;
    }
    for (const n of names) parts.push(`${n}=${await stamp(store.abs(`${dir}/${n}`))}`);
  }
  return parts.join('|');
}

export class RunIndex {
  private entries = new Map<string, { stamp: string; summary: RunSummary }>();
  private loaded = false;
  private dirty = false;

  constructor(
    private readonly store: BoardStore,
    private readonly onProgress?: (done: number, total: number) => void,
  ) {}

  private async loadCache(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    const raw = await readIfExists(this.store.abs(CACHE));
    if (!raw) return;
    try {
      const v = JSON.parse(raw.toString('utf8')) as { version: number; entries: [string, { stamp: string; summary: RunSummary }][] };
      if (v.version === CACHE_VERSION) this.entries = new Map(v.entries);
    } catch {
      // a damaged cache is simply rebuilt
    }
  }

  /** Every run's summary, oldest id first, each checked against its RUN.md. */
  async summaries(): Promise<RunSummary[]> {
    await this.loadCache();
    let ids: string[] = [];
    try {
      ids = (await fs.readdir(this.store.abs('runs'))).filter(isRunId).sort();
    } catch (e) {
      if (!isCode(e, 'ENOENT')) throw e;
    }
    const out: RunSummary[] = [];
    const seen = new Set<string>();
    for (const [i, id] of ids.entries()) {
      if (i % 256 === 0) this.onProgress?.(i, ids.length);
      seen.add(id);
      const file = this.store.abs(paths.runFile(id));
      const st = await stamp(file);
      if (st === null) continue;
      const cached = this.entries.get(id);
      if (cached && cached.stamp === st) {
        out.push(cached.summary);
        continue;
      }
      const doc = await this.store.read(paths.runFile(id)).catch(() => null);
      if (!doc) continue;
      const r = runFromDoc(doc);
      const summary: RunSummary = { id: r.id, process: r.process, version: r.version, state: r.state, outcome: r.outcome, mode: r.mode, startedAt: r.startedAt, updatedAt: r.updatedAt, inputs: r.inputs };
      this.entries.set(id, { stamp: st, summary });
      this.dirty = true;
      out.push(summary);
    }
    for (const id of [...this.entries.keys()]) {
      if (!seen.has(id)) {
        this.entries.delete(id);
        this.dirty = true;
      }
    }
    if (this.dirty) await this.saveCache();
    return out;
  }

  private async saveCache(): Promise<void> {
    this.dirty = false;
    try {
      await writeFileAtomic(this.store.abs(CACHE), JSON.stringify({ version: CACHE_VERSION, entries: [...this.entries] }));
    } catch {
      // the cache is an optimisation; failing to write it changes nothing
    }
  }
}

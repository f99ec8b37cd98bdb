/**
 * Every run's history for the Insights figures, read from the runs' audit
 * chains (the board's own record; nothing else is kept or written). Each
 * chain is reduced to its facts once and kept in memory while the file's
 * inode, size and mtime stand: a chain only grows by a commit's append, and
 * git replaces files, either of which moves them. Lines that are not JSON (a
 * torn last line) are skipped: `workboard audit verify` is where a chain is
 * judged. The process versions the runs pinned are loaded once each. A CLI
 * process (a process per command) may keep the facts in `.work/insights.json`
 * for the next one: derived from the chains, checked against each chain's
 * stamp before use, and rebuilt from them when absent or unreadable.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Board } from '../board/board.js';
import { isCode, readIfExists, statIfExists, writeFileAtomic } from '../board/fsutil.js';
import { isRunId, paths, STATE_DIR } from '../board/layout.js';
import { runFacts, type HistoryLine, type RunFacts } from '../insights/facts.js';
import { versionKey } from '../insights/figures.js';
import type { Process } from '../process/model.js';
import { processVersion } from './published.js';

function parsedLines(text: string): HistoryLine[] {
  const out: HistoryLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    try {
      const l = JSON.parse(raw) as { ts?: unknown; actor?: unknown; action?: unknown; entity?: unknown; input?: { changes?: unknown } };
      if (typeof l.ts !== 'string' || typeof l.actor !== 'string' || typeof l.action !== 'string' || typeof l.entity !== 'string') continue;
      const changes = l.input?.changes;
      out.push({ ts: l.ts, actor: l.actor, action: l.action, entity: l.entity, ...(typeof changes === 'object' && changes !== null ? { changes: changes as Record<string, unknown> } : {}) });
    } catch {
      // a torn or damaged line: not history
    }
  }
  return out;
}

/** A published version's process, with the groups its roles were given when published. */
export type PinnedProcess = Process & { roles: Record<string, string> };

const KEPT = `${STATE_DIR}/insights.json`;
const KEPT_VERSION = 2;

export class RunHistory {
  private facts = new Map<string, { stamp: string; facts: RunFacts | null }>();
  /** Whether the facts changed since they were kept. */
  private changed = false;
  /** Counts the changes to the facts, so a shell can tell figures of the same facts apart. */
  generation = 0;
  private readonly versions = new Map<string, PinnedProcess>();

  constructor(private readonly board: Board) {}

  /** Take up the facts a previous process kept (each still checked against its chain's stamp). */
  async loadKept(): Promise<void> {
    const raw = await readIfExists(this.board.store.abs(KEPT));
    if (raw === null) return;
    try {
      const kept = JSON.parse(raw.toString('utf8')) as { version?: unknown; entries?: unknown };
      if (kept.version === KEPT_VERSION && Array.isArray(kept.entries)) this.facts = new Map(kept.entries as [string, { stamp: string; facts: RunFacts | null }][]);
    } catch {
      // unreadable: the chains are read again
    }
  }

  /** Keep the facts for the next process, when they changed. */
  async saveKept(): Promise<void> {
    if (!this.changed) return;
    await writeFileAtomic(this.board.store.abs(KEPT), JSON.stringify({ version: KEPT_VERSION, entries: [...this.facts] }));
    this.changed = false;
  }

  /** Every run's facts (runs whose chain starts no run are left out), in id order. */
  runs(): RunFacts[] {
    let ids: string[];
    try {
      ids = readdirSync(this.board.store.abs('runs')).filter(isRunId).sort();
    } catch (e) {
      if (isCode(e, 'ENOENT')) return [];
      throw e;
    }
    const out: RunFacts[] = [];
    const seen = new Set(ids);
    for (const id of this.facts.keys()) {
      if (seen.has(id)) continue;
      this.facts.delete(id);
      this.changed = true;
      this.generation++;
    }
    for (const id of ids) {
      const file = this.board.store.abs(paths.runChain(id));
      const s = statIfExists(file);
      if (!s) continue;
      const stamp = `${s.ino}:${s.size}:${s.mtimeMs}`;
      let e = this.facts.get(id);
      if (!e || e.stamp !== stamp) {
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (err) {
          if (isCode(err, 'ENOENT')) continue;
          throw err;
        }
        e = { stamp, facts: runFacts(id, parsedLines(text)) };
        this.facts.set(id, e);
        this.changed = true;
        this.generation++;
      }
      if (e.facts) out.push(e.facts);
    }
    return out;
  }

  /** The versions these runs pinned, by `name@version`; one that cannot be read is left out (its steps then have no kind or due). */
  async versionsOf(runs: readonly RunFacts[]): Promise<Map<string, PinnedProcess>> {
    const out = new Map<string, PinnedProcess>();
    for (const r of runs) {
      const key = versionKey(r.process, r.version);
      if (out.has(key)) continue;
      let v = this.versions.get(key);
      if (!v) {
        const loaded = await processVersion(this.board, r.process, r.version);
        if (!loaded) continue;
        v = { ...loaded.process, roles: loaded.roles };
        this.versions.set(key, v);
      }
      out.set(key, v);
    }
    return out;
  }
}

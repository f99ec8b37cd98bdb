/**
 * Every run's history for the Insights figures, read from the runs' audit
 * chains (the board's own record; nothing else is kept or written). Each
 * chain is reduced to its facts once and kept in memory while the file's
 * inode, size and mtime stand: a commit appends to a chain, git replaces it
 * and a hand edit rewrites it, each of which moves them, and one stat a run
 * is what it costs to see them all (the change log sees only commits). A
 * chain changed too recently for its mtime to show a further edit is read
 * again next time. Lines that are not JSON (a torn last line) are skipped:
 * `workboard audit verify` is where a chain is judged. The process versions
 * the runs pinned are loaded once each. A CLI process (a process per command)
 * may keep the facts, packed (insights/packed.ts), in `.work/insights.json`
 * for the next one: derived from the chains, checked against each chain's
 * stamp before use, unpacked only for the runs a filter selects, and rebuilt
 * from the chains when absent or unreadable.
 */
import type { Board } from '../board/board.js';
import { INSIGHTS_FILE, isRunId, RUN_CHAIN_FILE, RUNS_DIR } from '../board/layout.js';
import { stampOf } from '../board/listing.js';
import { runFacts, type HistoryLine, type RunFacts } from '../insights/facts.js';
import { versionKey } from '../insights/figures.js';
import { pack, unpack, type PackedFacts } from '../insights/packed.js';
import type { Process } from '../process/model.js';
import { tooYoungToTrust } from './open-run-cache.js';
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

const KEPT = INSIGHTS_FILE;
const KEPT_VERSION = 5;

/** A chain's facts as read (or packed, as a previous process kept them: unpacked when first asked for), under the chain's stamp. */
interface Entry {
  /** '' for a chain too young to trust: it matches no stamp, so the chain is read again. */
  stamp: string;
  facts?: RunFacts | null;
  packed?: PackedFacts | null;
}

/** The fields a filter selects runs by, as the packed facts hold them too. */
type Selected = Pick<RunFacts, 'process' | 'version' | 'mode' | 'startedAt'>;

export class RunHistory {
  private entries = new Map<string, Entry>();
  /** Whether the facts changed since they were kept. */
  private changed = false;
  /** Counts the changes to the facts, so a shell can tell figures of the same facts apart. */
  generation = 0;
  private readonly versions = new Map<string, PinnedProcess>();

  constructor(
    private readonly board: Board,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Take up the facts a previous process kept (each still checked against its chain's stamp). */
  async loadKept(): Promise<void> {
    const raw = await this.board.state.readText(KEPT);
    if (raw === null) return;
    try {
      const kept = JSON.parse(raw) as { version?: unknown; runs?: unknown };
      if (kept.version === KEPT_VERSION && Array.isArray(kept.runs))
        this.entries = new Map((kept.runs as [string, string, PackedFacts | null][]).map(([id, stamp, packed]) => [id, { stamp, packed }]));
    } catch {
      // unreadable: the chains are read again
    }
  }

  /** Keep the facts for the next process, when they changed. */
  async saveKept(): Promise<void> {
    if (!this.changed) return;
    const runs: [string, string, PackedFacts | null][] = [];
    for (const [id, e] of this.entries) {
      if (e.stamp === '') continue;
      runs.push([id, e.stamp, e.packed !== undefined ? e.packed : e.facts ? pack(e.facts) : null]);
    }
    // Marked kept before the write, so a change made meanwhile is kept by the next save.
    this.changed = false;
    try {
      await this.board.state.replace(KEPT, JSON.stringify({ version: KEPT_VERSION, runs }));
    } catch (e) {
      this.changed = true;
      throw e;
    }
  }

  /**
   * Every run's facts (runs whose chain starts no run are left out), in id
   * order; with `wanted`, only the runs it selects (the others are not unpacked).
   */
  runs(wanted?: (run: Selected) => boolean): RunFacts[] {
    const ids = (this.board.listing.names('runs') ?? []).filter(isRunId);
    const out: RunFacts[] = [];
    const seen = new Set(ids);
    for (const id of this.entries.keys()) {
      if (seen.has(id)) continue;
      this.entries.delete(id);
      this.noteChange();
    }
    for (const id of ids) {
      // paths.runChain's file, joined without its id check: a path.join for each of 10k runs took some 10 ms of a warm `stats`.
      const file = `${RUNS_DIR}/${id}/${RUN_CHAIN_FILE}`;
      const s = this.board.listing.stat(file);
      if (!s) continue;
      let e = this.entries.get(id);
      if (!e || e.stamp !== stampOf(s)) {
        const text = this.board.listing.readNow(file)?.toString('utf8');
        if (text === undefined) continue;
        // A chain changed within the file system's clock tick could change again unseen at the same size and mtime: read again next time.
        const young = tooYoungToTrust(Number(s.mtimeNs / 1_000_000n), s.mtimeNs % 1_000_000_000n === 0n, this.clock());
        e = { stamp: young ? '' : stampOf(s), facts: runFacts(id, parsedLines(text)) };
        this.entries.set(id, e);
        this.noteChange();
      }
      const p = e.packed;
      if (p === null || e.facts === null) continue;
      if (p !== undefined) {
        if (wanted && !wanted({ process: p[1], version: p[2], mode: p[3], startedAt: p[4] })) continue;
        e.facts = unpack(p);
        delete e.packed;
      }
      if (e.facts && (!wanted || wanted(e.facts))) out.push(e.facts);
    }
    return out;
  }

  private noteChange(): void {
    this.changed = true;
    this.generation++;
  }

  /**
   * The versions these runs pinned (or these published versions), by `name@version`; one that cannot be read
   * is left out (its steps then have no kind or due).
   */
  async versionsOf(runs: readonly Pick<RunFacts, 'process' | 'version'>[]): Promise<Map<string, PinnedProcess>> {
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
